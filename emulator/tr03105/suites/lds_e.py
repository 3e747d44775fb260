"""LDS_E: EF.DG4 (iris, behind EAC), BSI only.

As LDS_D for DG4: the default EAC chip of ISO7816_E with DG4 built here as two instances (one
biometric template per eye, 19794-6:2005 records); the plan's default is two RAW iris images
(here 160x120 8-bit, to keep DG4 small), LDS_E_01 two JPEG2000 images (the fixture's). EF.SOD is
re-signed over the changed DG4.

Profile: every case is of the DG4 profile (E_13: ISO19794-6), which this reader does not claim
(claimed: SIP, AIP, DPRCTD-SHA1, DG1): valid data sets SUCCESSFUL, malformed ones EITHER (the
reader must stay operational).
"""
import struct

from fixturegen import biometrics as bio

from ..plan import EITHER, SUCCESSFUL, case
from .lds_d import OK, dg_chip, fixture_templates, group, template

T = 0x76
IRIS_FORMAT_MONO_RAW = 0x0002


def eyes(raw):
    """Two (header, record) instances, one eye each: RAW 160x120, or the fixture's JPEG2000 images."""
    header, record = fixture_templates("DG4")[0]
    parsed = bio.parse_iris_record(record)
    out = []
    for eye in parsed["eyes"]:
        if raw:
            image, diameter = bio.iris(4040 + eye["subtype"])
            image = image.resize((160, 120))
            data, w, h, d = image.tobytes(), 160, 120, diameter // 4
        else:
            data, w, h, d = eye["image"], parsed["width"], parsed["height"], parsed["diameter"]
        rec = bio.iris_record([(eye["subtype"], eye["quality"], data)], diameter=d, width=w, height=h)
        if raw:
            rec = rec[:21] + struct.pack(">H", IRIS_FORMAT_MONO_RAW) + rec[23:]
        out.append(({**header, 0x82: bytes([eye["subtype"]])}, rec))   # subtype: the eye
    return out


def _default(**first):
    return [template(h, r, **(first if i == 0 else {})) for i, (h, r) in enumerate(eyes(raw=True))]


def dg4_case(id, title, expect, deviation, make, profile_name="DG4"):
    profile = " (profile %s not claimed: the reader must stay operational)" % profile_name if expect == EITHER else ""

    @case(id, title, expect, deviation=deviation + "; EF.SOD re-signed" + profile,
          requires=OK if expect == SUCCESSFUL else None)
    def build(work):
        return dg_chip(work, "DG4", make())


def _fis():
    (h, r), rest = eyes(raw=True)[0], eyes(raw=True)[1:]
    return group(T, [template(h, b"FIS\x00" + r[4:])] + [template(h2, r2) for h2, r2 in rest])


dg4_case("LDS_E_01", "Two JPEG2000 iris images", SUCCESSFUL, "DG4 with two JPEG2000 iris images (two instances)",
         lambda: group(T, [template(h, r) for h, r in eyes(raw=False)]))
dg4_case("LDS_E_02", "Two RAW iris images", SUCCESSFUL, "DG4 with two RAW iris images, 160x120 (the plan's default)",
         lambda: group(T, _default()))
dg4_case("LDS_E_03", "DG tag 76 wrong (use tag 77 instead)", EITHER, "DG4's outer tag 77 instead of 76 (optional case)",
         lambda: group(T, _default(), outer=0x77))
dg4_case("LDS_E_04", "DG tag 76 length byte too small", EITHER, "DG4's outer length one too small (optional case)",
         lambda: group(T, _default(), length_delta=-1))
dg4_case("LDS_E_05", "DG tag 76 length byte too big", EITHER, "DG4's outer length one too big (optional case)",
         lambda: group(T, _default(), length_delta=+1))
dg4_case("LDS_E_06", "BIGT, missing number of instances", EITHER, "the BIGT 7F61 without its number of instances (02)",
         lambda: group(T, _default(), count=False))
dg4_case("LDS_E_07", "BHT, illegal format owner", EITHER, "first instance's BHT format owner 01FF",
         lambda: group(T, _default(replace={0x87: b"\x01\xFF"})))
dg4_case("LDS_E_08", "BHT, missing format owner", EITHER, "first instance's BHT without format owner (87)",
         lambda: group(T, _default(drop=(0x87,))))
dg4_case("LDS_E_09", "BHT, not allowed format type", EITHER, "first instance's BHT format type 000F",
         lambda: group(T, _default(replace={0x88: b"\x00\x0F"})))
dg4_case("LDS_E_10", "BHT, missing format type", EITHER, "first instance's BHT without format type (88)",
         lambda: group(T, _default(drop=(0x88,))))
dg4_case("LDS_E_11", "BHT, incorrect biometric subtype", EITHER, "first instance's BHT biometric subtype FE",
         lambda: group(T, _default(replace={0x82: b"\xFE"})))
dg4_case("LDS_E_12", "BHT, missing biometric subtype", EITHER, "first instance's BHT without biometric subtype (82)",
         lambda: group(T, _default(drop=(0x82,))))
dg4_case("LDS_E_13", "BHT, incorrect format identifier", EITHER,
         "first instance's record format identifier FIS\\0 instead of IIR\\0", _fis, "ISO19794-6")
dg4_case("LDS_E_14", "Missing iris image in instance two (tag 5F2E)", EITHER,
         "the second instance without its image DO 5F2E",
         lambda: group(T, [template(h, r, image=(i == 0)) for i, (h, r) in enumerate(eyes(raw=True))]))
