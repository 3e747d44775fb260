"""Loading a passport dump folder and extracting the BAC MRZ information."""
import os
import re

from der import find_tlv


# Logical file name -> (file identifier, short EF identifier, lives in the MF?)
# EF.CVCA (TR-03110-3, EAC chips) shares FID 011C / SFI 1C with EF.CardAccess, but in the eMRTD
# application; a dump file named by FID (ef011C.bin) stays EF.CardAccess.
FILES = {"COM": (0x011E, 0x1E, False), "SOD": (0x011D, 0x1D, False),
         "CardAccess": (0x011C, 0x1C, True), "CardSecurity": (0x011D, 0x1D, True),
         "CVCA": (0x011C, 0x1C, False)}
FILES.update({"DG%d" % n: (0x0100 + n, n, False) for n in range(1, 17)})

# File identifiers of FID-named dumps (ef011E.bin ...); 011D means EF.SOD there.
_BY_FID = {fid: name for name, (fid, _, in_mf) in FILES.items() if not in_mf}
_BY_FID[0x011C] = "CardAccess"


def logical_name(text):
    """Map a file name or a --drop-during argument to a key of FILES, or None.

    Accepts plain (DG1, COM, SOD, CardAccess, CVCA), BSI (Datagroup1, EF_COM,
    EF_SOD, EF_CVCA) and FID (ef0101, 0101) spellings, case-insensitively.
    """
    s = text.lower()
    if s.endswith(".bin"):
        s = s[:-4]
    s = re.sub(r"^ef[_.]", "", s)
    m = re.fullmatch(r"(?:dg|datagroup)(\d{1,2})", s)
    if m and 1 <= int(m.group(1)) <= 16:
        return "DG%d" % int(m.group(1))
    m = re.fullmatch(r"(?:ef)?([0-9a-f]{4})", s)
    if m:
        return _BY_FID.get(int(m.group(1), 16))
    for name in ("COM", "SOD", "CardAccess", "CardSecurity", "CVCA"):
        if s == name.lower():
            return name
    return None


def load_dump(folder):
    """{logical name: bytes} for every recognised file; other files are ignored."""
    files = {}
    for entry in sorted(os.listdir(folder)):
        path = os.path.join(folder, entry)
        name = logical_name(entry) if entry.lower().endswith(".bin") else None
        if name is None or not os.path.isfile(path):
            continue
        with open(path, "rb") as f:
            data = f.read()
        if name in files and files[name] != data:
            raise ValueError("%s: two different files for %s" % (folder, name))
        files[name] = data
    if "DG1" not in files:
        raise ValueError("%s: no DG1 (needed for the BAC keys)" % folder)
    return files


def _check_digit(text):
    weights = (7, 3, 1)
    total = 0
    for i, c in enumerate(text):
        value = int(c) if c.isdigit() else (ord(c) - 55 if c.isalpha() else 0)
        total += value * weights[i % 3]
    return str(total % 10)


def _document_number(number, check, optional):
    """Number + check digit; a '<' check digit means the number continues in
    the optional data up to its own check digit (ICAO 9303-5/-6 long numbers)."""
    if check != "<":
        return number + check
    rest = optional.split("<", 1)[0]
    if len(rest) < 2:
        raise ValueError("long document number without its check digit")
    return number + rest[:-1] + rest[-1]


def mrz_information(dg1):
    """MRZ_information for BAC: doc number+cd, birth date+cd, expiry+cd."""
    value = find_tlv(dg1, 0x61, 0x5F1F)
    if value is None:
        raise ValueError("DG1 has no 61/5F1F MRZ")
    mrz = value.decode("ascii")
    if len(mrz) == 90:                                   # TD1: 3 x 30
        l1, l2 = mrz[:30], mrz[30:60]
        doc = _document_number(l1[5:14], l1[14], l1[15:30])
        return doc + l2[0:7] + l2[8:15]
    if len(mrz) in (72, 88):                             # TD2: 2 x 36, TD3: 2 x 44
        l2 = mrz[len(mrz) // 2:]
        doc = _document_number(l2[0:9], l2[9], l2[28:35] if len(mrz) == 72 else "")
        return doc + l2[13:20] + l2[21:28]
    raise ValueError("MRZ of unexpected length %d" % len(mrz))


def check_mrz_information(info):
    """Warnings (not errors: specimens may carry wrong check digits)."""
    problems = []
    doc, dates = info[:-14], info[-14:]
    for label, field in (("document number", doc), ("birth date", dates[:7]),
                         ("expiry date", dates[7:])):
        if _check_digit(field[:-1]) != field[-1]:
            problems.append("%s check digit mismatch" % label)
    return problems


def mrz_key_information(spec):
    """MRZ information from "NUMBER,BIRTH,EXPIRY" (--mrz-key): the access key given apart from DG1,
    check digits computed; a number longer than 9 characters is cut as in the MRZ (first 9 + check)."""
    parts = [p.strip().upper() for p in spec.split(",")]
    if len(parts) != 3 or not all(parts) or any(len(d) != 6 or not d.isdigit() for d in parts[1:]):
        raise ValueError("--mrz-key needs NUMBER,BIRTH,EXPIRY (dates YYMMDD), not %r" % spec)
    number = parts[0][:9].ljust(9, "<")
    return "".join(f + _check_digit(f) for f in (number, parts[1], parts[2]))
