#!/usr/bin/python3
"""Smoke test of `virtual-passport start … --pn532` through the real libnfc
(Debian libnfc6 1.8.0, called with ctypes), as a reader would use it.

  /usr/bin/python3 scripts/vpassport/nfc_smoke.py DUMP_DIR MRZ_INFO [--scenario S …]

Starts the PN532 itself (scripts/virtual-passport start … --pn532) for each
scenario and stops it at the end; its state dir is the launcher's default
(/tmp/virtual-passport-pn532, or $VIRTUAL_PASSPORT_PN532_STATE).

Three ways of carrying APDUs through libnfc are tested ("modes"):
  easy    nfc_initiator_transceive_bytes with NP_EASY_FRAMING on (the
          default): one PN532 InDataExchange; libnfc 1.8.0 limits it to
          262-byte commands and 263-byte responses (data + SW)
  mi      PN532 InDataExchange frames through pn53x_transceive (exported by
          libnfc.so.6, not in its headers): command chaining with the MI bit,
          MI-chained responses collected into a 64 KB buffer by libnfc
  isodep  NP_EASY_FRAMING off: nfc_initiator_transceive_bytes sends raw
          ISO 14443-4 blocks (PN532 InCommunicateThru); the reader does the
          block protocol (chaining, R(ACK), WTX) itself

The reader side (BAC, secure messaging, file reading) is smoke_client.Reader.
"""
import argparse
import ctypes
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from vpassport.dump import FILES, load_dump  # noqa: E402
from vpassport.smoke_client import AID, Checker, Reader, SwError, encode, read_all  # noqa: E402

LAUNCHER = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "virtual-passport")

# nfc-types.h / nfc.h
NMT_ISO14443A, NMT_ISO14443B = 1, 3
NBR_106 = 1
NP_INFINITE_SELECT, NP_EASY_FRAMING = 7, 11
NFC_ETGRELEASED, NFC_ERFTRANS, NFC_ECHIP = -10, -20, -90
PN532_MAX_DATA_OUT = 262


class NfcModulation(ctypes.Structure):
    _fields_ = [("nmt", ctypes.c_int), ("nbr", ctypes.c_int)]


class NfcError(Exception):
    def __init__(self, code, what):
        super().__init__("%s: libnfc error %d" % (what, code))
        self.code = code


def load_libnfc():
    lib = ctypes.CDLL("libnfc.so.6")
    vp, sz, u8p = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p
    lib.nfc_init.argtypes = [ctypes.POINTER(vp)]
    lib.nfc_exit.argtypes = [vp]
    lib.nfc_open.argtypes, lib.nfc_open.restype = [vp, u8p], vp
    lib.nfc_close.argtypes = [vp]
    lib.nfc_initiator_init.argtypes = [vp]
    lib.nfc_device_set_property_bool.argtypes = [vp, ctypes.c_int, ctypes.c_bool]
    lib.nfc_initiator_select_passive_target.argtypes = [vp, NfcModulation, u8p, sz, vp]
    lib.nfc_initiator_transceive_bytes.argtypes = [vp, u8p, sz, vp, sz, ctypes.c_int]
    lib.nfc_initiator_target_is_present.argtypes = [vp, vp]
    lib.nfc_initiator_deselect_target.argtypes = [vp]
    lib.pn53x_transceive.argtypes = [vp, u8p, sz, vp, sz, ctypes.c_int]
    return lib


