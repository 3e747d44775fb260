"""DG3 (fingerprints) and DG4 (iris) of the TEST-ONLY EAC passport: synthetic images drawn with PIL
(ridge and iris patterns from fixed seeds, no real person), their ISO/IEC 19794 records and the ICAO
9303-10 biometric templates around them.

Byte layouts used (every integer big-endian)
============================================

DG3 / DG4 (ICAO 9303-10, "Data Group 3/4", biometric information group template):

    63|76 L { 7F61 L { 02 01 n,                       number of biometric information templates
                       7F60 L { A1 L { 80 02 0101,     ICAO header version 1.1
                                       81 01 type,     biometric type (CBEFF): 08 finger, 10 iris
                                       [82 01 sub,]    biometric subtype (CBEFF), see below
                                       87 02 0101,     format owner: ISO/IEC JTC 1/SC 37
                                       88 02 fmt },    format type: 0007 finger image (19794-4),
                                                       0009 iris image (19794-6)
                                5F2E L <record> }       biometric data block
                       ... one 7F60 per record } }

  CBEFF subtypes (finger): bit 0x01 right, 0x02 left; finger 0x04 thumb, 0x08 index ("pointer"),
  0x0C middle, 0x10 ring, 0x14 little: right index 0x09, left index 0x0A, right thumb 0x05. The
  DG4 template holds both eyes in one record, so it has no DO'82' (optional in 9303-10). These are
  the values of the BSI TR-03105-5 reference data set's DG3 (A1 {81 08, 82 09, 87 0101, 88 0007})
  and DG4 (A1 {80 0101, 81 10, 82 01, 87 0101, 88 0009}).

ISO/IEC 19794-4:2005 finger image record (one per DG3 template, because the compression algorithm
is a field of the general header and the records use different ones):

  General record header, 32 bytes:
    "FIR\\0"                      format identifier
    "010\\0"                      version
    record length               6 bytes (header + all finger records)
    capture device ID           2 bytes, 0000 (not given)
    image acquisition level     2 bytes, 001F = 31 (500 ppi setting)
    number of fingers           1 byte, 01
    scale units                 1 byte, 01 = pixels per inch
    scan resolution h, v        2 + 2 bytes, 01F4 = 500
    image resolution h, v       2 + 2 bytes, 01F4 = 500
    pixel depth                 1 byte, 08 (256 grey levels)
    image compression algorithm 1 byte: 00 uncompressed, 01 bit-packed, 02 WSQ, 03 JPEG,
                                04 JPEG 2000, 05 PNG
    reserved                    2 bytes, 0000
  Finger image record header, 14 bytes:
    length of the finger record 4 bytes (this header + image data)
    finger position             1 byte: 01 right thumb, 02 right index, 07 left index ...
    count of views              1 byte, 01
    view number                 1 byte, 01
    finger image quality        1 byte, 0-100
    impression type             1 byte, 00 live-scan plain
    horizontal line length      2 bytes (image width in pixels)
    vertical line length        2 bytes (image height in pixels)
    reserved                    1 byte, 00
  Image data                    the compressed image (PNG file, JPEG file, WSQ file)

ISO/IEC 19794-6:2005 iris image record (rectilinear images; one record, both eyes):

  General header, 45 bytes:
    "IIR\\0"                      format identifier
    "010\\0"                      version
    record length               4 bytes (whole record)
    capture device ID           2 bytes, 0000
    number of biometric subtypes 1 byte, 02 (right and left eye)
    record header length        2 bytes, 002D = 45
    image property bit field    2 bytes: horizontal orientation bits 0-1 (01 base), vertical
                                orientation bits 2-3 (01 base), scan type bits 4-5 (01
                                progressive), iris occlusion bit 6 (0), occlusion filling bit 7 (0),
                                boundary extraction bit 8 (0): 0x0015
    iris diameter               2 bytes, in pixels
    image format                2 bytes: 0002 mono raw, 0004 RGB raw, 0006 mono JPEG, 0008 RGB
                                JPEG, 000A mono JPEG-LS, 000C RGB JPEG-LS, 000E mono JPEG 2000,
                                0010 RGB JPEG 2000 (used: 000E)
    image width, height         2 + 2 bytes (640, 480)
    intensity depth             1 byte, 08
    image transformation        1 byte, 00 (undefined, not to be transformed)
    device unique identifier    16 bytes, zero (not given)
    global unique identifier    absent in the 2005 header (the 16 bytes above end it at 45)
  For each eye, a subtype header of 3 bytes:
    biometric subtype           1 byte: 01 right eye, 02 left eye
    number of images            2 bytes, 0001
  then for each image an image header of 11 bytes:
    image number                2 bytes (1, 2 ...)
    image quality               1 byte, 0-100
    rotation angle              2 bytes, FFFF = undefined
    rotation angle uncertainty  2 bytes, FFFF = undefined
    image length                4 bytes
  and the image data (a JPEG 2000 codestream in a JP2 file here).
  (The BSI TR-03105-5 DG4 follows the same layout: 45-byte header, 3-byte subtype header, 11-byte
  image header.)
"""

