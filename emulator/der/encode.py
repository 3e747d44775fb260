"""DER encoding: definite lengths, low- and high-tag-number forms, and the universal
types used by X.509, CMS and the ICAO LDS. Everything is built from explicit bytes,
so a structure is exactly what the caller asks for."""

from __future__ import annotations

import datetime as _dt

from .oid import oid_body


def length(n: int) -> bytes:
    """DER definite length octets."""
    if n < 0:
        raise ValueError("negative length")
    if n < 0x80:
        return bytes([n])
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(body)]) + body


def tlv(tag: int | bytes, value: bytes) -> bytes:
    """Tag (an int giving the full tag bytes, e.g. 0x5F1F or 0x7F61, or raw bytes) + length + value."""
    if isinstance(tag, int):
        tag = tag_bytes(tag)
    return bytes(tag) + length(len(value)) + bytes(value)


def tag_bytes(tag: int) -> bytes:
    """The tag octets of an int tag (0x61 -> 61, 0x5F1F -> 5F 1F)."""
    return tag.to_bytes(max(1, (tag.bit_length() + 7) // 8), "big")


def tlv_size(tag: int, n: int) -> int:
    """Size of tlv(tag, <n bytes>) without building it (the chip sizes responses by it)."""
    return len(tag_bytes(tag)) + len(length(n)) + n


def integer(n: int) -> bytes:
    if n == 0:
        body = b"\x00"
    elif n > 0:
        body = n.to_bytes(n.bit_length() // 8 + 1, "big")  # leaves a leading 00 when the top bit is set
    else:
        body = n.to_bytes((n + 1).bit_length() // 8 + 1, "big", signed=True)
    # strip redundant leading bytes (DER minimal encoding)
    while len(body) > 1 and (
        (body[0] == 0x00 and body[1] < 0x80) or (body[0] == 0xFF and body[1] >= 0x80)
    ):
        body = body[1:]
    return tlv(0x02, body)


def enumerated(n: int) -> bytes:
    return b"\x0a" + integer(n)[1:]


def boolean(v: bool) -> bytes:
    return tlv(0x01, b"\xff" if v else b"\x00")


def null() -> bytes:
    return b"\x05\x00"


def octet_string(b: bytes) -> bytes:
    return tlv(0x04, b)


def bit_string(b: bytes, unused_bits: int = 0) -> bytes:
    return tlv(0x03, bytes([unused_bits]) + b)


def named_bits(bits: list[int]) -> bytes:
    """BIT STRING for a NamedBitList (e.g. KeyUsage): trailing zero bits removed as DER requires."""
    if not bits:
        return bit_string(b"", 0)
    top = max(bits)
    nbytes = top // 8 + 1
    buf = bytearray(nbytes)
    for bit in bits:
        buf[bit // 8] |= 0x80 >> (bit % 8)
    unused = 7 - (top % 8)
    return bit_string(bytes(buf), unused)


def oid(dotted: str) -> bytes:
    return tlv(0x06, oid_body(dotted))


def utf8(s: str) -> bytes:
    return tlv(0x0C, s.encode("utf-8"))


PRINTABLE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 '()+,-./:=?")


def printable(s: str) -> bytes:
    bad = set(s) - PRINTABLE
    if bad:
        raise ValueError(f"not a PrintableString: {s!r}")
    return tlv(0x13, s.encode("ascii"))


def utc_time(t: _dt.datetime) -> bytes:
    if not (1950 <= t.year < 2050):
        raise ValueError("UTCTime covers 1950-2049 only")
    return tlv(0x17, t.strftime("%y%m%d%H%M%SZ").encode("ascii"))


def generalized_time(t: _dt.datetime) -> bytes:
    return tlv(0x18, t.strftime("%Y%m%d%H%M%SZ").encode("ascii"))


def time(t: _dt.datetime) -> bytes:
    """RFC 5280 Time: UTCTime through 2049, GeneralizedTime from 2050."""
    return utc_time(t) if t.year < 2050 else generalized_time(t)


def sequence(*items: bytes) -> bytes:
    return tlv(0x30, b"".join(items))


def _der_set_key(enc: bytes, width: int) -> bytes:
    # X.690 11.6: SET OF components in ascending order of their encodings,
    # shorter ones compared as if padded at the end with zero octets.
    return enc + b"\x00" * (width - len(enc))


def set_of(*items: bytes) -> bytes:
    width = max((len(i) for i in items), default=0)
    return tlv(0x31, b"".join(sorted(items, key=lambda e: _der_set_key(e, width))))


def explicit(n: int, inner: bytes) -> bytes:
    """[n] EXPLICIT (context-specific, constructed)."""
    return tlv(_context_tag(n, constructed=True), inner)


def implicit_constructed(n: int, content: bytes) -> bytes:
    """[n] IMPLICIT over a constructed type: content is the inner value octets."""
    return tlv(_context_tag(n, constructed=True), content)


def implicit_primitive(n: int, content: bytes) -> bytes:
    return tlv(_context_tag(n, constructed=False), content)


def _context_tag(n: int, constructed: bool) -> bytes:
    base = 0x80 | (0x20 if constructed else 0)
    if n < 31:
        return bytes([base | n])
    raise ValueError("high context tags not needed here")