class LibnfcTransport:
    """One PN532 through libnfc, the card selected; .transmit(apdu) -> response."""

    def __init__(self, lib, connstring, mode, card_type="A"):
        self.lib, self.mode = lib, mode
        self.ctx = ctypes.c_void_p()
        lib.nfc_init(ctypes.byref(self.ctx))
        t0 = time.monotonic()
        self.pnd = lib.nfc_open(self.ctx, connstring.encode())
        if not self.pnd:
            raise NfcError(-1, "nfc_open(%s)" % connstring)
        self.open_ms = (time.monotonic() - t0) * 1e3
        self._ok(lib.nfc_initiator_init(self.pnd), "nfc_initiator_init")
        # A reader should not wait for ever when no card is there.
        self._ok(lib.nfc_device_set_property_bool(self.pnd, NP_INFINITE_SELECT, False),
                 "NP_INFINITE_SELECT")
        self.init_ms = (time.monotonic() - t0) * 1e3
        self.target = ctypes.create_string_buffer(512)   # nfc_target (291 bytes, packed)
        nm = NfcModulation(NMT_ISO14443B if card_type == "B" else NMT_ISO14443A, NBR_106)
        n = lib.nfc_initiator_select_passive_target(self.pnd, nm, None, 0, self.target)
        if n <= 0:
            raise NfcError(n, "no card")
        raw = self.target.raw
        if card_type == "B":
            self.uid, self.ats = raw[0:4], b""
            self.atr = pcsc_atr(raw[4:8] + raw[8:11])        # application data + protocol info
        else:
            uid_len = int.from_bytes(raw[3:11], "little")
            ats_len = int.from_bytes(raw[21:29], "little")
            self.uid, self.ats = raw[11:11 + uid_len], raw[29:29 + ats_len]
            self.atr = pcsc_atr(ats_historical_bytes(self.ats))
        self.fsc = frame_size(self.ats[0] & 0x0F) if self.ats else 256
        self.bn = 0                                   # PCD block number (isodep mode)
        if mode == "isodep":
            self.easy_framing(False)
        self.rx = ctypes.create_string_buffer(65536 + 16)

    def _ok(self, res, what):
        if res < 0:
            raise NfcError(res, what)
        return res

    def easy_framing(self, on):
        self._ok(self.lib.nfc_device_set_property_bool(self.pnd, NP_EASY_FRAMING, on),
                 "NP_EASY_FRAMING")

    def transmit(self, apdu):
        apdu = bytes(apdu)
        if self.mode == "easy":
            if len(apdu) > PN532_MAX_DATA_OUT:
                raise NfcError(-5, "easy framing takes at most 262 bytes")
            n = self.lib.nfc_initiator_transceive_bytes(self.pnd, apdu, len(apdu), self.rx,
                                                        len(self.rx), 5000)
            return self.rx.raw[:self._ok(n, "nfc_initiator_transceive_bytes")]
        if self.mode == "mi":
            return self._transmit_mi(apdu)
        return self._transmit_isodep(apdu)

    def _transmit_mi(self, apdu):
        off = 0
        while True:
            piece = apdu[off:off + PN532_MAX_DATA_OUT]
            off += len(piece)
            more = off < len(apdu)
            frame = bytes([0x40, 0x01 | (0x40 if more else 0)]) + piece   # InDataExchange
            n = self._ok(self.lib.pn53x_transceive(self.pnd, frame, len(frame), self.rx,
                                                   len(self.rx), 5000), "InDataExchange")
            if not more:
                return self.rx.raw[1:n]                # [0] is the status byte

    def _raw(self, block):
        n = self.lib.nfc_initiator_transceive_bytes(self.pnd, block, len(block), self.rx,
                                                    len(self.rx), 5000)
        return self.rx.raw[:self._ok(n, "InCommunicateThru")]

    def _transmit_isodep(self, apdu):
        """ISO/IEC 14443-4 PCD side, CID and NAD not used."""
        room = self.fsc - 3                           # PCB + CRC
        pieces = [apdu[i:i + room] for i in range(0, len(apdu), room)] or [b""]
        for k, piece in enumerate(pieces):
            chained = k < len(pieces) - 1
            reply = self._exchange(bytes([0x02 | self.bn | (0x10 if chained else 0)]) + piece)
            if chained:
                if reply[0] & 0xF6 != 0xA2 or reply[0] & 1 != self.bn:
                    raise NfcError(-20, "expected R(ACK), got PCB %02X" % reply[0])
                self.bn ^= 1
        out = b""
        while True:
            if reply[0] & 0xE2 != 0x02:
                raise NfcError(-20, "expected an I-block, got PCB %02X" % reply[0])
            if reply[0] & 1 == self.bn:
                self.bn ^= 1
            out += reply[1:]
            if not reply[0] & 0x10:
                return out
            reply = self._exchange(bytes([0xA2 | self.bn]))     # R(ACK): next part

    def _exchange(self, block):
        reply = self._raw(block)
        while reply and reply[0] & 0xF7 == 0xF2:                 # S(WTX): grant it
            reply = self._raw(reply[:2])
        if not reply:
            raise NfcError(-20, "empty block")
        return reply

    def is_present(self):
        return self.lib.nfc_initiator_target_is_present(self.pnd, None)

    def close(self):
        if self.pnd:
            self.lib.nfc_close(self.pnd)
            self.pnd = None
        self.lib.nfc_exit(self.ctx)


def frame_size(code):
    return [16, 24, 32, 40, 48, 64, 96, 128, 256][min(code, 8)]


def ats_historical_bytes(ats):
    """ATS without TL (as libnfc gives it): T0 [TA] [TB] [TC] historical bytes."""
    if not ats:
        return b""
    t0 = ats[0]
    return ats[1 + bin(t0 & 0x70).count("1"):]


def pcsc_atr(hist):
    """The ATR a PC/SC reader builds for a contactless ISO 14443-4 card
    (PC/SC part 3): 3B 8n 80 01 historical bytes TCK."""
    body = bytes([0x80 | len(hist), 0x80, 0x01]) + hist
    tck = 0
    for b in body:
        tck ^= b
    return b"\x3b" + body + bytes([tck])


