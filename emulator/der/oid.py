"""OBJECT IDENTIFIER content octets (X.690 8.19) to and from dotted text."""


def oid_body(dotted: str) -> bytes:
    """Content octets of an OID ("2.23.136.1.1.5" -> 67 81 08 01 01 05), no tag or length."""
    arcs = [int(a) for a in dotted.split(".")]
    if len(arcs) < 2:
        raise ValueError(dotted)
    out = bytearray()
    for arc in [arcs[0] * 40 + arcs[1]] + arcs[2:]:
        out += _base128(arc)
    return bytes(out)


def _base128(arc: int) -> bytes:
    # big-endian 7-bit groups, bit 8 set on all but the last
    chunk = [arc & 0x7F]
    arc >>= 7
    while arc:
        chunk.append(0x80 | (arc & 0x7F))
        arc >>= 7
    return bytes(reversed(chunk))


def oid_text(body: bytes) -> str:
    """Dotted text of OID content octets; the first subidentifier holds two arcs."""
    arcs, cur = [], 0
    for b in body:
        cur = (cur << 7) | (b & 0x7F)
        if not b & 0x80:
            arcs.append(cur)
            cur = 0
    first = min(arcs[0] // 40, 2)
    return ".".join(str(a) for a in [first, arcs[0] - 40 * first] + arcs[1:])
