#!/usr/bin/python3
"""Smoke test: a small BAC/PACE reader that talks to the virtual passport via PC/SC.

  /usr/bin/python3 Tests/vpassport-selftest/smoke_client.py DUMP_DIR MRZ_INFO [--all]
                                                     [--scenario S] [--slot N]

MRZ_INFO is document number+check digit, birth date+cd, expiry date+cd, e.g.
C11T002JM496081222310314. Without --all it tests the card that is running
now (--scenario says which configuration it was started in); with --all it
starts the card itself (scripts/virtual-passport) in the normal,
--no-extended-length and --drop-during DG2 configurations and, when OpenPACE
is installed, with --pace: GM ECDH, --dh, --mapping im (ECDH and DH),
--mapping cam (only if DUMP_DIR has CardSecurity.bin, e.g. Fixtures/passport-pace)
and a wrong-CAN run with --no-bac. --slot N (default $VIRTUAL_PASSPORT_SLOT or 0)
picks the vpcd slot, for the card it starts and the reader it talks to.

The reader side (APDU encoding, SM wrapping of commands, unwrapping of
responses, AES-CBC/CMAC with pycryptodome) is written separately from the
chip's code; only the primitive crypto of bac.py is shared, and that is
checked against ICAO 9303-11 by selftest.py. PACE itself runs on OpenPACE's
terminal side (pace_terminal.py).
"""
import argparse
import os
import subprocess
import sys
import time

from testpaths import LAUNCHER  # first: it puts scripts/ on sys.path

from der import parse_tlvs, tlv, tlv_size
from vpassport import bac
from vpassport.dump import FILES, load_dump

AID = bytes.fromhex("A0000002471001")
MAX_SHORT_SM_READ = 231      # largest plaintext whose DO'87' response fits 256 bytes (3DES)
MAX_SHORT_SM_READ_AES = 223  # the same with AES (16-byte blocks)


class CardGone(Exception):
    pass


class SwError(Exception):
    def __init__(self, sw, what):
        super().__init__("%s: SW %04X" % (what, sw))
        self.sw = sw


def encode(cla, ins, p1, p2, data=b"", ne=None, extended=False):
    """ISO 7816-4 command APDU in short or extended form."""
    apdu = bytes([cla, ins, p1, p2])
    if extended:
        if data:
            apdu += b"\x00" + len(data).to_bytes(2, "big") + data
        if ne is not None:
            apdu += (b"" if data else b"\x00") + (ne % 65536).to_bytes(2, "big")
    else:
        if data:
            apdu += bytes([len(data)]) + data
        if ne is not None:
            apdu += bytes([ne % 256])
    return apdu


def slot_reader(slot=None):
    """PC/SC name of a vpcd slot (default: $VIRTUAL_PASSPORT_SLOT, else 0)."""
    if slot is None:
        slot = int(os.environ.get("VIRTUAL_PASSPORT_SLOT", "0"))
    return "Virtual PCD 00 %02d" % slot


class PcscTransport:
    def __init__(self, reader=None):
        from smartcard import scard
        self.scard = scard
        rv, self.ctx = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
        rv, readers = scard.SCardListReaders(self.ctx, [])
        self.reader = reader or slot_reader()
        if self.reader not in (readers or []):
            raise CardGone("no reader %r (readers: %s)" % (self.reader, readers))
        rv, self.card, proto = scard.SCardConnect(
            self.ctx, self.reader, scard.SCARD_SHARE_SHARED, scard.SCARD_PROTOCOL_T1)
        if rv != scard.SCARD_S_SUCCESS:
            raise CardGone("connect: " + scard.SCardGetErrorMessage(rv))
        rv, _, _, _, self.atr = scard.SCardStatus(self.card)

    def transmit(self, apdu):
        rv, resp = self.scard.SCardTransmit(self.card, self.scard.SCARD_PCI_T1, list(apdu))
        if rv != self.scard.SCARD_S_SUCCESS:
            raise CardGone("%08X %s" % (rv & 0xFFFFFFFF, self.scard.SCardGetErrorMessage(rv)))
        return bytes(resp)

    def status_after_error(self):
        rv = self.scard.SCardStatus(self.card)[0]
        return "%08X %s" % (rv & 0xFFFFFFFF, self.scard.SCardGetErrorMessage(rv))

    def close(self):
        self.scard.SCardDisconnect(self.card, self.scard.SCARD_RESET_CARD)
        self.scard.SCardReleaseContext(self.ctx)


