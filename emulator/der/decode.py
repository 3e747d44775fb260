"""DER/BER-TLV decoding: one strict TLV splitter, with two views on top of it.

parse_tlvs gives [(int tag, value, raw)] tuples (what the chip works with);
Node gives a tree with raw tag bytes and offsets (what the fixture checks walk).
Definite lengths of up to three length octets only: nothing here is larger.
"""

from __future__ import annotations

from .encode import tag_bytes
from .oid import oid_text


def parse_tlvs(data: bytes) -> list[tuple[int, bytes, bytes]]:
    """Split concatenated BER-TLVs into [(tag, value, raw_bytes)].

    Raises ValueError on truncation or unsupported length forms.
    """
    out, i = [], 0
    while i < len(data):
        start = i
        tag, i = _tag(data, i)
        length, i = _length(data, i)
        if i + length > len(data):
            raise ValueError("value runs past the end")
        out.append((tag, data[i:i + length], data[start:i + length]))
        i += length
    return out


def _tag(data: bytes, i: int) -> tuple[int, int]:
    """(tag as an int, next index); low 5 bits all set = more tag octets follow."""
    tag = data[i]
    i += 1
    if tag & 0x1F == 0x1F:
        while True:
            if i >= len(data):
                raise ValueError("truncated tag")
            tag = (tag << 8) | data[i]
            i += 1
            if not data[i - 1] & 0x80:
                break
    return tag, i


def _length(data: bytes, i: int) -> tuple[int, int]:
    """(length, next index) of the length octets at data[i]."""
    if i >= len(data):
        raise ValueError("missing length")
    length = data[i]
    i += 1
    if length & 0x80:
        count = length & 0x7F
        if count == 0 or count > 3 or i + count > len(data):
            raise ValueError("unsupported length form")
        length = int.from_bytes(data[i:i + count], "big")
        i += count
    return length, i


def find_tlv(data: bytes, *path: int) -> bytes | None:
    """Value reached by following tags in nested TLVs, or None."""
    for tag in path:
        for t, value, _ in parse_tlvs(data):
            if t == tag:
                data = value
                break
        else:
            return None
    return data


def integer_value(content: bytes) -> int:
    """The value of INTEGER content octets (two's complement)."""
    return int.from_bytes(content, "big", signed=True)


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
        return integer_value(self.value)

    def as_oid(self) -> str:
        return oid_text(self.value)

    def __repr__(self) -> str:
        return f"Node(tag={self.tag.hex()}, len={len(self.value)})"


def parse_one(data: bytes) -> Node:
    """The single TLV that is all of data."""
    nodes = parse_all(data)
    if len(nodes) != 1:
        raise ValueError(f"expected one TLV, found {len(nodes)}")
    return nodes[0]


def parse_all(data: bytes, base: int = 0) -> list[Node]:
    """Every TLV of data; offsets count from base (the position of data in its file)."""
    out, off = [], 0
    for tag, value, raw in parse_tlvs(data):
        out.append(Node(tag_bytes(tag), value, raw, base + off, len(raw) - len(value)))
        off += len(raw)
    return out