def supports_extended_length(atr):
    """The Swift reader's rule (CardIO/AnswerToReset.swift): compact-TLV 7x of
    category-80 historical bytes, third byte bit 0x40."""
    k = atr[1] & 0x0F
    hist = atr[4:4 + k]
    if not hist or hist[0] != 0x80:
        return False
    i = 1
    while i < len(hist):
        tag, n = hist[i] >> 4, hist[i] & 0x0F
        if tag == 0x7 and n >= 3:
            return bool(hist[i + 3] & 0x40)
        i += 1 + n
    return False


def launcher(*args):
    t0 = time.monotonic()
    p = subprocess.run([LAUNCHER, *args], capture_output=True, text=True)
    dt = time.monotonic() - t0
    print("$ virtual-passport %s -> rc %d in %.2fs: %s" % (
        " ".join(args), p.returncode, dt, (p.stdout + p.stderr).strip().replace("\n", " | ")))
    return p


def start(dump, *opts):
    p = launcher("start", dump, "--pn532", *opts)
    if p.returncode:
        raise SystemExit("launcher failed")
    return p.stdout.strip().splitlines()[-1]


def test_normal(lib, cs, dump, mrz, c):
    files = load_dump(dump)
    for mode in ("mi", "isodep"):
        t = LibnfcTransport(lib, cs, mode)
        print("  [%s] nfc_open %.0f ms, open+init %.0f ms; UID %s, ATS %s, ATR %s" % (
            mode, t.open_ms, t.init_ms, t.uid.hex().upper(), t.ats.hex().upper(),
            t.atr.hex().upper()))
        c.check(supports_extended_length(t.atr), "[%s] ATS historical bytes announce extended length" % mode)
        r = Reader(t)
        _, sw = r.plain(0xA4, 0x04, 0x0C, AID)
        c.check(sw == 0x9000, "[%s] SELECT eMRTD application" % mode, "%04X" % sw)
        t0 = time.monotonic()
        sw = r.bac(mrz)
        c.check(sw == 0x9000, "[%s] BAC (%.0f ms)" % (mode, (time.monotonic() - t0) * 1e3), "%04X" % sw)
        read_all(r, files, c, "[%s]" % mode)
        t0 = time.monotonic()
        data = r.read_extended(FILES["DG2"][0])
        c.check(data == files["DG2"], "[%s] DG2 (%d bytes) in one extended READ BINARY, %.0f ms" % (
            mode, len(files["DG2"]), (time.monotonic() - t0) * 1e3))
        _, sw = r.plain(0xA4, 0x04, 0x0C, AID)       # plain SELECT: ends secure messaging
        long = encode(0x00, 0xA4, 0x04, 0x0C, b"\xa5" * 300, extended=True)
        resp = t.transmit(long)
        c.check(resp == b"\x6a\x82", "[%s] 307-byte command (SELECT, unknown name) -> 6A82"
                % mode, resp.hex().upper())
        c.check(t.is_present() == 0, "[%s] nfc_initiator_target_is_present" % mode)
        if mode == "isodep":
            # is_present switched NP_EASY_FRAMING back on (libnfc 1.8.0 does that)
            t.easy_framing(False)
        _, sw = r.plain(0xA4, 0x04, 0x0C, AID)
        c.check(sw == 0x9000, "[%s] SELECT after the presence check" % mode, "%04X" % sw)
        t.close()

    # libnfc's own InDataExchange: short APDUs fine, a response > 263 bytes is not
    t = LibnfcTransport(lib, cs, "easy")
    r = Reader(t)
    r.plain(0xA4, 0x04, 0x0C, AID)
    c.check(r.bac(mrz) == 0x9000, "[easy] BAC")
    r.sm(0xA4, 0x04, 0x0C, AID)
    c.check(r.read_short(0x0101, 1) == files["DG1"], "[easy] DG1 in short reads")
    try:
        r.read_extended(FILES["DG2"][0])
        c.check(False, "[easy] extended DG2 read should fail")
    except NfcError as e:
        c.check(e.code == NFC_ECHIP, "[easy] extended DG2 read fails in libnfc (response > 263 bytes)",
                str(e))
    t.close()


def test_no_extended(lib, cs, dump, mrz, c):
    t = LibnfcTransport(lib, cs, "mi")
    c.check(not supports_extended_length(t.atr), "ATS without extended length", t.ats.hex().upper())
    r = Reader(t)
    r.plain(0xA4, 0x04, 0x0C, AID)
    c.check(r.bac(mrz) == 0x9000, "BAC")
    r.sm(0xA4, 0x04, 0x0C, AID)
    _, sw = r.sm(0xB0, 0x81, 0, ne=65536, extended=True)
    c.check(sw == 0x6700, "extended READ BINARY -> 6700", "%04X" % sw)
    t.close()