class Reader:
    def __init__(self, transport):
        self.t = transport
        self.keys = None      # (KS_enc, KS_mac) after BAC or PACE
        self.ssc = 0
        self.cipher = "3DES"  # of the secure messaging: "3DES" (BAC) or "AES" (PACE)

    @property
    def block(self):
        return 16 if self.cipher == "AES" else 8

    @property
    def max_short_read(self):
        """Largest plaintext whose DO'87' response fits a short APDU (256 bytes)."""
        return MAX_SHORT_SM_READ if self.cipher == "3DES" else MAX_SHORT_SM_READ_AES

    def pace(self, profile, ref, password, **kw):
        """PACE through OpenPACE (pace_terminal.py); AES/3DES SM from then on.
        Returns the terminal's result dict; raises PaceFailed."""
        from pace_terminal import PaceTerminal
        result = PaceTerminal(self.t.transmit).run(profile, ref, password, **kw)
        self.keys = (result["ks_enc"], result["ks_mac"])
        self.cipher, self.ssc = result["cipher"], 0
        return result

    # secure messaging primitives, written for the reader side (pycryptodome)
    def _pad(self, data):
        data = data + b"\x80"
        return data + bytes(-len(data) % self.block)

    def _ssc_bytes(self):
        return self.ssc.to_bytes(self.block, "big")

    def _encrypt(self, data):
        if self.cipher == "3DES":
            return bac.enc(self.keys[0], self._pad(data))
        from Cryptodome.Cipher import AES
        iv = AES.new(self.keys[0], AES.MODE_ECB).encrypt(self._ssc_bytes())
        return AES.new(self.keys[0], AES.MODE_CBC, iv=iv).encrypt(self._pad(data))

    def _decrypt(self, data):
        if self.cipher == "3DES":
            return bac.unpad(bac.dec(self.keys[0], data))
        from Cryptodome.Cipher import AES
        iv = AES.new(self.keys[0], AES.MODE_ECB).encrypt(self._ssc_bytes())
        plain = AES.new(self.keys[0], AES.MODE_CBC, iv=iv).decrypt(data)
        stripped = plain.rstrip(b"\x00")
        if not stripped.endswith(b"\x80") or len(plain) - len(stripped) >= 16:
            raise ValueError("bad padding in an AES response")
        return stripped[:-1]

    def _mac(self, data):
        """MAC over SSC || data (padded)."""
        if self.cipher == "3DES":
            return bac.retail_mac(self.keys[1], self._ssc_bytes() + data)
        from Cryptodome.Hash import CMAC
        from Cryptodome.Cipher import AES
        c = CMAC.new(self.keys[1], ciphermod=AES)
        c.update(self._ssc_bytes() + self._pad(data))
        return c.digest()[:8]

    def plain(self, ins, p1, p2, data=b"", ne=None, extended=False, cla=0):
        resp = self.t.transmit(encode(cla, ins, p1, p2, data, ne, extended))
        return resp[:-2], int.from_bytes(resp[-2:], "big")

    def bac(self, mrz_info):
        """BAC as the IFD (9303-11 section 4.3); returns the SW of MUTUAL AUTH."""
        k_enc, k_mac = bac.bac_keys_from_seed(bac.k_seed(mrz_info))
        rnd_icc, sw = self.plain(0x84, 0, 0, ne=8)
        if sw != 0x9000:
            return sw
        rnd_ifd, k_ifd = os.urandom(8), os.urandom(16)
        e_ifd = bac.enc(k_enc, rnd_ifd + rnd_icc + k_ifd)
        resp, sw = self.plain(0x82, 0, 0, e_ifd + bac.retail_mac(k_mac, e_ifd), ne=40)
        if sw != 0x9000:
            return sw
        if bac.retail_mac(k_mac, resp[:32]) != resp[32:]:
            raise AssertionError("M_ICC wrong")
        r = bac.dec(k_enc, resp[:32])
        if r[:8] != rnd_icc or r[8:16] != rnd_ifd:
            raise AssertionError("chip did not echo the nonces")
        self.keys = bac.session_keys(k_ifd, r[16:])
        self.ssc = bac.initial_ssc(rnd_icc, rnd_ifd)
        self.cipher = "3DES"
        return sw

    def _next_ssc(self):
        self.ssc = (self.ssc + 1) % (1 << (8 * self.block))

    def protect(self, ins, p1, p2, data=b"", ne=None, extended=False, tamper=False, cla=0x0C):
        """cla 0C, or 1C for a command of a chain (ISO/IEC 7816-4 command chaining)."""
        self._next_ssc()
        dos = b""
        if data:
            crypt = self._encrypt(data)
            dos += tlv(0x85, crypt) if ins & 1 else tlv(0x87, b"\x01" + crypt)
        if ne is not None:
            dos += tlv(0x97, (ne % (65536 if extended else 256)).to_bytes(
                2 if extended else 1, "big"))
        mac = self._mac(self._pad(bytes([cla, ins, p1, p2])) + dos)
        if tamper:
            mac = bytes([mac[0] ^ 1]) + mac[1:]
        return encode(cla, ins, p1, p2, dos + tlv(0x8E, mac),
                      65536 if extended else 256, extended)

    def sm(self, ins, p1, p2, data=b"", ne=None, extended=False, tamper=False, cla=0x0C):
        """Send a protected command; returns (plain data, SW). A response
        without SM objects means the chip aborted SM: returned as is."""
        resp = self.t.transmit(self.protect(ins, p1, p2, data, ne, extended, tamper, cla))
        body, sw = resp[:-2], int.from_bytes(resp[-2:], "big")
        self._next_ssc()
        if not body:
            self.keys = None
            return None, sw
        dos = parse_tlvs(body)
        tags = [t for t, _, _ in dos]
        assert tags[-1] == 0x8E and 0x99 in tags, "response DOs %s" % tags
        covered = b"".join(raw for t, _, raw in dos if t != 0x8E)
        assert self._mac(covered) == dos[-1][1], "response MAC"
        values = {t: v for t, v, _ in dos}
        assert int.from_bytes(values[0x99], "big") == sw, "DO'99' differs from SW"
        data = b""
        if 0x87 in values:
            assert values[0x87][0] == 1
            data = self._decrypt(values[0x87][1:])
        elif 0x85 in values:
            data = self._decrypt(values[0x85])
        return data, sw

    def select_ef(self, fid):
        data, sw = self.sm(0xA4, 0x02, 0x0C, fid.to_bytes(2, "big"))
        return sw

    def read_short(self, fid, sfi):
        """Select by reading the first chunk with the SFI, then B0 (or B1
        beyond 32767) in chunks of max_short_read."""
        out, sw = self.sm(0xB0, 0x80 | sfi, 0, ne=4)
        if sw != 0x9000:
            raise SwError(sw, "READ BINARY SFI %02X" % sfi)
        total = 4 + tlv_total(out)
        while len(out) < total:
            off = len(out)
            if off <= 0x7FFF:
                n = min(self.max_short_read, total - off)
                chunk, sw = self.sm(0xB0, off >> 8, off & 0xFF, ne=n)
            else:   # Le counts the DO'53' header too
                n = min(self.max_short_read - 3, total - off)
                chunk, sw = self.sm(0xB1, 0, 0, tlv(0x54, off.to_bytes(3, "big")),
                                    ne=tlv_size(0x53, n))
                chunk = parse_tlvs(chunk)[0][1] if chunk else b""
            if sw != 0x9000:
                raise SwError(sw, "READ BINARY %04X at %d" % (fid, off))
            out += chunk
        return out

    def read_extended(self, fid):
        """SELECT by FID, then one extended READ BINARY with Le = 0000."""
        sw = self.select_ef(fid)
        if sw != 0x9000:
            raise SwError(sw, "SELECT %04X" % fid)
        data, sw = self.sm(0xB0, 0, 0, ne=65536, extended=True)
        if sw not in (0x9000, 0x6282):
            raise SwError(sw, "extended READ BINARY %04X" % fid)
        return data

    def read_odd(self, fid, offset, ne, extended=True):
        data, sw = self.sm(0xB1, fid >> 8, fid & 0xFF, tlv(0x54, offset.to_bytes(3, "big")),
                           ne=ne, extended=extended)
        return (parse_tlvs(data)[0][1] if data else b""), sw