from __future__ import annotations

import io
import math
import random
import struct

from PIL import Image, ImageFilter

import der

TAG_DG3, TAG_DG4 = 0x63, 0x76

# ---------------------------------------------------------------------------
# 19794-4 finger images
# ---------------------------------------------------------------------------

FINGER_COMPRESSION = {"uncompressed": 0, "bit-packed": 1, "WSQ": 2, "JPEG": 3, "JPEG2000": 4, "PNG": 5}
FINGER_POSITIONS = {1: "right thumb", 2: "right index", 3: "right middle", 4: "right ring",
                    5: "right little", 6: "left thumb", 7: "left index", 8: "left middle",
                    9: "left ring", 10: "left little"}
# CBEFF biometric subtype of a finger position (bit 0x01 right / 0x02 left, finger << 2)
FINGER_SUBTYPE = {p: (0x01 if p <= 5 else 0x02) | (((p - 1) % 5 + 1) << 2) for p in range(1, 11)}
FINGER_PPI = 500
FINGER_WIDTH, FINGER_HEIGHT = 300, 400       # 0.6 x 0.8 inch at 500 ppi
IMPRESSION_LIVE_SCAN_PLAIN = 0
CBEFF_FINGER, CBEFF_IRIS = 0x08, 0x10
FORMAT_OWNER_SC37 = 0x0101
FORMAT_FINGER_IMAGE, FORMAT_IRIS_IMAGE = 0x0007, 0x0009


def fingerprint(seed: int, width: int = FINGER_WIDTH, height: int = FINGER_HEIGHT) -> Image.Image:
    """A grey fingerprint-like image: ridges of a loop pattern around a core and a delta, inside an
    elliptical fingertip, dark ridges on white (as scanners deliver them)."""
    rng = random.Random(seed)
    cx, cy = width * rng.uniform(0.45, 0.55), height * rng.uniform(0.38, 0.46)       # core
    dx, dy = width * rng.uniform(0.2, 0.3), height * rng.uniform(0.72, 0.8)         # delta
    period = rng.uniform(8.5, 9.5)           # ridge period in pixels (about 0.45 mm at 500 ppi)
    waves = [(rng.uniform(0.01, 0.03), rng.uniform(0.01, 0.03), rng.uniform(0, 2 * math.pi),
              rng.uniform(1.5, 3.0)) for _ in range(4)]
    ax, ay = width * 0.46, height * 0.49     # fingertip ellipse
    ex, ey = width / 2, height * 0.52
    img = Image.new("L", (width, height), 255)
    px = img.load()
    for y in range(height):
        for x in range(width):
            # elliptic distance to the core (rounder rings at the top, flatter at the bottom)
            sx = (x - cx) / 1.0
            sy = (y - cy) / (1.25 if y < cy else 0.9)
            r = math.hypot(sx, sy)
            # the delta bends the ridges: add a term that winds around it
            theta_d = math.atan2(y - dy, x - dx)
            phase = r / period * 2 * math.pi + 0.9 * theta_d
            for fx, fy, ph, amp in waves:
                phase += amp * math.sin(fx * x + fy * y + ph)
            v = 0.5 + 0.5 * math.cos(phase)
            # fingertip outline with a soft edge
            e = ((x - ex) / ax) ** 2 + ((y - ey) / ay) ** 2
            fade = 1.0 if e < 0.8 else max(0.0, (1.0 - e) / 0.2)
            px[x, y] = int(round(255 - 200 * v * fade))
    return img.filter(ImageFilter.GaussianBlur(0.7))


