"""Field behaviours of real chips (--quirk NAME[:ARG], repeatable).

Each quirk reproduces one behaviour reported for real passports or allowed by
the standards, that a reader written against a well-behaved chip trips on.
README.md next to this file lists them with their sources. This module parses
the option and answers "is this quirk on, with which argument"; chip.py applies
them at the points named in each docstring line below.

  indefinite-length[:FILE]  FILE (default EF.SOD) served with its outer TLV in
                            indefinite form: tag 80 ... 00 00
  sfi-refused[:SW]          READ BINARY with a short EF identifier answered SW
                            (default 6985 "no current EF"; 6986 also seen)
  sticky-auth               after a failed protocol or an ended session, GET
                            CHALLENGE and MSE:Set AT answer 6982 until reset
  runtime-6700              the ATR claims extended length, but the card runtime
                            answers every extended-length APDU with a plain 6700
                            before the application sees it (SSC untouched)
  read-cap:N                READ BINARY asking for more than N bytes: 6700
  short-answers[:N]         READ BINARY answers fewer bytes than asked, with
                            9000: half of them, or at most N
  aa-get-response           INTERNAL AUTHENTICATE answered 61xx; the protected
                            response comes with plain GET RESPONSEs
  aa-le                     INTERNAL AUTHENTICATE with Le 0000 (or an extended
                            APDU) answered 9000 without data; Le 00 works
  no-card-access[:SW]       EF.CardAccess absent (6A82, default) or refused (SW)
  com-unknown-tags          EF.COM lists data groups the chip does not hold and
                            a tag no data group has
  mutual-auth-error:SW      MUTUAL AUTHENTICATE answered SW (e.g. 6F00)
  pace-refused:SW[/ga]      PACE offered, but MSE:Set AT (or with /ga the first
                            GENERAL AUTHENTICATE) answered SW; BAC still works
  ca-refused:SW             chip authentication's MSE:Set KAT / MSE:Set AT answered SW
                            (e.g. 6D00) although DG14 offers it
"""
import re

from der import parse_tlvs, tlv
from .dump import logical_name

NAMES = ("indefinite-length", "sfi-refused", "sticky-auth", "runtime-6700", "read-cap",
         "short-answers", "aa-get-response", "aa-le", "no-card-access", "com-unknown-tags",
         "mutual-auth-error", "pace-refused", "ca-refused")
SYNTAX = "NAME[:ARG] with NAME one of " + ", ".join(NAMES)


def _status(arg, spec, default=None):
    if not arg and default is not None:
        return default
    if not re.fullmatch(r"[0-9A-Fa-f]{4}", arg or ""):
        raise ValueError("--quirk %s: needs a status word of 4 hex digits, e.g. %s:6F00" %
                         (spec, spec.partition(":")[0]))
    sw = int(arg, 16)
    if sw >> 8 in (0x90, 0x61):
        raise ValueError("--quirk %s: %04X is not an error status word" % (spec, sw))
    return sw


def _count(arg, spec, default=None):
    if not arg and default is not None:
        return default
    if not (arg or "").isdigit() or not 1 <= int(arg) <= 65536:
        raise ValueError("--quirk %s: needs a byte count 1..65536, e.g. read-cap:160" % spec)
    return int(arg)


class Quirks:
    """The quirks a chip was started with: {name: argument} (True when it takes none)."""

    def __init__(self, specs=()):
        self.on = {}
        self.indefinite = []                    # files served in indefinite form
        for spec in specs:
            name, _, arg = spec.partition(":")
            name = name.lower()
            if name not in NAMES:
                raise ValueError("--quirk %s: unknown quirk (%s)" % (spec, SYNTAX))
            if name == "indefinite-length":
                file = logical_name(arg) if arg else "SOD"
                if file is None:
                    raise ValueError("--quirk %s: unknown file %r" % (spec, arg))
                self.indefinite.append(file)
                self.on[name] = True
            elif name in ("sfi-refused", "no-card-access"):
                self.on[name] = _status(arg, spec, default=0x6985 if name == "sfi-refused" else 0x6A82)
            elif name in ("mutual-auth-error", "ca-refused"):
                self.on[name] = _status(arg, spec)
            elif name == "pace-refused":
                sw_text, _, step = arg.partition("/")
                if step not in ("", "mse", "ga"):
                    raise ValueError("--quirk %s: after the status only /mse or /ga" % spec)
                self.on[name] = (_status(sw_text, spec), step or "mse")
            elif name == "read-cap":
                self.on[name] = _count(arg, spec)
            elif name == "short-answers":
                self.on[name] = _count(arg, spec, default=0)    # 0: half of what was asked
            elif arg:
                raise ValueError("--quirk %s: %s takes no value" % (spec, name))
            else:
                self.on[name] = True

    def __contains__(self, name):
        return name in self.on

    def __getitem__(self, name):
        return self.on[name]

    def describe(self):
        return ", ".join(sorted(self.on)) or "none"

    # --- file contents ----------------------------------------------------------
    def apply_to_files(self, files):
        """The dump's files as this chip serves them (indefinite-length, com-unknown-tags)."""
        served = dict(files)
        for name in self.indefinite:
            if name not in served:
                raise ValueError("--quirk indefinite-length:%s: the dump has no %s" % (name, name))
            served[name] = indefinite_form(served[name])
        if "com-unknown-tags" in self:
            served["COM"] = com_with_unknown_tags(served["COM"], served)
        if "no-card-access" in self and self["no-card-access"] == 0x6A82:
            served.pop("CardAccess", None)
        return served

    def read_answer_size(self, asked):
        """How many bytes a READ BINARY asking for `asked` gets (short-answers), or `asked`."""
        if "short-answers" not in self:
            return asked
        cap = self["short-answers"]
        return max(1, min(asked, cap) if cap else asked // 2)


def indefinite_form(data):
    """The same object with its outer length in indefinite form (X.690 8.1.3.6)."""
    (tag, value, raw), = parse_tlvs(data)
    header = raw[:len(raw) - len(value)]
    tag_len = 1 if header[0] & 0x1F != 0x1F else 2
    if header[0] & 0x20 == 0:
        raise ValueError("indefinite length needs a constructed object, not tag %X" % tag)
    return header[:tag_len] + b"\x80" + value + b"\x00\x00"


# One-byte tags the EF.COM list may hold (ICAO 9303-10 table 34), by data group.
DG_TAGS = {1: 0x61, 2: 0x75, 3: 0x63, 4: 0x76, 5: 0x65, 6: 0x66, 7: 0x67, 8: 0x68, 9: 0x69,
           10: 0x6A, 11: 0x6B, 12: 0x6C, 13: 0x6D, 14: 0x6E, 15: 0x6F, 16: 0x70}
UNKNOWN_TAG = 0x99                              # no data group has it


def com_with_unknown_tags(com, files):
    """EF.COM whose tag list also names two data groups the chip lacks and an unknown tag."""
    children = parse_tlvs(parse_tlvs(com)[0][1])
    absent = [DG_TAGS[n] for n in (3, 16, 5, 4, 6) if "DG%d" % n not in files][:2]
    body = b""
    for tag, value, raw in children:
        body += tlv(0x5C, value + bytes(absent) + bytes([UNKNOWN_TAG])) if tag == 0x5C else raw
    return tlv(0x60, body)
