"""LDS_C: EF.DG2 (the encoded face). Moved to ICAO P4 LDS_C in v1.5: titles only, configurations
and verdicts inferred from the titles, ICAO 9303-10 4.7.2 and ISO/IEC 19794-5:2005.

Each case builds DG2 anew (biometric information group 7F61, one template 7F60 with its header
A1 and a 19794-5 facial record in 5F2E) with the fixture's portrait, one element changed, and
EF.SOD re-signed. The positive cases (JPEG, JPEG 2000) need only SIP: read and verified. The
encoding cases belong to the DG2 profile (the IS checks DG2's DER encoding and the biometric
header) and the record cases to the ISO19794-5 profile; `passport` claims neither (it reads DG2
leniently to show the face), so for those the plan's run does not apply and the IS must only stay
operational: expected "either".
"""
import os
import struct

from ..dataset import FIXTURES, DataSet
from ..plan import EITHER, SUCCESSFUL, Config, case

import der
from fixturegen import portrait


def fixture_jpeg():
    dg2 = DataSet("passport").files["DG2"]
    start = dg2.index(b"\xFF\xD8\xFF")
    end = dg2.rindex(b"\xFF\xD9") + 2
    return dg2[start:end]


def fixture_jp2():
    with open(os.path.join(FIXTURES, "images", "face-160x206.jp2"), "rb") as f:
        return f.read()


def facial_record(image, *, width, height, data_type=0, points=None, format_id=b"FAC\x00", version=b"010\x00",
                  gender=2, eye=5, hair=4, pose=(0, 0, 0), uncertainty=(0, 0, 0), face_type=1,
                  block_length_delta=0):
    """ISO/IEC 19794-5:2005 record, one face. points: (major, minor, x, y)."""
    if points is None:
        (lx, ly), (rx, ry) = portrait.eye_centres()
        points = [(12, 1, lx, ly), (12, 2, rx, ry)]
    fp = b"".join(struct.pack(">BBHHH", 1, (ma << 4) | mi, x, y, 0) for ma, mi, x, y in points)
    info = struct.pack(">BBHHBBHH", face_type, data_type, width, height, 1, 2, 0, 0)
    block = 20 + len(fp) + len(info) + len(image)
    header = (struct.pack(">IH", block + block_length_delta, len(points)) + bytes([gender, eye, hair])
              + (1).to_bytes(3, "big") + struct.pack(">H", 1) + bytes(pose) + bytes(uncertainty))
    general = format_id + version + struct.pack(">IH", 14 + block, 1)
    return general + header + fp + info + image


def dg2(record, *, header=None, instances=True, outer_tag=0x75, length_delta=0, with_record=True):
    bht = header if header is not None else [(0x80, b"\x01\x01"), (0x81, b"\x02"), (0x87, b"\x01\x01"), (0x88, b"\x00\x08")]
    a1 = der.tlv(0xA1, b"".join(der.tlv(t, v) for t, v in bht))
    bit = der.tlv(0x7F60, a1 + (der.tlv(0x5F2E, record) if with_record else b""))
    group = der.tlv(0x7F61, (der.integer(1) if instances else b"") + bit)
    if not length_delta:
        return der.tlv(outer_tag, group)
    return bytes([outer_tag]) + der.length(len(group) + length_delta) + group


def build(work, data):
    ds = DataSet("passport")
    ds.files["DG2"] = data
    ds.resign()
    return Config(ds.write(work + "/dump"))


def jpeg_record(**kw):
    return facial_record(fixture_jpeg(), width=portrait.WIDTH, height=portrait.HEIGHT, **kw)


def jp2_record(**kw):
    return facial_record(fixture_jp2(), width=160, height=206, data_type=1, **kw)


def add(id, title, expect, deviation, make, profile=None):
    if profile:
        deviation += "; profile %s, not claimed: the IS must stay operational" % profile
    case(id, title, expect, deviation=deviation + "; EF.SOD re-signed", inferred=True)(
        lambda work: build(work, make()))


EXTRA_POINTS = [(3, 1, 80, 140), (9, 1, 70, 120), (9, 2, 90, 120), (2, 2, 80, 170)]

add("LDS_C_01", "JPEG2000 image, full frontal", SUCCESSFUL,
    "DG2 with a JPEG 2000 (JP2) full frontal image, image data type 1", lambda: dg2(jp2_record()))
add("LDS_C_02", "JPEG image, full frontal", SUCCESSFUL,
    "DG2 with a JPEG full frontal image (built anew like the fixture's)", lambda: dg2(jpeg_record()))
add("LDS_C_03", "JPEG2000 image, full frontal with additional facial feature points", SUCCESSFUL,
    "DG2 with a JPEG 2000 image and six feature points (eye centres, nose, mouth, chin)",
    lambda: dg2(jp2_record(points=[(12, 1, 60, 95), (12, 2, 100, 95)] + EXTRA_POINTS)))