def test_drop(lib, cs, dump, mrz, c):
    t = LibnfcTransport(lib, cs, "mi")
    r = Reader(t)
    r.plain(0xA4, 0x04, 0x0C, AID)
    c.check(r.bac(mrz) == 0x9000, "BAC")
    r.sm(0xA4, 0x04, 0x0C, AID)
    try:
        r.read_short(FILES["DG2"][0], FILES["DG2"][1])
        c.check(False, "DG2 read should fail")
    except NfcError as e:
        c.check(e.code == NFC_ERFTRANS, "READ BINARY at offset > 0 -> NFC_ERFTRANS (PN532 status 01)",
                str(e))
    except SwError as e:
        c.check(False, "DG2 read should fail in libnfc", str(e))
    c.check(t.is_present() == NFC_ETGRELEASED, "nfc_initiator_target_is_present -> NFC_ETGRELEASED")
    c.check(launcher("status", "--pn532").returncode == 1, "status --pn532 -> 1 (card gone)")
    t.close()
    try:
        LibnfcTransport(lib, cs, "mi")
        c.check(False, "no card after the drop")
    except NfcError as e:
        c.check(e.code == 0, "new session: nfc_initiator_select_passive_target finds no card", str(e))


def test_eject(lib, cs, dump, mrz, c):
    t = LibnfcTransport(lib, cs, "easy")
    _, sw = Reader(t).plain(0xA4, 0x04, 0x0C, AID)
    c.check(sw == 0x9000, "SELECT before eject", "%04X" % sw)
    launcher("eject", "--pn532")
    try:
        Reader(t).plain(0xA4, 0x04, 0x0C, AID)
        c.check(False, "APDU after eject should fail")
    except NfcError as e:
        c.check(e.code == NFC_ERFTRANS, "APDU after eject -> NFC_ERFTRANS", str(e))
    c.check(launcher("status", "--pn532").returncode == 1, "status --pn532 -> 1")
    t.close()


def test_type_b(lib, cs, dump, mrz, c):
    t = LibnfcTransport(lib, cs, "mi", card_type="B")
    print("  PUPI %s, ATR %s" % (t.uid.hex().upper(), t.atr.hex().upper()))
    r = Reader(t)
    _, sw = r.plain(0xA4, 0x04, 0x0C, AID)
    c.check(sw == 0x9000, "type B: SELECT eMRTD application", "%04X" % sw)
    c.check(r.bac(mrz) == 0x9000, "type B: BAC")
    r.sm(0xA4, 0x04, 0x0C, AID)
    c.check(r.read_extended(FILES["DG2"][0]) == load_dump(dump)["DG2"], "type B: extended DG2 read")
    t.close()


def test_pace(lib, cs, dump, mrz, c):
    from vpassport import pace
    from vpassport.pace_terminal import MRZ
    files = load_dump(dump)
    t = LibnfcTransport(lib, cs, "mi")
    r = Reader(t)
    data, sw = r.plain(0xB0, 0x9C, 0, ne=256)
    c.check(sw in (0x9000, 0x6282) and data.startswith(b"\x31"),
            "EF.CardAccess (plain, %d bytes)" % len(data), "%04X" % sw)
    t0 = time.monotonic()
    r.pace(pace.profile_from_options("gm", False), MRZ, mrz)
    c.check(True, "PACE GM ECDH through libnfc (%.0f ms)" % ((time.monotonic() - t0) * 1e3))
    read_all(r, files, c, "PACE")
    t.close()


SCENARIOS = {
    "normal": ([], test_normal),
    "no-extended": (["--no-extended-length"], test_no_extended),
    "drop": (["--drop-during", "DG2"], test_drop),
    "eject": ([], test_eject),
    "type-b": (["--pn532-type", "b"], test_type_b),
    "pace": (["--pace"], test_pace),
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dump")
    p.add_argument("mrz", help="MRZ information: docno+cd birth+cd expiry+cd")
    p.add_argument("--scenario", action="append", choices=list(SCENARIOS))
    args = p.parse_args()
    lib = load_libnfc()
    c = Checker()
    names = args.scenario or list(SCENARIOS)
    from vpassport import openpace
    if "pace" in names and not openpace.available():
        print("== pace skipped: OpenPACE (libeac3) is not installed")
        names.remove("pace")
    for name in names:
        opts, test = SCENARIOS[name]
        print("== %s" % name)
        cs = start(args.dump, *opts)
        try:
            test(lib, cs, args.dump, args.mrz, c)
        except (NfcError, SwError, AssertionError) as e:
            c.check(False, "%s: %s" % (name, e))
    launcher("stop", "--pn532")
    print("%d failure(s)" % c.failures)
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