def tlv_total(head):
    """Length of the value of the outer TLV from its first 4 bytes (tag 1 byte)."""
    b = head[1]
    if b < 0x80:
        return b - 2
    n = b & 0x7F
    return int.from_bytes(head[2:2 + n], "big") + n - 2


class Checker:
    def __init__(self):
        self.failures = 0

    def check(self, ok, what, detail=""):
        print("  %s %s%s" % ("ok  " if ok else "FAIL", what, (" (%s)" % detail) if detail else ""))
        self.failures += 0 if ok else 1


def wrong_mrz(mrz):
    c = "1" if mrz[0] != "1" else "2"
    return c + mrz[1:]


def test_normal(dump, mrz, c):
    files = load_dump(dump)
    t = PcscTransport()
    print("reader %r, ATR %s" % (t.reader, bytes(t.atr).hex().upper()))
    r = Reader(t)
    _, sw = r.plain(0xA4, 0x00, 0x0C)
    c.check(sw == 0x9000, "SELECT MF", "%04X" % sw)
    if "CardAccess" in files:
        data, sw = r.plain(0xB0, 0x9C, 0, ne=256)
        c.check(data == files["CardAccess"], "CardAccess read without BAC", "%04X" % sw)
    _, sw = r.plain(0xA4, 0x04, 0x0C, AID)
    c.check(sw == 0x9000, "SELECT eMRTD application", "%04X" % sw)
    _, sw = r.plain(0xA4, 0x02, 0x0C, b"\x01\x1E")
    c.check(sw == 0x6982, "SELECT EF.COM before BAC -> 6982", "%04X" % sw)
    _, sw = r.plain(0xB0, 0x81, 0, ne=4)
    c.check(sw == 0x6982, "READ BINARY DG1 (SFI) before BAC -> 6982", "%04X" % sw)
    sw = r.bac(wrong_mrz(mrz))
    c.check(sw == 0x6300, "BAC with a wrong MRZ -> 6300", "%04X" % sw)
    _, sw = r.plain(0x82, 0, 0, bytes(40), ne=40)
    c.check(sw == 0x6985, "MUTUAL AUTH without a fresh challenge -> 6985", "%04X" % sw)
    sw = r.bac(mrz)
    c.check(sw == 0x9000, "BAC with the right MRZ", "%04X" % sw)

    for name in ["COM"] + ["DG%d" % n for n in range(1, 17)] + ["SOD"]:
        fid, sfi, _ = FILES[name]
        if name not in files:
            if name == "DG5":
                sw = r.select_ef(fid)
                c.check(sw == 0x6A82, "absent DG5 -> 6A82 under SM", "%04X" % sw)
            continue
        t0 = time.monotonic()
        short = r.read_short(fid, sfi)
        t1 = time.monotonic()
        ext = r.read_extended(fid)
        t2 = time.monotonic()
        c.check(short == files[name] and ext == files[name],
                "%s: %d bytes, short reads %.2fs, one extended read %.2fs" %
                (name, len(files[name]), t1 - t0, t2 - t1))

    big = max(files, key=lambda n: len(files[n]) if n in FILES and not FILES[n][2] else -1)
    fid, size = FILES[big][0], len(files[big])
    r.select_ef(fid)
    data, sw = r.sm(0xB0, 0, 0, ne=MAX_SHORT_SM_READ)
    c.check(sw == 0x9000 and len(data) == MAX_SHORT_SM_READ, "short read of 231 bytes fits")
    data, sw = r.sm(0xB0, 0, 0, ne=MAX_SHORT_SM_READ + 1)
    c.check(sw == 0x6700 and r.keys, "short read of 232 bytes -> 6700, session kept", "%04X" % sw)
    off = size - 10
    data, sw = r.sm(0xB0, off >> 8, off & 0xFF, ne=20)
    c.check(sw == 0x6282 and data == files[big][off:], "Le beyond the end -> last 10 bytes + 6282",
            "%04X" % sw)
    data, sw = r.sm(0xB0, size >> 8, size & 0xFF, ne=1)
    c.check(sw == 0x6B00, "offset = file size -> 6B00", "%04X" % sw)
    data, sw = r.read_odd(fid, size - 100, 0x1000)
    c.check(sw == 0x6282 and data == files[big][-100:], "B1 (DO'54'/DO'53') tail + 6282", "%04X" % sw)
    data, sw = r.read_odd(fid, 40000, 16)
    c.check(sw == 0x6B00, "B1 offset 40000 > size -> 6B00", "%04X" % sw)
    data, sw = r.read_odd(0, 300, 0x80)
    c.check(sw == 0x9000 and data == files[big][300:300 + 0x80 - 2], "B1 on the current EF, Le 80",
            "%04X" % sw)

    data, sw = r.sm(0xB0, 0, 0, ne=8, tamper=True)
    c.check(data is None and sw == 0x6988, "wrong command MAC -> plain 6988", "%04X" % sw)
    r.keys = r.keys or (b"\x01" * 8 + b"\x02" * 8,) * 2     # pretend we still have keys
    data, sw = r.sm(0xB0, 0, 0, ne=8)
    c.check(data is None and sw == 0x6988, "session ended: next protected command -> 6988",
            "%04X" % sw)
    sw = r.bac(mrz)
    c.check(sw == 0x9000, "BAC again after the session ended", "%04X" % sw)
    _, sw = r.plain(0xB0, 0x9E, 0, ne=4)
    c.check(sw == 0x6988, "plain READ BINARY during SM -> 6988", "%04X" % sw)
    r.bac(mrz)
    data, sw = r.sm(0xA4, 0x02, 0x0C, b"\x01\x1E", ne=None)
    resp = r.t.transmit(bytes.fromhex("0CB0000003970104"))          # DO'8E' missing
    c.check(resp == b"\x69\x87", "protected command without DO'8E' -> 6987", resp.hex())
    t.close()


