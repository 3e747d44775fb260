"""Fault injection for the virtual passport (--fault KIND@POINT[:COUNT]).

A fault is armed on the READ BINARY commands (B0 and B1, plain or under secure
messaging) of one file; README.md next to this file documents the syntax and
what the reader sees for each kind. This module only parses the option and
decides which armed fault a READ BINARY triggers; chip.py applies it.

  KIND   drop | bad-mac | replay | status:SW | slow:SECONDS | extra[:N]
         | no-mac | no-cryptogram | no-status | bad-cryptogram
  POINT  FILE        READ BINARY of FILE at an offset > 0 (as --drop-during)
         FILE/0      READ BINARY of FILE at offset 0 (the read that starts it)
         FILE/any    any READ BINARY of FILE
  COUNT  once (default) | always | a number of times
"""
import re

from .dump import logical_name

KINDS = ("drop", "bad-mac", "replay", "status", "slow", "extra",
         "no-mac", "no-cryptogram", "no-status", "bad-cryptogram")
# Kinds that change the protected response's data objects (SM_RESPONSE_KINDS): chip.py
# _corrupt_sm_response applies them.
SM_RESPONSE_KINDS = ("no-mac", "no-cryptogram", "no-status", "bad-cryptogram")
SYNTAX = ("KIND@FILE[/0|/any][:once|always|N] with KIND drop, bad-mac, replay, "
          "status:SW (4 hex digits, e.g. status:6982), slow:SECONDS, extra[:N], no-mac, "
          "no-cryptogram, no-status or bad-cryptogram")
DEFAULT_EXTRA = 16              # bytes beyond what was asked (extra without :N)
FILLER = 0xEE                   # extra bytes past the end of the file


class Fault:
    def __init__(self, spec, kind, file, offsets, times, sw=None, seconds=None, extra=None):
        self.spec = spec            # the option text, for the log
        self.kind = kind
        self.file = file            # logical name (dump.FILES key)
        self.offsets = offsets      # ">0", "0" or "any"
        self.times = times          # None = always
        self.sw, self.seconds, self.extra = sw, seconds, extra
        self.fired = 0

    def matches(self, name, offset):
        if name != self.file or (self.times is not None and self.fired >= self.times):
            return False
        return {">0": offset > 0, "0": offset == 0, "any": True}[self.offsets]

    def describe(self):
        what = {"status": "status:%04X" % (self.sw or 0), "slow": "slow:%gs" % (self.seconds or 0),
                "extra": "extra:%d" % (self.extra or 0)}.get(self.kind, self.kind)
        where = {">0": "at an offset > 0", "0": "at offset 0", "any": "at any offset"}[self.offsets]
        count = "always" if self.times is None else ("once" if self.times == 1 else
                                                     "%d times" % self.times)
        return "%s on READ BINARY of %s %s, %s" % (what, self.file, where, count)

    def __repr__(self):
        return "Fault(%s)" % self.spec


def parse(spec):
    """Fault from KIND@POINT[:COUNT]; ValueError with a message naming spec."""
    def bad(why):
        return ValueError("--fault %s: %s (syntax: %s)" % (spec, why, SYNTAX))

    if spec.count("@") != 1:
        raise bad("one '@' between the kind and the file")
    kind_text, point = spec.split("@")
    kind, _, arg = kind_text.partition(":")
    kind = kind.lower()
    if kind not in KINDS:
        raise bad("unknown kind %r" % kind)
    sw = seconds = extra = None
    if kind == "status":
        if not re.fullmatch(r"[0-9A-Fa-f]{4}", arg):
            raise bad("status needs a status word of 4 hex digits, e.g. status:6982")
        sw = int(arg, 16)
        if sw >> 8 in (0x90, 0x61) or sw == 0x6282:
            raise bad("status:%04X is not an error status word" % sw)
    elif kind == "slow":
        try:
            seconds = float(arg)
        except ValueError:
            raise bad("slow needs seconds, e.g. slow:5")
        if not 0 < seconds <= 3600:
            raise bad("slow needs 0 < SECONDS <= 3600")
    elif kind == "extra":
        extra = DEFAULT_EXTRA
        if arg:
            if not arg.isdigit() or not 1 <= int(arg) <= 4096:
                raise bad("extra:N needs 1 <= N <= 4096")
            extra = int(arg)
    elif arg:
        raise bad("%s takes no value" % kind)

    point, _, count = point.partition(":")
    file_text, _, offsets = point.partition("/")
    offsets = {"": ">0", "0": "0", "any": "any"}.get(offsets.lower())
    if offsets is None:
        raise bad("after the file, only /0 or /any")
    name = logical_name(file_text)
    if name is None:
        raise bad("unknown file %r" % file_text)
    count = count.lower() or "once"
    if count == "always":
        times = None
    elif count == "once":
        times = 1
    elif count.isdigit() and int(count) >= 1:
        times = int(count)
    else:
        raise bad("count must be once, always or a number >= 1")
    if kind in ("bad-mac", "replay") + SM_RESPONSE_KINDS and name == "CardAccess":
        raise bad("EF.CardAccess is read in plain, without secure messaging to corrupt")
    return Fault(spec, kind, name, offsets, times, sw, seconds, extra)


class Faults:
    """The armed faults of a chip, in the order given."""

    def __init__(self, faults=()):
        self.faults = list(faults)

    def __bool__(self):
        return bool(self.faults)

    def trigger(self, name, offset, can_replay):
        """Faults a READ BINARY of `name` at `offset` sets off: (slow, other), each
        a Fault or None. Any matching slow fault fires; of the other kinds the first
        matching one given (a replay only once there is a response to replay).
        Each returned fault has used up one of its times."""
        slow = other = None
        for f in self.faults:
            if not f.matches(name, offset):
                continue
            if f.kind == "slow":
                if slow is None:
                    slow = f
            elif other is None and (f.kind != "replay" or can_replay):
                other = f
        for f in (slow, other):
            if f is not None:
                f.fired += 1
        return slow, other
