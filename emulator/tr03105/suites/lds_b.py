"""LDS_B: EF.DG1 (the MRZ). Moved to ICAO P4 LDS_B in v1.5: titles only, configurations and
verdicts inferred from the titles and ICAO 9303-3/-4/-10. Profile DG1 is claimed (`passport`
parses DG1 and its MRZ strictly), so a malformed or inconsistent DG1 is expected to fail as a
file-format error.

The data page (mrz.txt, given to the scan with --mrz) is the fixture's correct MRZ unless the case
is a valid MRZ variant (then page and DG1 agree). The chip takes its access key from the page
(vpassport --mrz-key), so the deviation is only in DG1; EF.SOD is re-signed over the new DG1.
"""
from ..dataset import DataSet
from ..plan import FAILED, SUCCESSFUL, Config, case

import der
from fixturegen import lds, mrz
from fixturegen.generate import PERSON

BASE = dict(PERSON)


def td3(**fields):
    person = dict(BASE)
    person.update(fields)
    return list(mrz.td3(**person))


def patch(line, pos, text):
    return line[:pos] + text + line[pos + len(text):]


def composite(line2):
    return patch(line2, 43, mrz.check_digit(line2[0:10] + line2[13:20] + line2[21:43]))


def key_of(lines):
    l2 = lines[1]
    return "%s,%s,%s" % (l2[0:9].rstrip("<"), l2[13:19], l2[21:27])


def build(work, dg1_lines=None, *, dg1=None, page=None, key_from_page=True):
    """DG1 from `dg1_lines` (or raw `dg1`), EF.SOD re-signed; data page `page` (default: the
    fixture's, or DG1's lines when `page` is "same")."""
    ds = DataSet("passport")
    fixture = ds.mrz.strip().split("\n")
    ds.files["DG1"] = dg1 if dg1 is not None else lds.dg1(tuple(dg1_lines))
    page_lines = dg1_lines if page == "same" else (page or fixture)
    ds.mrz = "\n".join(page_lines) + "\n"
    ds.resign()
    chip = ["--mrz-key", key_of(page_lines)] if key_from_page else []
    return Config(ds.write(work + "/dump"), chip=chip)


def add(id, title, expect, deviation, lines=None, page=None, dg1=None, step="format", key_from_page=True):
    def b(work):
        return build(work, lines() if callable(lines) else lines, dg1=dg1() if callable(dg1) else dg1,
                     page=page, key_from_page=key_from_page)
    case(id, title, expect, step if expect == FAILED else None, deviation=deviation, inferred=True)(b)


# --- valid MRZ variants: DG1 and the page agree -------------------------------------------------

add("LDS_B_01", "MRZ with optional data", SUCCESSFUL, "DG1 and page: personal number ZE184226B with its check digit",
    lines=lambda: td3(personal_number="ZE184226B"), page="same")
add("LDS_B_02", "Name in MRZ indicates abbreviation of the secondary identifier", SUCCESSFUL,
    "DG1 and page: given names truncated at the end of the 39-character name field",
    lines=lambda: [td3()[0][:5] + "SPECIMEN<<ALEXANDRA<MARIE<CHRISTINE<JOS", td3()[1]], page="same")
add("LDS_B_03", "Name in MRZ without secondary identifier", SUCCESSFUL,
    "DG1 and page: primary identifier only (P<UTOSPECIMEN<<<…)",
    lines=lambda: td3(given_names=[]), page="same")
add("LDS_B_04", "No optional data, checksum is '0' instead of '<'", SUCCESSFUL,
    "DG1 and page: empty personal number with check digit 0 (ICAO 9303-4 allows 0 or <)",
    lines=lambda: list(mrz.td3(**BASE, empty_personal_number_check="0")), page="same")

for _id, _what, _birth in [("LDS_B_25", "day", "8804<<"), ("LDS_B_26", "month", "88<<12"),
                           ("LDS_B_27", "year", "<<0412"), ("LDS_B_28", "complete dob", "<<<<<<")]:
    add(_id, "Incomplete birth date (missing %s)" % _what, SUCCESSFUL,
        "DG1 and page: birth date %s (unknown parts as fillers, ICAO 9303-3), check digits over it; the chip's "
        "access key from DG1" % _birth, lines=(lambda b: lambda: td3(birth=b))(_birth), page="same",
        key_from_page=False)


# --- DG1 encoding -------------------------------------------------------------------------------

def _raw(mutate):
    def make():
        return mutate(lds.dg1(tuple(td3())))
    return make


def _length(delta):
    def mutate(dg1):
        n = dg1[1]
        return bytes([0x61, n + delta]) + dg1[2:]
    return mutate


add("LDS_B_05", "DG tag 61 wrong (use tag 62 instead)", FAILED, "DG1's outer tag 62 instead of 61",
    dg1=_raw(lambda d: b"\x62" + d[1:]))
add("LDS_B_06", "DG tag 61 length byte too small", FAILED, "DG1's tag 61 length one less than its content",
    dg1=_raw(_length(-1)))
