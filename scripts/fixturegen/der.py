"""A tiny DER encoder (and a minimal decoder) written for the fixture generator.

Only what the fixtures need: definite lengths, low- and high-tag-number forms,
and the universal types used by X.509, CMS and the ICAO LDS. Everything is
built from explicit bytes so the resulting structures are exactly what the
generator asks for.
"""

from __future__ import annotations

import datetime as _dt

# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------


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
        tag = tag.to_bytes(max(1, (tag.bit_length() + 7) // 8), "big")
    return bytes(tag) + length(len(value)) + bytes(value)


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
    arcs = [int(a) for a in dotted.split(".")]
    if len(arcs) < 2:
        raise ValueError(dotted)
    first = arcs[0] * 40 + arcs[1]
    out = bytearray()
    for arc in [first] + arcs[2:]:
        chunk = [arc & 0x7F]
        arc >>= 7
        while arc:
            chunk.append(0x80 | (arc & 0x7F))
            arc >>= 7
        out += bytes(reversed(chunk))
    return tlv(0x06, bytes(out))


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


# ---------------------------------------------------------------------------
# Decoding (minimal: enough to read back what we wrote and to check fixtures)
# ---------------------------------------------------------------------------


class Node:
    """One decoded TLV: raw tag bytes, value, and the whole encoding."""

    __slots__ = ("tag", "value", "raw", "offset", "header_len")

    def __init__(self, tag: bytes, value: bytes, raw: bytes, offset: int, header_len: int):
        self.tag = tag
        self.value = value
        self.raw = raw
        self.offset = offset
        self.header_len = header_len

    @property
    def constructed(self) -> bool:
        return bool(self.tag[0] & 0x20)

    @property
    def tag_int(self) -> int:
        return int.from_bytes(self.tag, "big")

    def children(self) -> list["Node"]:
        return parse_all(self.value, self.offset + self.header_len)

    def __getitem__(self, i: int) -> "Node":
        return self.children()[i]

    def as_int(self) -> int:
        return int.from_bytes(self.value, "big", signed=True)

    def as_oid(self) -> str:
        arcs, cur = [], 0
        for b in self.value:
            cur = (cur << 7) | (b & 0x7F)
            if not b & 0x80:
                arcs.append(cur)
                cur = 0
        first = arcs[0]
        head = [min(first // 40, 2), first - 40 * min(first // 40, 2)]
        return ".".join(str(a) for a in head + arcs[1:])

    def __repr__(self) -> str:
        return f"Node(tag={self.tag.hex()}, len={len(self.value)})"


def parse(data: bytes, offset: int = 0) -> tuple[Node, int]:
    """Decode one TLV at data[offset:]; returns (node, next offset)."""
    start = offset
    first = data[offset]
    offset += 1
    if first & 0x1F == 0x1F:
        while data[offset] & 0x80:
            offset += 1
        offset += 1
    tag = data[start:offset]
    lb = data[offset]
    offset += 1
    if lb < 0x80:
        n = lb
    elif lb == 0x80:
        raise ValueError("indefinite length not supported")
    else:
        k = lb & 0x7F
        n = int.from_bytes(data[offset:offset + k], "big")
        offset += k
    header_len = offset - start
    end = offset + n
    if end > len(data):
        raise ValueError(f"TLV at {start} overruns the buffer ({end} > {len(data)})")
    return Node(tag, data[offset:end], data[start:end], start, header_len), end


def parse_one(data: bytes) -> Node:
    node, end = parse(data, 0)
    if end != len(data):
        raise ValueError(f"{len(data) - end} trailing bytes after the TLV")
    return node


def parse_all(data: bytes, base: int = 0) -> list[Node]:
    out, off = [], 0
    while off < len(data):
        node, nxt = parse(data, off)
        node.offset += base
        out.append(node)
        off = nxt
    return out
