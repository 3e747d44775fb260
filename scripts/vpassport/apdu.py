"""Strict ISO/IEC 7816-4 command APDU decoding and a minimal BER-TLV codec.

The library's C_APDU guesses between short and extended encodings; a chip must
know exactly which one it received (response sizing and --no-extended-length
depend on it), so the four cases are decoded here by their exact lengths.
"""


class ChipError(Exception):
    """A status word to answer with (no response data)."""

    def __init__(self, sw, why=""):
        super().__init__("%04X %s" % (sw, why))
        self.sw = sw
        self.why = why


class Command:
    def __init__(self, cla, ins, p1, p2, data=b"", ne=None, extended=False):
        self.cla, self.ins, self.p1, self.p2 = cla, ins, p1, p2
        self.data = data
        self.ne = ne              # expected response length; None = no Le field
        self.extended = extended  # True when Lc/Le used the 3/2-byte forms

    def __repr__(self):
        return "%02X %02X %02X %02X Lc=%d Ne=%s%s" % (
            self.cla, self.ins, self.p1, self.p2, len(self.data), self.ne,
            " ext" if self.extended else "")


def parse_command(raw):
    """Decode cases 1, 2S, 3S, 4S, 2E, 3E, 4E; anything else is 6700."""
    n = len(raw)
    if n < 4:
        raise ChipError(0x6700, "APDU shorter than a header")
    cla, ins, p1, p2 = raw[:4]
    body = raw[4:]
    if not body:                                          # case 1
        return Command(cla, ins, p1, p2)
    if len(body) == 1:                                    # case 2S, Le 00 = 256
        return Command(cla, ins, p1, p2, ne=body[0] or 256)
    if body[0] != 0:                                      # short Lc
        lc = body[0]
        if len(body) == 1 + lc:                           # case 3S
            return Command(cla, ins, p1, p2, body[1:])
        if len(body) == 2 + lc:                           # case 4S
            return Command(cla, ins, p1, p2, body[1:-1], body[-1] or 256)
        raise ChipError(0x6700, "short Lc does not match the length")
    if len(body) == 3:                                    # case 2E, 0000 = 65536
        return Command(cla, ins, p1, p2, ne=int.from_bytes(body[1:], "big") or 65536,
                       extended=True)
    lc = int.from_bytes(body[1:3], "big")
    if lc and len(body) == 3 + lc:                        # case 3E
        return Command(cla, ins, p1, p2, body[3:], extended=True)
    if lc and len(body) == 5 + lc:                        # case 4E
        return Command(cla, ins, p1, p2, body[3:-2],
                       int.from_bytes(body[-2:], "big") or 65536, True)
    raise ChipError(0x6700, "extended Lc does not match the length")


def encode_length(n):
    if n < 0x80:
        return bytes([n])
    if n < 0x100:
        return bytes([0x81, n])
    if n < 0x10000:
        return bytes([0x82, n >> 8, n & 0xFF])
    return bytes([0x83, n >> 16, (n >> 8) & 0xFF, n & 0xFF])


def tlv(tag, value):
    """Encode one TLV; tag is an int of one or two bytes."""
    t = tag.to_bytes(2 if tag > 0xFF else 1, "big")
    return t + encode_length(len(value)) + value


def tlv_size(tag, n):
    """Size of tlv(tag, <n bytes>) without building it."""
    return (2 if tag > 0xFF else 1) + len(encode_length(n)) + n


def parse_tlvs(data):
    """Split concatenated BER-TLVs into [(tag, value, raw_bytes)].

    Raises ValueError on truncation or unsupported length forms.
    """
    out, i = [], 0
    while i < len(data):
        start = i
        tag = data[i]
        i += 1
        if tag & 0x1F == 0x1F:                 # multi-byte tag
            while True:
                if i >= len(data):
                    raise ValueError("truncated tag")
                tag = (tag << 8) | data[i]
                i += 1
                if not data[i - 1] & 0x80:
                    break
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
        if i + length > len(data):
            raise ValueError("value runs past the end")
        out.append((tag, data[i:i + length], data[start:i + length]))
        i += length
    return out


def find_tlv(data, *path):
    """Value reached by following tags in nested TLVs, or None."""
    for tag in path:
        for t, value, _ in parse_tlvs(data):
            if t == tag:
                data = value
                break
        else:
            return None
    return data