def test_no_extended(dump, mrz, c):
    files = load_dump(dump)
    t = PcscTransport()
    r = Reader(t)
    hist = bytes(t.atr)
    c.check(b"\x73\x94\x01\x00" in hist, "ATR card capabilities without extended Lc/Le",
            hist.hex().upper())
    r.plain(0xA4, 0x04, 0x0C, AID)
    _, sw = r.plain(0xA4, 0x02, 0x0C, b"\x01\x1E", ne=None, extended=True)
    c.check(sw == 0x6700, "extended plain APDU -> 6700", "%04X" % sw)
    r.bac(mrz)
    r.select_ef(0x011E)
    data, sw = r.sm(0xB0, 0, 0, ne=65536, extended=True)
    c.check(data is None and sw == 0x6700, "extended protected READ BINARY -> plain 6700",
            "%04X" % sw)
    r.bac(mrz)
    got = r.read_short(0x011E, 0x1E)
    c.check(got == files["COM"], "short reads still work after BAC again")
    t.close()


def test_drop(dump, mrz, c):
    t = PcscTransport()
    r = Reader(t)
    r.plain(0xA4, 0x04, 0x0C, AID)
    r.bac(mrz)
    try:
        r.read_short(0x0102, 0x02)
        c.check(False, "card vanished while reading DG2")
    except CardGone as e:
        c.check(True, "card vanished while reading DG2", str(e))
        t0 = time.monotonic()
        while "REMOVED" not in t.status_after_error().upper() and time.monotonic() - t0 < 2:
            time.sleep(0.05)
        c.check("REMOVED" in t.status_after_error().upper(),
                "pcscd reports the card removed after %.2fs" % (time.monotonic() - t0),
                t.status_after_error())
    out = subprocess.run([LAUNCHER, "status"], capture_output=True, text=True)
    c.check(out.returncode == 1, "virtual-passport status: card not running")