add("LDS_C_04", "DG tag 75 wrong (tag 76 instead)", EITHER, "DG2's outer tag 76 instead of 75",
    lambda: dg2(jpeg_record(), outer_tag=0x76), "DG2")
add("LDS_C_05", "DG tag 75 length byte too small", EITHER, "DG2's tag 75 length one less than its content",
    lambda: dg2(jpeg_record(), length_delta=-1), "DG2")
add("LDS_C_06", "DG tag 75 length byte too big", EITHER, "DG2's tag 75 length one more than its content",
    lambda: dg2(jpeg_record(), length_delta=1), "DG2")
add("LDS_C_07", "BIT, missing tag for number of instances", EITHER,
    "biometric information group 7F61 without the number of instances (02)",
    lambda: dg2(jpeg_record(), instances=False), "DG2")

_HEADER = [(0x80, b"\x01\x01"), (0x81, b"\x02"), (0x87, b"\x01\x01"), (0x88, b"\x00\x08")]


def _header(tag, value):
    return [(t, value if t == tag else v) for t, v in _HEADER if not (t == tag and value is None)]


for _id, _title, _dev, _tag, _value in [
        ("LDS_C_08", "BHT, not allowed format owner", "BHT format owner 0101 → 0103 (not ISO/IEC JTC 1/SC 37)", 0x87, b"\x01\x03"),
        ("LDS_C_09", "BHT, missing format owner", "BHT without format owner (87)", 0x87, None),
        ("LDS_C_10", "BHT, not allowed format type", "BHT format type 0008 → 0007 (not a 19794-5 face)", 0x88, b"\x00\x07"),
        ("LDS_C_11", "BHT, missing format type", "BHT without format type (88)", 0x88, None),
        ("LDS_C_12", "BHT, deprecated biometric type", "BHT biometric type 000002 in three bytes (the old CBEFF form)",
         0x81, b"\x00\x00\x02"),
        ("LDS_C_13", "BHT, incorrect biometric type", "BHT biometric type 08 (fingerprint) for the face", 0x81, b"\x08")]:
    add(_id, _title, EITHER, _dev, (lambda t, v: lambda: dg2(jpeg_record(), header=_header(t, v)))(_tag, _value), "DG2")

RECORD_CASES = [
    ("LDS_C_14", "FRH, incorrect format identifier", "facial record header format identifier FAX\\0",
     dict(format_id=b"FAX\x00")),
    ("LDS_C_15", "FRH, incorrect version number", "facial record header version 020\\0", dict(version=b"020\x00")),
    ("LDS_C_16", "FIB, incorrect Facial Record Data Length due to additional feature points",
     "six feature points, facial record data length counting only two", dict(
         points=[(12, 1, 60, 95), (12, 2, 100, 95)] + EXTRA_POINTS, block_length_delta=-32)),
    ("LDS_C_17", "FIB, incorrect gender", "gender 05 (defined: 00, 01, 02, FF)", dict(gender=5)),
    ("LDS_C_18", "FIB, incorrect eye color", "eye colour 09 (defined: 00–07, FF)", dict(eye=9)),
    ("LDS_C_19", "FIB, incorrect hair color", "hair colour 0A (defined: 00–09, FF)", dict(hair=10)),
    ("LDS_C_20", "FIB, incorrect Pose Angle - Yaw", "pose angle yaw 200 (defined: 0–181)", dict(pose=(200, 0, 0))),
    ("LDS_C_21", "FIB, incorrect Pose Angle - Pitch", "pose angle pitch 200 (defined: 0–181)", dict(pose=(0, 200, 0))),
    ("LDS_C_22", "FIB, incorrect Pose Angle - Roll", "pose angle roll 200 (defined: 0–181)", dict(pose=(0, 0, 200))),
    ("LDS_C_23", "FIB, incorrect Pose Angle Uncertainty - Yaw", "pose uncertainty yaw 200 (defined: 0–181)",
     dict(uncertainty=(200, 0, 0))),
    ("LDS_C_24", "FIB, incorrect Pose Angle Uncertainty - Pitch", "pose uncertainty pitch 200 (defined: 0–181)",
     dict(uncertainty=(0, 200, 0))),
    ("LDS_C_25", "FIB, incorrect Pose Angle Uncertainty - Roll", "pose uncertainty roll 200 (defined: 0–181)",
     dict(uncertainty=(0, 0, 200))),
    ("LDS_C_26", "IIB, incorrect face image type", "face image type 05 (defined: 00–03)", dict(face_type=5)),
    ("LDS_C_27", "IIB, incorrect image data type", "image data type 05 for a JPEG (defined: 00 JPEG, 01 JPEG 2000)",
     dict(data_type=5)),
]
for _id, _title, _dev, _kw in RECORD_CASES:
    add(_id, _title, EITHER, "19794-5 record: " + _dev,
        (lambda kw: lambda: dg2(jpeg_record(**kw)))(_kw), "ISO19794-5")

add("LDS_C_28", "Missing facial image (tag 5F2E)", EITHER, "biometric information template without 5F2E",
    lambda: dg2(b"", with_record=False), "DG2")