add("LDS_B_07", "DG tag 61 length byte too big", FAILED, "DG1's tag 61 length one more than its content",
    dg1=_raw(_length(1)))
add("LDS_B_24", "Missing MRZ data object", FAILED, "DG1 = 61 00: no MRZ data object 5F1F",
    dg1=lambda: der.tlv(0x61, b""))


# --- incorrect MRZ in DG1 (the page is correct) -----------------------------------------------

def _line1(pos, text):
    return lambda: [patch(td3()[0], pos, text), td3()[1]]


def _line2(pos, text, fix_composite=True):
    def make():
        l1, l2 = td3()
        l2 = patch(l2, pos, text)
        return [l1, composite(l2) if fix_composite else l2]
    return make


def _field(pos, value, cd_pos):
    """Line 2 field at pos replaced, its own check digit computed over it, composite too."""
    def make():
        l1, l2 = td3()
        l2 = patch(l2, pos, value)
        l2 = patch(l2, cd_pos, mrz.check_digit(value))
        return [l1, composite(l2)]
    return make


def _wrong_cd(pos):
    def make():
        l1, l2 = td3()
        l2 = patch(l2, pos, str((int(l2[pos]) + 1) % 10) if l2[pos].isdigit() else "1")
        return [l1, composite(l2)]
    return make


def _name(name):
    return lambda: [patch(td3()[0], 5, name.ljust(39, "<")), td3()[1]]


def _optional_wrong_cd():
    l1, l2 = td3(personal_number="ZE184226B")
    l2 = patch(l2, 42, str((int(l2[42]) + 1) % 10))
    return [l1, composite(l2)]


INCORRECT = [
    ("LDS_B_08", "Incorrect MRZ, document type unknown", "DG1 document code Q< (not P)", _line1(0, "Q<")),
    ("LDS_B_09", "Incorrect MRZ, issuing state syntax error", "DG1 issuing state U2O", _line1(2, "U2O")),
    ("LDS_B_10", "Incorrect MRZ, name is void", "DG1 name field all fillers", _name("")),
    ("LDS_B_11", "Incorrect MRZ, name different from data page", "DG1 name SPECIMEN<<ALEX<MARIA, page SPECIMEN<<ALEX<MARIE",
     _name("SPECIMEN<<ALEX<MARIA")),
    ("LDS_B_12", "Incorrect MRZ, document number different from data page",
     "DG1 document number C01X00T48 (check digits valid), page C01X00T47; the chip's key from the page",
     _field(0, "C01X00T48", 9)),
    ("LDS_B_13", "Incorrect MRZ, wrong document number checksum", "DG1 document number check digit off by one",
     _wrong_cd(9)),
    ("LDS_B_14", "Incorrect MRZ, nationality syntax error", "DG1 nationality U2O", _line2(10, "U2O")),
    ("LDS_B_15", "Incorrect MRZ, date of birth syntax error", "DG1 birth date 88A412 (check digits over it)",
     _field(13, "88A412", 19)),
    ("LDS_B_16", "Incorrect MRZ, date of birth error", "DG1 birth date 881332 (no 13th month; check digits valid)",
     _field(13, "881332", 19)),
    ("LDS_B_17", "Incorrect MRZ, incorrect date of birth checksum", "DG1 birth date check digit off by one",
     _wrong_cd(19)),
    ("LDS_B_18", "Incorrect MRZ, incorrect sex", "DG1 sex Q (not F, M, X or <)", _line2(20, "Q")),
    ("LDS_B_19", "Incorrect MRZ, date of expiry syntax error", "DG1 expiry date 3A0930 (check digits over it)",
     _field(21, "3A0930", 27)),
    ("LDS_B_20", "Incorrect MRZ, date of expiry error", "DG1 expiry date 341332 (no 13th month; check digits valid)",
     _field(21, "341332", 27)),
    ("LDS_B_21", "Incorrect MRZ, incorrect date of expiry checksum", "DG1 expiry date check digit off by one",
     _wrong_cd(27)),
    ("LDS_B_22", "Incorrect MRZ, incorrect optional data checksum",
     "DG1 personal number ZE184226B with its check digit off by one (page: same personal number, correct)",
     _optional_wrong_cd),
    ("LDS_B_23", "Incorrect MRZ, incorrect checksum", "DG1 composite check digit off by one",
     lambda: (lambda l: [l[0], patch(l[1], 43, str((int(l[1][43]) + 1) % 10))])(td3())),
]
for _id, _title, _dev, _lines in INCORRECT:
    _page = (lambda: td3(personal_number="ZE184226B")) if _id == "LDS_B_22" else None

    def _b(work, _lines=_lines, _page=_page):
        return build(work, _lines(), page=_page() if _page else None)
    case(_id, _title, FAILED, "format", deviation=_dev + "; page MRZ correct, EF.SOD re-signed (profile DG1)",
         inferred=True)(_b)