PACE_SCENARIOS = {                 # name: (launcher options, mapping, dh)
    "pace-gm": (["--pace"], "gm", False),
    "pace-dh": (["--pace", "--dh"], "gm", True),
    "pace-im": (["--pace", "--mapping", "im"], "im", False),
    "pace-im-dh": (["--pace", "--mapping", "im", "--dh"], "im", True),
    "pace-cam": (["--pace", "--mapping", "cam"], "cam", False),
    "pace-wrong-can": (["--pace", "--can", "314159", "--no-bac"], "gm", False),
}


def read_all(r, files, c, label):
    """SELECT the application under SM and read every LDS file twice."""
    _, sw = r.sm(0xA4, 0x04, 0x0C, AID)
    c.check(sw == 0x9000, "%s: SELECT eMRTD application under SM" % label, "%04X" % sw)
    ok, names = True, []
    t0 = time.monotonic()
    for name in ["COM"] + ["DG%d" % n for n in range(1, 17)] + ["SOD"]:
        fid, sfi, _ = FILES[name]
        if name not in files:
            continue
        names.append(name)
        try:
            ok = ok and r.read_short(fid, sfi) == files[name] and r.read_extended(fid) == files[name]
        except (SwError, AssertionError) as e:
            ok = False
            print("    %s: %s" % (name, e))
    c.check(ok, "%s: %s read (short and extended) = dump, %.2fs" %
            (label, " ".join(names), time.monotonic() - t0))


