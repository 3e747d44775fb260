"""ICAO 9303-10 logical data structure: EF.COM and the data groups (full TLV files as on the chip)."""

from __future__ import annotations

import struct

import der

from .x509 import spki_ec_named, spki_rsa

# ICAO 9303-10 tags
TAG_COM, TAG_DG1, TAG_DG2, TAG_DG11, TAG_DG12, TAG_DG14, TAG_DG15 = 0x60, 0x61, 0x75, 0x6B, 0x6C, 0x6E, 0x6F
DG_TAGS = {1: TAG_DG1, 2: TAG_DG2, 11: TAG_DG11, 12: TAG_DG12, 14: TAG_DG14, 15: TAG_DG15}


def ef_com(lds_version: str, unicode_version: str, dg_tags: list[int]) -> bytes:
    return der.tlv(TAG_COM,
                   der.tlv(0x5F01, lds_version.encode("ascii"))
                   + der.tlv(0x5F36, unicode_version.encode("ascii"))
                   + der.tlv(0x5C, bytes(dg_tags)))


def dg1(mrz_lines: tuple[str, ...]) -> bytes:
    data = "".join(mrz_lines).encode("ascii")
    return der.tlv(TAG_DG1, der.tlv(0x5F1F, data))


# ---------------------------------------------------------------------------
# DG2: biometric information template with an ISO/IEC 19794-5:2005 facial record
# ---------------------------------------------------------------------------

GENDER = {"unspecified": 0, "M": 1, "F": 2, "unknown": 0xFF}
EYE_COLOUR = {"unspecified": 0, "black": 1, "blue": 2, "brown": 3, "grey": 4, "green": 5, "multi": 6, "pink": 7}
HAIR_COLOUR = {"unspecified": 0, "bald": 1, "black": 2, "blonde": 3, "brown": 4, "grey": 5, "white": 6, "red": 7}
EXPRESSION_NEUTRAL = 1
FEATURE_POINT_2D = 1            # MPEG-4 2D feature point
FACE_IMAGE_FULL_FRONTAL = 1
IMAGE_DATA_JPEG = 0
COLOUR_SPACE_RGB24 = 1
SOURCE_STATIC_PHOTO_UNKNOWN = 2
FEATURES_SPECIFIED = 0x000001   # feature mask bit 0: "features are specified"


def facial_record(*, jpeg: bytes, width: int, height: int, gender: str, eye: str, hair: str,
                  feature_points: list[tuple[int, int, int, int]]) -> bytes:
    """ISO/IEC 19794-5:2005 facial record with one facial image.

    feature_points: (major, minor, x, y); the code byte is major<<4 | minor (e.g. 12.1 -> 0xC1).
    """
    points = b"".join(struct.pack(">BBHHH", FEATURE_POINT_2D, (major << 4) | minor, x, y, 0)
                      for major, minor, x, y in feature_points)
    image_info = struct.pack(">BBHHBBHH", FACE_IMAGE_FULL_FRONTAL, IMAGE_DATA_JPEG, width, height,
                             COLOUR_SPACE_RGB24, SOURCE_STATIC_PHOTO_UNKNOWN, 0, 0)
    header_len = 20
    block_len = header_len + len(points) + len(image_info) + len(jpeg)
    facial_info = (struct.pack(">IH", block_len, len(feature_points))
                   + bytes([GENDER[gender], EYE_COLOUR[eye], HAIR_COLOUR[hair]])
                   + FEATURES_SPECIFIED.to_bytes(3, "big")
                   + struct.pack(">H", EXPRESSION_NEUTRAL)
                   + b"\x00\x00\x00"    # pose angles yaw/pitch/roll: unspecified
                   + b"\x00\x00\x00")   # pose angle uncertainty: unspecified
    assert len(facial_info) == header_len
    record_len = 14 + block_len
    general = b"FAC\x00" + b"010\x00" + struct.pack(">IH", record_len, 1)
    record = general + facial_info + points + image_info + jpeg
    assert len(record) == record_len
    return record


def dg2(record: bytes) -> bytes:
    header = der.tlv(0xA1,
                     der.tlv(0x80, b"\x01\x01")      # ICAO header version 1.1
                     + der.tlv(0x81, b"\x02")        # biometric type: facial features
                     + der.tlv(0x87, b"\x01\x01")    # format owner: ISO/IEC JTC 1/SC 37
                     + der.tlv(0x88, b"\x00\x08"))   # format type: 19794-5 face image
    bit = der.tlv(0x7F60, header + der.tlv(0x5F2E, record))
    group = der.tlv(0x7F61, der.integer(1) + bit)     # 02 01 01: one biometric information template
    return der.tlv(TAG_DG2, group)


# ---------------------------------------------------------------------------
# DG11 / DG12
# ---------------------------------------------------------------------------

def _tag_list_dg(tag: int, fields: list[tuple[int, str]]) -> bytes:
    tag_list = b"".join(t.to_bytes(2, "big") for t, _ in fields)
    body = der.tlv(0x5C, tag_list) + b"".join(der.tlv(t, v.encode("utf-8")) for t, v in fields)
    return der.tlv(tag, body)


def dg11(fields: list[tuple[int, str]]) -> bytes:
    return _tag_list_dg(TAG_DG11, fields)


def dg12(fields: list[tuple[int, str]]) -> bytes:
    return _tag_list_dg(TAG_DG12, fields)


# ---------------------------------------------------------------------------
# DG14 / DG15
# ---------------------------------------------------------------------------

ID_CA_ECDH_AES_CBC_CMAC_128 = "0.4.0.127.0.7.2.2.3.2.2"
ID_PK_ECDH = "0.4.0.127.0.7.2.2.1.2"


def dg14(ca_public_key, curve: str) -> bytes:
    """SecurityInfos (BSI TR-03110-3 / ICAO 9303-11 9.2) with ChipAuthenticationInfo and its public key."""
    ca_info = der.sequence(der.oid(ID_CA_ECDH_AES_CBC_CMAC_128), der.integer(1))   # keyId omitted
    ca_pk_info = der.sequence(der.oid(ID_PK_ECDH), spki_ec_named(ca_public_key, curve))
    return der.tlv(TAG_DG14, der.set_of(ca_info, ca_pk_info))


def dg15(aa_public_key) -> bytes:
    return der.tlv(TAG_DG15, spki_rsa(aa_public_key))
