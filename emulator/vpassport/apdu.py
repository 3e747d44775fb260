"""Strict ISO/IEC 7816-4 command APDU decoding (data objects: the shared `der` package).

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