def test_pace(dump, mrz, c, scenario):
    from vpassport import pace
    from pace_terminal import CAN, MRZ, PaceFailed, PaceTerminal
    opts, mapping, dh = PACE_SCENARIOS[scenario]
    expected = pace.profile_from_options(mapping, dh)
    files = load_dump(dump)
    t = PcscTransport()
    r = Reader(t)
    data, sw = r.plain(0xB0, 0x9C, 0, ne=256)
    infos = pace.pace_infos(data) if sw in (0x9000, 0x6282) else []
    c.check(infos == [(expected.oid, expected.parameter_id)],
            "EF.CardAccess (plain, SFI 1C) offers %s" % expected, data.hex().upper())
    _, sw = r.plain(0xB0, 0x9D, 0, ne=4)
    c.check(sw == 0x6982, "EF.CardSecurity before PACE -> 6982", "%04X" % sw)
    _, sw = r.plain(0xA4, 0x02, 0x0C, b"\x01\x1E")
    c.check(sw == 0x6982, "SELECT EF.COM before authentication -> 6982", "%04X" % sw)
    profile = pace.Profile(*infos[0]) if infos else expected
    ca_point = pace.ca_public_key(files["CardSecurity"]) if "CardSecurity" in files else None

    if scenario == "pace-wrong-can":
        term = PaceTerminal(t.transmit)
        sws = []
        for _ in range(4):
            try:
                term.run(profile, CAN, "123456")
                sws.append(0x9000)
            except PaceFailed as e:
                sws.append(e.sw)
        c.check(sws == [0x63C2, 0x63C1, 0x63C0, 0x6983],
                "wrong CAN four times: " + " ".join("%04X" % s for s in sws))
        try:
            term.run(profile, CAN, "314159")
            c.check(False, "right CAN after the block")
        except PaceFailed as e:
            c.check(e.sw == 0x6983, "right CAN once blocked -> 6983 at MSE:Set AT", str(e))
        r.plain(0xA4, 0x04, 0x0C, AID)
        sw = r.bac(mrz)
        c.check(sw == 0x6985, "--no-bac: BAC -> 6985 (MUTUAL AUTHENTICATE)", "%04X" % sw)
        try:
            r.pace(profile, MRZ, mrz)
            c.check(True, "PACE with the MRZ still works (own retry counter)")
            read_all(r, files, c, "after PACE-MRZ")
        except PaceFailed as e:
            c.check(False, "PACE with the MRZ", str(e))
        t.close()
        return

    for ref, password, with_84 in ((MRZ, mrz, False), (CAN, "123456", True)):
        label = "PACE %s %s" % ("MRZ" if ref == MRZ else "CAN",
                                "with DO'84'" if with_84 else "without DO'84'")
        t0 = time.monotonic()
        try:
            result = r.pace(profile, ref, password, ca_public_key=ca_point,
                            send_parameter_id=with_84)
        except PaceFailed as e:
            c.check(False, label, str(e))
            continue
        c.check(True, "%s: %s in %.3fs" % (label, profile.name, time.monotonic() - t0))
        if mapping == "cam":
            c.check(result.get("cam_verified") is True,
                    "PACE-CAM: PK_Map,IC = CA_IC * PK_IC (PK_IC from EF.CardSecurity)")
        if "CardSecurity" in files:
            got = r.read_short(0x011D, 0x1D)
            c.check(got == files["CardSecurity"], "EF.CardSecurity under SM (MF, SFI 1D)")
        if ref == MRZ:
            read_all(r, files, c, label)
            data, sw = r.sm(0xB0, 0, 0, ne=MAX_SHORT_SM_READ_AES)
            c.check(sw == 0x9000 and len(data) == MAX_SHORT_SM_READ_AES,
                    "short read of %d bytes fits (AES)" % MAX_SHORT_SM_READ_AES, "%04X" % sw)
            data, sw = r.sm(0xB0, 0, 0, ne=MAX_SHORT_SM_READ_AES + 1)
            c.check(sw == 0x6700 and r.keys, "short read of %d bytes -> 6700, session kept" %
                    (MAX_SHORT_SM_READ_AES + 1), "%04X" % sw)
            data, sw = r.sm(0xB0, 0, 0, ne=8, tamper=True)
            c.check(data is None and sw == 0x6988, "wrong command MAC -> plain 6988", "%04X" % sw)
        else:
            _, sw = r.sm(0xA4, 0x04, 0x0C, AID)
            got = r.read_short(0x011E, 0x1E)
            c.check(sw == 0x9000 and got == files["COM"], "%s: EF.COM" % label)
    if scenario == "pace-gm":
        r.plain(0xA4, 0x04, 0x0C, AID)
        sw = r.bac(mrz)
        c.check(sw == 0x9000, "BAC still works next to PACE", "%04X" % sw)
        c.check(r.read_short(0x0101, 1) == files["DG1"], "DG1 under BAC")
    t.close()


