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
  sm-error:SW               a protected command the chip cannot check (a wrong MAC, e.g.
                            under keys it did not derive) answered with a plain SW instead
                            of 6987/6988 (a chip answered 6985)
  ta-trust-point-refused[:SW]  PSO:Verify Certificate of a certificate that already is one
                            of the chip's trust points answered SW (default 6A80)
  large-card-access         EF.CardAccess also holds a CardInfoLocator, two
                            PACEDomainParameterInfos with explicit curve parameters, a
                            ChipAuthenticationInfo and a TerminalAuthenticationInfo: over
                            256 bytes, as on ID cards (needs --pace)
  no-com                    no EF.COM in the eMRTD application (6A82), as on many ID cards
  ta-challenge-length:N     GET CHALLENGE under secure messaging (Terminal Authentication's
                            r_PICC) answers N bytes (1..32) instead of 8; BAC's stays 8
  app-refused:SW            SELECT of the eMRTD application (by its AID) answered SW
  mutual-auth-corrupt:mac|cryptogram  MUTUAL AUTHENTICATE answered 9000 with M_ICC
                            corrupted, or with E_ICC corrupted and M_ICC computed over it
  eof-answer:6B00|6CXX      a READ BINARY whose Ne goes beyond the end of the file answered
                            6B00, or 6Cxx (xx = the bytes that remain), without data,
                            instead of the remaining bytes with 6282
  aa-bad-trailer            the Active Authentication signature (RSA, ISO/IEC 9796-2) is
                            computed over a message whose trailer is wrong (BC -> BD,
                            xx CC -> xx CD)
  atr-info:HEX              EF.ATR/INFO (MF, FID 2F01, SFI 01; plain, no access control)
                            with the content HEX; a protected answer longer than its DO'7F66'
                            allows is refused with 6700
  no-access-control         a plain chip: COM, DGs and SOD readable without BAC or PACE (plain
                            SELECT and READ BINARY); MUTUAL AUTHENTICATE answered 6D00; chip
                            and active authentication run in plain (CA then starts secure
                            messaging with its keys)
  pace-answer:STEP/KIND[=V] the answer to PACE's GENERAL AUTHENTICATE step STEP (1-4) is
                            faulty (test-plan fault injection, needs --pace): sw=SW, tag=XX
                            (the inner DO's tag), nonce (z altered), key=x|y|prefix|zero|p|
                            other (the chip's public key of step 2/3 broken or foreign),
                            echo (step 2/3: the terminal's own key sent back), token (step 4:
                            wrong chip token), extra-8a (step 4: an added DO'8A'), cam=no-tag|
                            not-octet|wrong|tag-8B|empty (step 4 of PACE-CAM: DO'8A')
  served-file:NAME=PATH     the file NAME (e.g. CardAccess, CardSecurity) is served with the
                            bytes of PATH, while the chip sets itself up (PACE profiles, the
                            PACE-CAM key) from the dump's own file
  sfi-plain:FILE[/SW]       READ BINARY of FILE by short EF identifier under secure messaging
                            answered with a plain SW (default 6F00) that the chip does not
                            count in its send sequence counter; SELECT then works (a chip
                            whose EF.CVCA cannot be read by short identifier)
  eac2                      EAC version 2's order (eac2.py; needs --pace, EF.CVCA, EF.CardSecurity
                            with the CA key, no DG14): EF.CardAccess announces TA and CA version
                            2; TA right after PACE with DO'91' in MSE:Set AT; EF.CardSecurity only
                            after TA; then CA version 2 (nonce and token)
  ca-ephemeral-check        Chip Authentication refuses (6A80) a terminal ephemeral key it has
                            seen before in this card's life, and the first CA is answered 9000
                            but with session keys the terminal cannot have (as --ca-wrong-key,
                            once), so that a terminal must run CA a second time
"""
import os
import re

from der import integer, oid, parse_tlvs, sequence, tlv
from .dump import logical_name

NAMES = ("indefinite-length", "sfi-refused", "sticky-auth", "runtime-6700", "read-cap",
         "short-answers", "aa-get-response", "aa-le", "no-card-access", "com-unknown-tags",
         "mutual-auth-error", "pace-refused", "ca-refused", "sm-error", "ta-trust-point-refused",
         "large-card-access", "no-com", "ta-challenge-length", "app-refused", "mutual-auth-corrupt",
         "eof-answer", "aa-bad-trailer", "atr-info", "no-access-control", "pace-answer",
         "served-file", "ca-ephemeral-check", "sfi-plain", "eac2")
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
            elif name in ("mutual-auth-error", "ca-refused", "sm-error"):
                self.on[name] = _status(arg, spec)
            elif name == "ta-trust-point-refused":
                self.on[name] = _status(arg, spec, default=0x6A80)
            elif name == "pace-refused":
                sw_text, _, step = arg.partition("/")
                if step not in ("", "mse", "ga"):
                    raise ValueError("--quirk %s: after the status only /mse or /ga" % spec)
                self.on[name] = (_status(sw_text, spec), step or "mse")
            elif name in NEW_QUIRK_PARSERS:
                self.on[name] = NEW_QUIRK_PARSERS[name](arg, spec)
            elif name == "served-file":
                self.on[name] = served_file_spec(arg, spec)
            elif name == "pace-answer":
                self.on[name] = pace_answer_spec(arg, spec)
            elif name == "read-cap":
                self.on[name] = _count(arg, spec)
            elif name == "ta-challenge-length":
                self.on[name] = ta_challenge_length(arg, spec)
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
        if "large-card-access" in self:
            if "CardAccess" not in served:
                raise ValueError("--quirk large-card-access needs an EF.CardAccess (--pace)")
            served["CardAccess"] = large_card_access(served["CardAccess"])
            if "CardSecurity" in served:
                served["CardSecurity"] = card_security_holding(served["CardSecurity"], served["CardAccess"])
        if "no-com" in self:
            served.pop("COM", None)
        if "atr-info" in self:
            served[ATR_INFO] = self["atr-info"]
        if "served-file" in self:
            file, data = self["served-file"]
            served[file] = data
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


def explicit_parameters(curve_oid):
    """ECParameters (RFC 3279: version 1, prime field, no seed) of a named curve, written out."""
    from .ecc import named_curve
    c = named_curve(curve_oid)
    field = lambda v: v.to_bytes(c.size, "big")
    return sequence(integer(1), sequence(oid("1.2.840.10045.1.1"), integer(c.p)),
                    sequence(tlv(0x04, field(c.a)), tlv(0x04, field(c.b))),
                    tlv(0x04, c.encode(c.g)), integer(c.n), integer(c.h))


def large_card_access(card_access):
    """EF.CardAccess with the SecurityInfos ID cards add (BSI TR-03110-3 A.1.1): a CardInfoLocator,
    PACEDomainParameterInfos with explicit parameters for proprietary ids 32 and 33 (no PACEInfo
    names them), a ChipAuthenticationInfo and a TerminalAuthenticationInfo. The chip's own PACEInfos
    come first and are unchanged."""
    (tag, value, _), = parse_tlvs(card_access)
    if tag != 0x31:
        raise ValueError("EF.CardAccess is not a SET (tag %X)" % tag)
    ec_public_key = "1.2.840.10045.2.1"
    extra = [
        sequence(oid("0.4.0.127.0.7.2.2.6"), tlv(0x16, b"https://www.example.org/test-only/card-info.xml")),
        sequence(oid("0.4.0.127.0.7.2.2.4.2"), sequence(oid(ec_public_key), explicit_parameters("1.3.36.3.3.2.8.1.1.7")), integer(32)),
        sequence(oid("0.4.0.127.0.7.2.2.4.2"), sequence(oid(ec_public_key), explicit_parameters("1.2.840.10045.3.1.7")), integer(33)),
        sequence(oid("0.4.0.127.0.7.2.2.3.2.2"), integer(2), integer(1)),
        sequence(oid("0.4.0.127.0.7.2.2.2"), integer(1)),
    ]
    return tlv(0x31, value + b"".join(extra))


def card_security_holding(card_security, card_access):
    """EF.CardSecurity holding every SecurityInfo of `card_access` too, as an issuer writes it (a
    reader checks that EF.CardSecurity repeats EF.CardAccess): unchanged when it does already,
    otherwise with the missing ones added and signed again by the TEST-ONLY Document Signer of
    Fixtures/pki that signed it (only the fixtures' dsc-UTO is known here; ValueError for another)."""
    from fixturegen import cardsecurity, testsigners
    (_, held, _), = parse_tlvs(cardsecurity.parse(card_security)["security_infos"])
    (_, offered, _), = parse_tlvs(card_access)
    have = [raw for _, _, raw in parse_tlvs(held)]
    missing = [raw for _, _, raw in parse_tlvs(offered) if raw not in have]
    if not missing:
        return card_security
    dsc, _ = testsigners.signer("dsc-UTO")
    if dsc not in card_security:
        raise ValueError("EF.CardSecurity lacks SecurityInfos of EF.CardAccess and is signed by another "
                         "Document Signer than Fixtures/pki's TEST-ONLY dsc-UTO, so it cannot be re-signed")
    return testsigners.sign_card_security(tlv(0x31, b"".join(have + missing)), "dsc-UTO")


def ta_challenge_length(arg, spec):
    """--quirk ta-challenge-length:N: the byte count 1..32 (not 8, which is no quirk)."""
    if not (arg or "").isdigit() or not 1 <= int(arg) <= 32 or int(arg) == 8:
        raise ValueError("--quirk %s: needs a challenge length 1..32 other than 8, e.g. "
                         "ta-challenge-length:7" % spec)
    return int(arg)

# --- app-refused, mutual-auth-corrupt, eof-answer, atr-info (TR-03105 Part 5.1 cases) ----------
ATR_INFO = "ATRInfo"                            # logical name of EF.ATR/INFO (atr-info)
ATR_INFO_FID, ATR_INFO_SFI = 0x2F01, 0x01


def _mutual_auth_corrupt(arg, spec):
    if arg.lower() not in ("mac", "cryptogram"):
        raise ValueError("--quirk %s: mutual-auth-corrupt:mac or mutual-auth-corrupt:cryptogram" % spec)
    return arg.lower()


def _eof_answer(arg, spec):
    if arg.upper() == "6B00":
        return 0x6B00
    if arg.upper() == "6CXX":
        return 0x6C00
    raise ValueError("--quirk %s: eof-answer:6B00 or eof-answer:6CXX" % spec)


def _atr_info(arg, spec):
    if not re.fullmatch(r"([0-9A-Fa-f]{2})+", arg or ""):
        raise ValueError("--quirk %s: atr-info needs the file's content in hex, e.g. "
                         "atr-info:7F66080202078002020780" % spec)
    return bytes.fromhex(arg)


def atr_info_response_limit(content):
    """The most response data bytes EF.ATR/INFO's DO'7F66' allows (its second INTEGER less the
    status word), or None when the content does not say it in that form."""
    try:
        for tag, value, _ in parse_tlvs(content):
            if tag == 0x7F66:
                lengths = parse_tlvs(value)
                if len(lengths) == 2 and all(t == 0x02 for t, _, _ in lengths):
                    return int.from_bytes(lengths[1][1], "big") - 2
    except ValueError:
        pass
    return None


def _no_value(name):
    def parse(arg, spec):
        if arg:
            raise ValueError("--quirk %s: %s takes no value" % (spec, name))
        return True
    return parse


NEW_QUIRK_PARSERS = {
    "app-refused": lambda arg, spec: _status(arg, spec),
    "mutual-auth-corrupt": _mutual_auth_corrupt,
    "eof-answer": _eof_answer,
    "aa-bad-trailer": _no_value("aa-bad-trailer"),
    "atr-info": _atr_info,
    "no-access-control": _no_value("no-access-control"),
    "sfi-plain": lambda arg, spec: _sfi_plain(arg, spec),
    "eac2": _no_value("eac2"),
}


def _sfi_plain(arg, spec):
    """sfi-plain:FILE[/SW] -> (logical file name, status word)."""
    name, _, sw_text = arg.partition("/")
    file = logical_name(name) if name else None
    if file is None:
        raise ValueError("--quirk %s: needs a file, e.g. sfi-plain:CVCA or sfi-plain:CVCA/6F00" % spec)
    return file, _status(sw_text, spec, default=0x6F00)


# --- pace-answer: faulty answers to PACE's GENERAL AUTHENTICATE ------------------------------
PACE_ANSWER_KINDS = {
    "sw": (1, 2, 3, 4), "tag": (1, 2, 3, 4), "nonce": (1,), "key": (2, 3), "echo": (2, 3),
    "token": (4,), "extra-8a": (4,), "cam": (4,)}
PACE_KEY_FAULTS = ("x", "y", "prefix", "zero", "p", "other")
PACE_CAM_FAULTS = ("no-tag", "not-octet", "wrong", "tag-8B", "empty")


def pace_answer_spec(arg, spec):
    """(step, kind, value) of --quirk pace-answer:STEP/KIND[=VALUE]."""
    m = re.fullmatch(r"([1-4])/([a-z0-9-]+)(?:=([0-9A-Za-z-]+))?", arg or "")
    if not m or m.group(2) not in PACE_ANSWER_KINDS:
        raise ValueError("--quirk %s: needs STEP/KIND[=VALUE], STEP 1-4, KIND one of %s" %
                         (spec, ", ".join(PACE_ANSWER_KINDS)))
    step, kind, value = int(m.group(1)), m.group(2), m.group(3)
    if step not in PACE_ANSWER_KINDS[kind]:
        raise ValueError("--quirk %s: %s is for step %s" %
                         (spec, kind, "/".join(map(str, PACE_ANSWER_KINDS[kind]))))
    if kind == "sw":
        value = _status(value, spec)
    elif kind == "tag":
        if not re.fullmatch(r"[0-9A-Fa-f]{2}", value or ""):
            raise ValueError("--quirk %s: tag=XX, one byte in hex (e.g. 1/tag=90)" % spec)
        value = int(value, 16)
    elif kind == "key" and value not in PACE_KEY_FAULTS:
        raise ValueError("--quirk %s: key=%s" % (spec, "|".join(PACE_KEY_FAULTS)))
    elif kind == "cam" and value not in PACE_CAM_FAULTS:
        raise ValueError("--quirk %s: cam=%s" % (spec, "|".join(PACE_CAM_FAULTS)))
    elif kind not in ("sw", "tag", "key", "cam") and value is not None:
        raise ValueError("--quirk %s: %s takes no value" % (spec, kind))
    return step, kind, value


def pace_answer_fault(fault, step, body, pace_chip):
    """The faulty DO'7C' content for GENERAL AUTHENTICATE step `step` (pace-answer), given the
    genuine one (`body`, the inner DOs); None when this step is not the faulty one. A status
    fault raises ChipError (the chip discards the run, as on any error)."""
    from .apdu import ChipError
    want, kind, value = fault
    if step != want:
        return None
    if kind == "sw":
        pace_chip.reset()
        raise ChipError(value, "--quirk pace-answer: step %d answered %04X" % (step, value))
    items = parse_tlvs(body)
    first_tag, first_value, first_raw = items[0]
    rest = b"".join(raw for _, _, raw in items[1:])
    if kind == "tag":
        return tlv(value, first_value) + rest
    if kind == "nonce":
        return tlv(first_tag, first_value[:-1] + bytes([first_value[-1] ^ 0x01])) + rest
    if kind == "echo":
        terminal = pace_chip.terminal_key if step == 3 else pace_chip.terminal_mapping_key
        return tlv(first_tag, terminal) + rest
    if kind == "key":
        return tlv(first_tag, _broken_public_key(first_value, value, pace_chip, step)) + rest
    if kind == "token":
        token = first_value[:-1] + bytes([first_value[-1] ^ 0x01])
        return tlv(first_tag, token) + rest
    if kind == "extra-8a":
        return body + tlv(0x8A, bytes(range(48)))
    # cam: the DO'8A' of PACE-CAM
    cam = [(t, v) for t, v, _ in items if t == 0x8A]
    if not cam:
        raise ChipError(0x6F00, "--quirk pace-answer:4/cam on a profile without PACE-CAM")
    token_do = b"".join(raw for t, _, raw in items if t != 0x8A)
    encrypted = cam[0][1]
    if value == "no-tag":
        return token_do + encrypted
    if value == "tag-8B":
        return token_do + tlv(0x8B, encrypted)
    if value == "empty":
        return token_do + tlv(0x8A, b"")
    run = pace_chip.last_run
    ca_ic = pace_chip.cam_value
    if value == "wrong":
        n = run.static_params().order
        plain = ((int.from_bytes(ca_ic, "big") + 1) % n).to_bytes(len(ca_ic), "big")
    else:                                   # not-octet: CA_IC as an ASN.1 INTEGER, not FE2OS
        plain = integer(int.from_bytes(ca_ic, "big"))
    run.set_ssc((1 << 128) - 1)             # as pace.py: IV = E(KS_enc, -1), then SSC 0
    data = run.encrypt(run.pad(plain))
    run.set_ssc(0)
    return token_do + tlv(0x8A, data)


def _broken_public_key(genuine, how, pace_chip, step):
    """The chip's public key of step 2 or 3, broken as `how` says (PACE_KEY_FAULTS)."""
    if genuine[:1] == b"\x04" and len(genuine) % 2 == 1:      # EC: 04 || x || y
        size = (len(genuine) - 1) // 2
        x, y = genuine[1:1 + size], genuine[1 + size:]
        if how == "x":
            return b"\x04" + x[:-1] + bytes([x[-1] ^ 0x01]) + y
        if how in ("y", "zero", "p"):
            return b"\x04" + x + y[:-1] + bytes([y[-1] ^ 0x01])
        if how == "prefix":
            return b"\x05" + x + y
        params = pace_chip.run.ephemeral_params() if step == 3 else pace_chip.run.static_params()
        from .ecc import Curve
        curve = Curve(params.p, params.a, params.b, params.gx, params.gy, params.order)
        return curve.encode(curve.mul(int.from_bytes(os.urandom(params.size), "big") % params.order))
    params = pace_chip.run.ephemeral_params() if step == 3 else pace_chip.run.static_params()
    # As wide as p: OpenPACE sends a DH key without leading zeros, so the genuine one is a byte
    # shorter about once in 180 runs, too short to hold p (ISO7816_G_17 then failed with 6F00).
    size = max(len(genuine), (params.p.bit_length() + 7) // 8)
    if how == "zero":
        return bytes(size)
    if how in ("p", "x", "y", "prefix"):
        return params.p.to_bytes(size, "big")
    q = params.q or (params.p - 1) // 2
    return pow(params.g, int.from_bytes(os.urandom(32), "big") % q, params.p).to_bytes(size, "big")


def served_file_spec(arg, spec):
    """(logical file name, bytes) of --quirk served-file:NAME=PATH."""
    name, _, path = (arg or "").partition("=")
    file = logical_name(name) if name else None
    if file is None or not path:
        raise ValueError("--quirk %s: needs NAME=PATH, e.g. served-file:CardAccess=/tmp/ca.bin" % spec)
    try:
        with open(path, "rb") as f:
            return file, f.read()
    except OSError as e:
        raise ValueError("--quirk %s: %s" % (spec, e))
