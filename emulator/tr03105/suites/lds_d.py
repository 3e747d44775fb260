"""LDS_D: EF.DG3 (fingerprints, behind EAC), BSI only.

The default EAC chip of ISO7816_E (Fixtures/passport-eac, TEST-ONLY chain UTTRCVCA00001 -> DV -> IS
granting DG3 and DG4) with DG3 built here: the plan's default is two WSQ fingerprints (the fixture's
WSQ image, for two finger positions); EF.SOD is re-signed over the changed DG3, so only the
deviation differs.

Profile: every case is of the DG3 profile (D_14: ISO19794-4), which this reader does not claim
(claimed: SIP, AIP, DPRCTD-SHA1, DG1). Data sets the plan calls valid must still be read and
verified (SUCCESSFUL, with terminal authentication passed); for a malformed DG3 the plan's
"failed" is the verdict of an IS claiming the profile, so here the reader must only stay
operational (EITHER).
"""
from der import integer, tlv

from fixturegen import biometrics as bio

from ..dataset import DataSet
from ..plan import EITHER, SUCCESSFUL, case
from .iso7816_e import eac_chip

OK = {"terminal_authentication.status": "passed", "unavailable": []}   # DG3 and DG4 read
HEADER_ORDER = (0x80, 0x81, 0x82, 0x87, 0x88)


def fixture_templates(name):
    """[(header {tag: value}, record)] of the fixture's DG3 or DG4."""
    return [(h, r) for h, r, _ in bio.templates(DataSet("passport-eac").files[name])]


def template(header, record, *, drop=(), replace=None, image=True):
    """7F60 { A1 {BHT}, 5F2E record }; `drop` header tags, `replace` {tag: value}, `image` False: no 5F2E."""
    values = dict(header)
    values.update(replace or {})
    bht = b"".join(tlv(t, values[t]) for t in HEADER_ORDER if t in values and t not in drop)
    return tlv(0x7F60, tlv(0xA1, bht) + (tlv(0x5F2E, record) if image else b""))


def group(tag, templates, *, count=True, outer=None, length_delta=0):
    """DG { 7F61 { 02 n, templates } } with the outer tag `outer` and its length off by `length_delta`."""
    body = tlv(0x7F61, (integer(len(templates)) if count else b"") + b"".join(templates))
    whole = tlv(outer or tag, body)
    if not length_delta:
        return whole
    # long-form length 82 hh ll after a one-byte tag
    assert whole[1] == 0x82, "DG longer than 255 bytes expected"
    n = int.from_bytes(whole[2:4], "big") + length_delta
    return whole[:2] + n.to_bytes(2, "big") + whole[4:]


def wsq_fingers(n):
    """n WSQ fingerprint records (the fixture's WSQ image at n finger positions): [(header, record)]."""
    header, record = next((h, r) for h, r in fixture_templates("DG3") if bio.parse_finger_record(r)["compression"] == 2)
    rec = bio.parse_finger_record(record)
    out = []
    for position in (1, 6, 2)[:n]:
        r = bio.finger_record(position=position, compression="WSQ", image_data=rec["image"], width=rec["width"],
                              height=rec["height"], quality=rec["quality"])
        out.append(({**header, 0x82: bytes([bio.FINGER_SUBTYPE[position]])}, r))
    return out