def launcher(*args):
    t0 = time.monotonic()
    p = subprocess.run([LAUNCHER, *args], capture_output=True, text=True)
    dt = time.monotonic() - t0
    print("$ virtual-passport %s -> rc %d in %.2fs: %s" % (
        " ".join(args), p.returncode, dt, (p.stdout + p.stderr).strip()))
    if p.returncode:
        raise SystemExit("launcher failed")
    return dt


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dump")
    p.add_argument("mrz", help="MRZ information: docno+cd birth+cd expiry+cd")
    p.add_argument("--all", action="store_true", help="start the card for each scenario")
    p.add_argument("--scenario", choices=["normal", "no-extended", "drop"] + list(PACE_SCENARIOS),
                   default="normal")
    p.add_argument("--slot", type=int, help="vpcd slot (default $VIRTUAL_PASSPORT_SLOT or 0)")
    args = p.parse_args()
    if args.slot is not None:
        os.environ["VIRTUAL_PASSPORT_SLOT"] = str(args.slot)   # the launcher reads it too
    c = Checker()
    scenarios = [("normal", []), ("no-extended", ["--no-extended-length"]),
                 ("drop", ["--drop-during", "DG2"])]
    from vpassport import openpace
    has_card_security = "CardSecurity" in load_dump(args.dump)
    if openpace.available():
        for name, (opts, mapping, _) in PACE_SCENARIOS.items():
            if mapping == "cam" and not has_card_security and args.all:
                print("== %s skipped: %s has no CardSecurity.bin" % (name, args.dump))
                continue
            scenarios.append((name, opts))
    elif args.all:
        print("== PACE scenarios skipped: OpenPACE (libeac3) is not installed")
    for name, opts in scenarios:
        if not args.all and name != args.scenario:
            continue
        print("== %s" % name)
        if args.all:
            launcher("start", args.dump, *opts)
        if name.startswith("pace-"):
            test_pace(args.dump, args.mrz, c, name)
        else:
            {"normal": test_normal, "no-extended": test_no_extended, "drop": test_drop}[name](
                args.dump, args.mrz, c)
    if args.all:
        launcher("stop")
    print("%d failure(s)" % c.failures)
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