def encode_finger(image: Image.Image, compression: str, wsq_encoder=None) -> bytes:
    out = io.BytesIO()
    if compression == "PNG":
        # 16 grey levels (still 8 bits a pixel) keep the lossless PNG near the size of the others
        # (about 21 KB instead of 63 KB), so DG3 stays below 64 KB.
        image = image.point(lambda v: min(255, (v // 16) * 16 + 8))
        image.save(out, "PNG", optimize=True, dpi=(FINGER_PPI, FINGER_PPI))
    elif compression == "JPEG":
        image.save(out, "JPEG", quality=80, dpi=(FINGER_PPI, FINGER_PPI))
    elif compression == "JPEG2000":
        image.save(out, "JPEG2000", quality_mode="rates", quality_layers=[12], irreversible=True)
    elif compression == "WSQ":
        if wsq_encoder is None:
            raise ValueError("no WSQ encoder")
        return wsq_encoder(image)
    else:
        raise ValueError(compression)
    return out.getvalue()


def finger_record(*, position: int, compression: str, image_data: bytes, width: int, height: int,
                  quality: int) -> bytes:
    """ISO/IEC 19794-4:2005 finger image record with one finger (see the module comment)."""
    finger = struct.pack(">IBBBBBHHB", 14 + len(image_data), position, 1, 1, quality,
                         IMPRESSION_LIVE_SCAN_PLAIN, width, height, 0) + image_data
    total = 32 + len(finger)
    general = (b"FIR\x00" + b"010\x00" + total.to_bytes(6, "big")
               + struct.pack(">HHBBHHHHBBH", 0, 31, 1, 1, FINGER_PPI, FINGER_PPI, FINGER_PPI, FINGER_PPI,
                             8, FINGER_COMPRESSION[compression], 0))
    assert len(general) == 32
    return general + finger


def parse_finger_record(record: bytes) -> dict:
    assert record[:8] == b"FIR\x00010\x00", record[:8]
    total = int.from_bytes(record[8:14], "big")
    (_, level, count, units, sh, sv, ih, iv, depth, compression, _) = struct.unpack(">HHBBHHHHBBH", record[14:32])
    length, position, views, view, quality, impression, w, h, _ = struct.unpack(">IBBBBBHHB", record[32:46])
    return dict(total=total, level=level, count=count, units=units, resolution=(sh, sv, ih, iv), depth=depth,
                compression=compression, length=length, position=position, views=views, view=view,
                quality=quality, impression=impression, width=w, height=h, image=record[46:32 + length])


# ---------------------------------------------------------------------------
# 19794-6 iris images
# ---------------------------------------------------------------------------

IRIS_WIDTH, IRIS_HEIGHT = 640, 480
IRIS_FORMAT_MONO_JPEG2000 = 0x000E
IRIS_PROPERTIES = 0x0015        # base orientation horizontally and vertically, progressive scan
IRIS_RIGHT, IRIS_LEFT = 1, 2


def iris(seed: int, width: int = IRIS_WIDTH, height: int = IRIS_HEIGHT) -> tuple[Image.Image, int]:
    """A grey eye-like image (near infrared look): skin, sclera, an iris with radial fibres and
    crypts, a dark pupil with a specular highlight, eyelids. Returns (image, iris diameter)."""
    rng = random.Random(seed)
    cx, cy = width / 2 + rng.uniform(-12, 12), height / 2 + rng.uniform(-8, 8)
    r_iris = rng.uniform(108, 118)
    r_pupil = r_iris * rng.uniform(0.33, 0.4)
    fibres = [(rng.randint(20, 90), rng.uniform(0, 2 * math.pi), rng.uniform(6, 16)) for _ in range(7)]
    rings = [(rng.uniform(0.08, 0.2), rng.uniform(0, 2 * math.pi), rng.uniform(4, 10)) for _ in range(3)]
    crypts = [(rng.uniform(0, 2 * math.pi), rng.uniform(0.45, 0.85), rng.uniform(5, 11)) for _ in range(9)]
    eye_a, eye_b = width * 0.36, height * 0.30       # opening between the eyelids
    img = Image.new("L", (width, height))
    px = img.load()
    for y in range(height):
        for x in range(width):
            ddx, ddy = x - cx, y - cy
            r = math.hypot(ddx, ddy)
            # inside the eyelids' opening: an almond shape
            t = (x - width / 2) / eye_a
            lid = eye_b * max(0.0, 1.0 - t * t) ** 0.8
            inside = abs(y - height / 2 - (8 if y > height / 2 else 0)) < lid
            if not inside:
                v = 150 + 18 * math.sin(0.035 * x + 0.02 * y) + 10 * math.sin(0.11 * y)
            elif r <= r_pupil:
                v = 18
                if math.hypot(ddx + r_pupil * 0.35, ddy + r_pupil * 0.35) < 6:
                    v = 250                                  # illuminator reflection
            elif r <= r_iris:
                a = math.atan2(ddy, ddx)
                u = (r - r_pupil) / (r_iris - r_pupil)       # 0 at the pupil, 1 at the limbus
                v = 95 + 25 * u
                for k, ph, amp in fibres:
                    v += amp * math.sin(k * a + ph + 3 * u)
                for f, ph, amp in rings:
                    v += amp * math.sin(2 * math.pi * u / f + ph)
                for ca, cu, size in crypts:
                    dd = math.hypot((a - ca) * r, (u - cu) * (r_iris - r_pupil))
                    if dd < size:
                        v -= 35 * (1 - dd / size)
                if u < 0.12:
                    v += 30 * (1 - u / 0.12)                 # collarette near the pupil
                if u > 0.92:
                    v -= 40 * (u - 0.92) / 0.08              # dark limbus
            else:
                v = 205 - 20 * (r - r_iris) / width          # sclera
            px[x, y] = max(0, min(255, int(v)))
    return img.filter(ImageFilter.GaussianBlur(0.8)), int(round(2 * r_iris))


def encode_iris(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.save(out, "JPEG2000", quality_mode="rates", quality_layers=[40], irreversible=True)
    return out.getvalue()


def iris_record(eyes: list[tuple[int, int, bytes]], *, diameter: int, width: int, height: int) -> bytes:
    """ISO/IEC 19794-6:2005 record (see the module comment). eyes: (subtype, quality, JP2 data)."""
    body = b""
    for subtype, quality, data in eyes:
        body += struct.pack(">BH", subtype, 1)
        body += struct.pack(">HBHHI", 1, quality, 0xFFFF, 0xFFFF, len(data)) + data
    total = 45 + len(body)
    general = (b"IIR\x00" + b"010\x00" + struct.pack(">IHBHHHHHHBB", total, 0, len(eyes), 45, IRIS_PROPERTIES,
                                                      diameter, IRIS_FORMAT_MONO_JPEG2000, width, height, 8, 0)
               + bytes(16))
    assert len(general) == 45
    return general + body


def parse_iris_record(record: bytes) -> dict:
    assert record[:8] == b"IIR\x00010\x00", record[:8]
    (total, _, subtypes, header_len, props, diameter, fmt, w, h, depth, transform) = struct.unpack(
        ">IHBHHHHHHBB", record[8:29])
    out = dict(total=total, subtypes=subtypes, headerLength=header_len, properties=props, diameter=diameter,
               format=fmt, width=w, height=h, depth=depth, transformation=transform, eyes=[])
    i = header_len
    for _ in range(subtypes):
        subtype, count = struct.unpack(">BH", record[i:i + 3])
        i += 3
        for _ in range(count):
            number, quality, rot, unc, length = struct.unpack(">HBHHI", record[i:i + 11])
            i += 11
            out["eyes"].append(dict(subtype=subtype, number=number, quality=quality, rotation=rot,
                                    uncertainty=unc, offset=i, image=record[i:i + length]))
            i += length
    out["end"] = i
    return out


# ---------------------------------------------------------------------------
# ICAO 9303-10 templates
# ---------------------------------------------------------------------------

def biometric_template(*, cbeff_type: int, subtype: int | None, format_type: int, record: bytes) -> bytes:
    header = der.tlv(0x80, b"\x01\x01") + der.tlv(0x81, bytes([cbeff_type]))
    if subtype is not None:
        header += der.tlv(0x82, bytes([subtype]))
    header += der.tlv(0x87, FORMAT_OWNER_SC37.to_bytes(2, "big")) + der.tlv(0x88, format_type.to_bytes(2, "big"))
    return der.tlv(0x7F60, der.tlv(0xA1, header) + der.tlv(0x5F2E, record))


def data_group(tag: int, templates: list[bytes]) -> bytes:
    return der.tlv(tag, der.tlv(0x7F61, der.integer(len(templates)) + b"".join(templates)))


def dg3(records: list[tuple[int, bytes]]) -> bytes:
    """records: (finger position, 19794-4 record)."""
    return data_group(TAG_DG3, [biometric_template(cbeff_type=CBEFF_FINGER, subtype=FINGER_SUBTYPE[pos],
                                                   format_type=FORMAT_FINGER_IMAGE, record=rec)
                                for pos, rec in records])


def dg4(record: bytes) -> bytes:
    return data_group(TAG_DG4, [biometric_template(cbeff_type=CBEFF_IRIS, subtype=None,
                                                   format_type=FORMAT_IRIS_IMAGE, record=record)])


def templates(dg: bytes) -> list[tuple[dict, bytes, int]]:
    """[(header DOs {tag: value}, record, offset of the record in dg)] of a DG3/DG4 file."""
    outer = der.parse_one(dg)
    group = outer.children()[0]
    out = []
    base = len(dg) - len(outer.value) + (len(group.raw) - len(group.value))
    pos = base
    for kid in group.children():
        if kid.tag == b"\x7f\x60":
            bht, bdb = kid.children()
            header = {c.tag_int: c.value for c in bht.children()}
            record_offset = pos + (len(kid.raw) - len(kid.value)) + len(bht.raw) + (len(bdb.raw) - len(bdb.value))
            out.append((header, bdb.value, record_offset))
        pos += len(kid.raw)
    return out