def made_fingers(compression, n=2):
    """n fingerprints made here (JPEG2000, or uncompressed 8-bit at half size for RAW)."""
    out = []
    header = fixture_templates("DG3")[0][0]
    for position, seed in ((1, 3101), (6, 3106))[:n]:
        image = bio.fingerprint(seed)
        if compression == "uncompressed":
            image = image.resize((image.width // 2, image.height // 2))
            data = image.tobytes()
        else:
            data = bio.encode_finger(image, compression)
        r = bio.finger_record(position=position, compression=compression, image_data=data, width=image.width,
                              height=image.height, quality=80)
        out.append(({**header, 0x82: bytes([bio.FINGER_SUBTYPE[position]])}, r))
    return out


def dg_chip(work, name, dg):
    ds = DataSet("passport-eac")
    ds.files[name] = dg
    ds.resign()
    return eac_chip(work, ds=ds)[0]


def dg3_case(id, title, expect, deviation, make, profile_name="DG3"):
    profile = " (profile %s not claimed: the reader must stay operational)" % profile_name if expect == EITHER else ""

    @case(id, title, expect, deviation=deviation + "; EF.SOD re-signed" + profile,
          requires=OK if expect == SUCCESSFUL else None)
    def build(work):
        return dg_chip(work, "DG3", make())


def _default(**first):
    fingers = wsq_fingers(2)
    return [template(h, r, **(first if i == 0 else {})) for i, (h, r) in enumerate(fingers)]


T = 0x63
dg3_case("LDS_D_01", "Two JPEG2000 fingerprint images", SUCCESSFUL, "DG3 with two JPEG2000 fingerprints",
         lambda: group(T, [template(h, r) for h, r in made_fingers("JPEG2000")]))
dg3_case("LDS_D_02", "Two WSQ fingerprint images", SUCCESSFUL, "DG3 with two WSQ fingerprints (the plan's default)",
         lambda: group(T, _default()))
dg3_case("LDS_D_03", "Three WSQ fingerprint images", SUCCESSFUL, "DG3 with three WSQ fingerprints",
         lambda: group(T, [template(h, r) for h, r in wsq_fingers(3)]))
dg3_case("LDS_D_04", "DG tag 63 wrong (tag 64 instead)", EITHER, "DG3's outer tag 64 instead of 63 (optional case)",
         lambda: group(T, _default(), outer=0x64))
dg3_case("LDS_D_05", "DG tag 63 length byte too small", EITHER, "DG3's outer length one too small (optional case)",
         lambda: group(T, _default(), length_delta=-1))
dg3_case("LDS_D_06", "DG tag 63 length byte too big", EITHER, "DG3's outer length one too big (optional case)",
         lambda: group(T, _default(), length_delta=+1))
dg3_case("LDS_D_07", "BIGT, missing number of instances", EITHER, "the BIGT 7F61 without its number of instances (02)",
         lambda: group(T, _default(), count=False))
dg3_case("LDS_D_08", "BHT, not allowed format owner", EITHER, "first instance's BHT format owner 01FF",
         lambda: group(T, _default(replace={0x87: b"\x01\xFF"})))
dg3_case("LDS_D_09", "BHT, missing format owner", EITHER, "first instance's BHT without format owner (87)",
         lambda: group(T, _default(drop=(0x87,))))
dg3_case("LDS_D_10", "BHT, not allowed format type", EITHER, "first instance's BHT format type 0009",
         lambda: group(T, _default(replace={0x88: b"\x00\x09"})))
dg3_case("LDS_D_11", "BHT, missing format type", EITHER, "first instance's BHT without format type (88)",
         lambda: group(T, _default(drop=(0x88,))))
dg3_case("LDS_D_12", "BHT, incorrect biometric subtype", EITHER, "first instance's BHT biometric subtype FE",
         lambda: group(T, _default(replace={0x82: b"\xFE"})))
dg3_case("LDS_D_13", "BHT, missing biometric subtype", EITHER, "first instance's BHT without biometric subtype (82)",
         lambda: group(T, _default(drop=(0x82,))))


def _pir():
    fingers = wsq_fingers(2)
    (h, r), rest = fingers[0], fingers[1:]
    return group(T, [template(h, b"PIR\x00" + r[4:])] + [template(h2, r2) for h2, r2 in rest])


dg3_case("LDS_D_14", "GRH, incorrect format identifier", EITHER,
         "first instance's general record header format identifier PIR\\0 instead of FIR\\0", _pir, "ISO19794-4")
dg3_case("LDS_D_15", "Missing fingerprint image in instance two (tag 5F2E)", EITHER,
         "the second instance without its image DO 5F2E",
         lambda: group(T, [template(h, r, image=(i == 0)) for i, (h, r) in enumerate(wsq_fingers(2))]))
dg3_case("LDS_D_16", "Two RAW fingerprint images", SUCCESSFUL, "DG3 with two uncompressed (RAW) fingerprints, 150x200",
         lambda: group(T, [template(h, r) for h, r in made_fingers("uncompressed")]))
