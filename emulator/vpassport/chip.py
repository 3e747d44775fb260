"""The emulated eMRTD chip: file system, BAC, PACE (pace.py), secure messaging,
Active Authentication (aa.py), Chip Authentication (ca.py) and Terminal
Authentication with EAC-protected DG3/DG4 (ta.py).

Behaviour choices (status words a reader sees) are listed in README.md next to
this file; the comments below say why each one was picked.
"""
import logging
import os
import time

from der import parse_tlvs, tlv, tlv_size

from . import bac
from .apdu import ChipError, Command, parse_command
from .dump import FILES, mrz_information
from .faults import FILLER, SM_RESPONSE_KINDS, Fault, Faults
from .libvsc import Iso7816OS, SmartcardOS
from .quirks import ATR_INFO, ATR_INFO_FID, ATR_INFO_SFI, Quirks, atr_info_response_limit
from .sm import BacSession

log = logging.getLogger("vpassport.chip")

EMRTD_AID = bytes.fromhex("A0000002471001")
MF_FID = 0x3F00
# Largest response the vpcd socket framing can carry (16-bit length incl. SW).
VPCD_MAX_RESPONSE_DATA = 0xFFFF - 2


class CardDropped(Exception):
    """Raised to make the card vanish in the middle of a command."""


class InjectedStatus(Exception):
    """--fault status:SW: answer this bare status word (no SM objects)."""

    def __init__(self, sw):
        super().__init__("%04X" % sw)
        self.sw = sw


class UncountedStatus(Exception):
    """--quirk sfi-plain: a bare status word the chip does not count in its SSC."""

    def __init__(self, sw):
        super().__init__("%04X" % sw)
        self.sw = sw


class PlainSession:
    """No secure messaging (a chip without access control): what chip and active
    authentication ask of a session."""
    kind = "none"
    chip_authenticated = False


def sw_bytes(sw):
    return sw.to_bytes(2, "big")


SmSession = BacSession                      # the name older code used


class EmrtdOS(SmartcardOS):
    """ISO 7816-4 / ICAO 9303 chip OS serving the files of a dump folder."""

    def __init__(self, files, extended_length=True, drop_during=None,
                 verbose=False, pace=None, bac_enabled=True, aa=None, ca=None, faults=(),
                 quirks=None, ta=None, mrz_info=None):
        self.quirks = quirks or Quirks()        # quirks.py: field behaviours (--quirk)
        self.files = self.quirks.apply_to_files(files)   # {logical name: bytes}, as served
        self.extended_length = extended_length
        # atr-info: a chip answers no more than its EF.ATR/INFO says (else 6700, as below).
        self.response_limit = atr_info_response_limit(self.quirks["atr-info"]) if "atr-info" in self.quirks else None
        if "runtime-6700" in self.quirks and not extended_length:
            raise ValueError("--quirk runtime-6700 needs extended length claimed in the ATR "
                             "(drop --no-extended-length)")
        if "pace-refused" in self.quirks and pace is None:
            raise ValueError("--quirk pace-refused needs --pace")
        if "pace-refused" in self.quirks and self.quirks["pace-refused"][1] == "ga":
            pace.refuse = self.quirks["pace-refused"][0]
        self.get_response = None                # aa-get-response: (bytes waiting, final SW)
        self.locked = False                     # sticky-auth: set by a failed protocol
        # --drop-during FILE is --fault drop@FILE (armed first).
        armed = [Fault("drop@" + drop_during, "drop", drop_during, ">0", 1)] if drop_during else []
        self.faults = Faults(armed + list(faults))   # faults.py; chip side in _fault_point
        self.pending_fault = None               # fired by the command being executed
        self.last_sm_response = None            # for --fault replay@…: the last protected response sent
        self.verbose = verbose
        self.pace = pace                        # pace.PaceChip or None (no PACE)
        self.bac_enabled = bac_enabled
        self.aa = aa                            # aa.ActiveAuthentication or None (INS 88: 6D00)
        self.ca = ca                            # ca.ChipAuthentication or None
        self.ta = ta                            # ta.TerminalAuthentication or None (no EF.CVCA)
        self.next_session = None                # CA: keys for the commands after this one
        self.random = os.urandom                # replaced by the self-test
        self.mrz_info = mrz_info or mrz_information(files["DG1"])   # mrz_info: --mrz-key
        self.k_enc, self.k_mac = bac.bac_keys_from_seed(bac.k_seed(self.mrz_info))
        if verbose:
            log.info("MRZ information %s, K_enc %s, K_mac %s", self.mrz_info,
                     self.k_enc.hex(), self.k_mac.hex())
        # Card capabilities (ISO 7816-4 8.1.1.2.7): selection by full DF name,
        # by file identifier and by short EF identifier (0x94); data unit of
        # one byte (0x01); third table says whether extended Lc/Le work.
        tsft = Iso7816OS.makeThirdSoftwareFunctionTable(extendedLe=extended_length)
        caps = bytes([0x94, 0x01]) + tsft
        self.atr = Iso7816OS.makeATR(T=1, directConvention=True, TA1=0x13,
                                     histChars=bytes([0x80, 0x70 + len(caps)]) + caps)
        self.reset()

    # --- SmartcardOS interface --------------------------------------------
    def getATR(self):
        return self.atr

    def powerUp(self):
        self.reset()

    def powerDown(self):
        self.reset()

    def reset(self):
        """Power cycle or reset: every security state is lost, MF is current."""
        self.app_selected = False
        self.locked = False                     # only a reset clears sticky-auth
        self.get_response = None
        self.chain_data = None                  # ((INS, P1, P2), data) of a command chain
        self.current_ef = None                  # logical name
        self.challenge = None
        self.session = None
        self.next_session = None
        if self.pace is not None:
            self.pace.reset()                   # a PACE run in progress is lost
        if self.ca is not None:
            self.ca.reset()
        if self.ta is not None:
            self.ta.reset()

    def execute(self, msg):
        self.pending_fault = None
        try:
            return self._execute(bytes(msg))
        except CardDropped:
            raise
        except Exception:                       # never kill the card on a bug
            log.exception("internal error")
            self._end_session("internal error")
            return sw_bytes(0x6F00)

    # --- dispatch ------------------------------------------------------------
    def _execute(self, raw):
        try:
            cmd = parse_command(raw)
        except ChipError as e:
            # Undecodable APDU: the MAC cannot even be located, so an SM
            # session ends like on any other SM error.
            log.info("malformed APDU %s: %04X", raw[:5].hex(), e.sw)
            self._end_session("malformed APDU")
            return sw_bytes(e.sw)
        if cmd.extended and "runtime-6700" in self.quirks:
            # The card runtime (below the application) refuses it: no SM state changes.
            log.info("--quirk runtime-6700: extended-length APDU answered 6700 by the runtime: %r", cmd)
            return sw_bytes(0x6700)
        if self.get_response is not None:
            if cmd.cla == 0 and cmd.ins == 0xC0:
                return self._give_response(cmd)
            self.get_response = None            # another command: what waited is lost
        if cmd.extended and not self.extended_length:
            # Refused before any SM processing (SSC untouched); the session is
            # ended so the reader cannot go on with a desynchronised SSC.
            log.info("extended-length APDU refused: %r", cmd)
            self._end_session("extended length refused")
            return sw_bytes(0x6700)
        if self.session is None:
            return self._execute_plain(cmd)
        if cmd.cla == 0x0C or (cmd.cla == 0x1C and self.ta is not None):
            return self._execute_protected(cmd)
        if self._is_select_emrtd(cmd):
            # Re-selecting the application in plain is how a reader restarts
            # (a Java Card re-selects the applet); it ends the session.
            self._end_session("plain SELECT of the eMRTD application")
            return self._execute_plain(cmd)
        if self.pace is not None and cmd.cla == 0 and cmd.ins == 0x22 \
                and (cmd.p1, cmd.p2) == (0xC1, 0xA4):
            # Likewise a plain MSE:Set AT starts PACE afresh.
            self._end_session("plain MSE:Set AT")
            return self._execute_plain(cmd)
        log.info("plain or unsupported-CLA command during SM: %r", cmd)
        self._end_session("unprotected command")
        return sw_bytes(0x6988)

    def _execute_plain(self, cmd):
        if cmd.cla & 0x0C:
            sw = 0x6988                         # SM without a session
        elif cmd.cla == 0x10 and self.pace is not None and cmd.ins != 0x86:
            sw = 0x6884                         # chaining only for GENERAL AUTHENTICATE
        elif cmd.cla != 0x00 and not (cmd.cla == 0x10 and self.pace is not None):
            sw = 0x6E00                         # class not supported
        else:
            try:
                sw, data = self._dispatch(cmd)
                if cmd.ne is None:
                    data = b""                  # case 1/3: no data may come back
                elif self._fault_is("extra"):
                    data = data[:VPCD_MAX_RESPONSE_DATA]    # more than Ne, on purpose
                elif len(data) > min(cmd.ne, VPCD_MAX_RESPONSE_DATA):
                    sw, data = 0x6700, b""
                log.info("%s -> %04X (%d bytes)", self._describe(cmd), sw, len(data))
                if self.next_session is not None and sw == 0x9000:
                    # Chip Authentication in plain (a chip without access control): secure
                    # messaging starts with its keys from the next command on.
                    self.session = self.next_session
                self.next_session = None
                return data + sw_bytes(sw)
            except ChipError as e:
                sw = e.sw
                if cmd.ins in (0x82, 0x86, 0x22):
                    self._lock("%s failed" % self._describe(cmd))
            except InjectedStatus as e:
                sw = e.sw
        log.info("%s -> %04X", self._describe(cmd), sw)
        return sw_bytes(sw)

    def _lock(self, why):
        """sticky-auth: a failed protocol leaves the chip refusing new ones until reset."""
        if "sticky-auth" in self.quirks and not self.locked:
            self.locked = True
            log.info("--quirk sticky-auth: %s; GET CHALLENGE and MSE:Set AT refused until reset", why)

    def _give_response(self, cmd):
        """aa-get-response: the next part of the response that waits, 61xx while more remains."""
        waiting, sw = self.get_response
        part, rest = waiting[:cmd.ne or 256], waiting[cmd.ne or 256:]
        if rest:
            self.get_response = (rest, sw)
            log.info("GET RESPONSE -> %d bytes, 61%02X", len(part), min(len(rest), 256) & 0xFF)
            return part + bytes([0x61, min(len(rest), 256) & 0xFF])
        self.get_response = None
        log.info("GET RESPONSE -> %d bytes, %04X", len(part), sw)
        return part + sw_bytes(sw)

    def _dispatch(self, cmd):
        handler = {0xA4: self._select, 0xB0: self._read_binary,
                   0xB1: self._read_binary_odd, 0x84: self._get_challenge,
                   0x82: self._mutual_authenticate}.get(cmd.ins)
        if cmd.ins == 0x88 and self.aa is not None:
            handler = self._internal_authenticate
        if self._is_terminal_authentication(cmd):
            if cmd.ins == 0x2A and "ta-trust-point-refused" in self.quirks:
                self._refuse_own_trust_point(cmd)
            return {0x22: self.ta.mse, 0x2A: self.ta.verify_certificate,
                    0x82: self.ta.external_authenticate}[cmd.ins](cmd, self.session)
        if cmd.ins in (0x22, 0x86) and self._is_chip_authentication(cmd):
            handler = self._chip_authentication
        elif self.pace is not None and cmd.ins in (0x22, 0x86):
            if self.session is not None:
                raise ChipError(0x6985, "PACE under secure messaging")
            handler = {0x22: self._pace_mse_set_at, 0x86: self._general_authenticate}[cmd.ins]
        if handler is None:
            raise ChipError(0x6D00, "instruction not supported")
        return handler(cmd)

    def _ta_challenge_of_quirk(self):
        """--quirk ta-challenge-length:N: r_PICC of N bytes instead of 8."""
        n = self.quirks["ta-challenge-length"]
        log.info("--quirk ta-challenge-length: a %d-byte challenge under secure messaging", n)
        return self.random(n)

    def _refuse_own_trust_point(self, cmd):
        """--quirk ta-trust-point-refused: a certificate whose CHR is a trust point is not
        verified again."""
        from .ta import Certificate
        try:
            chr_ = Certificate(tlv(0x7F21, cmd.data)).chr
        except ValueError:
            return                              # malformed: the TA code refuses it
        if chr_ in self.ta.trust_points:
            raise ChipError(self.quirks["ta-trust-point-refused"],
                            "--quirk ta-trust-point-refused: %s already is a trust point" % chr_)

    # --- secure messaging ------------------------------------------------------
    def _execute_protected(self, cmd):
        s = self.session
        try:
            inner = self._unwrap(cmd)
        except ChipError as e:
            sw = self.quirks["sm-error"] if "sm-error" in self.quirks else e.sw
            log.info("SM error %04X (%s)%s; session ended", sw, e.why,
                     " (--quirk sm-error)" if sw != e.sw else "")
            self._end_session(e.why)
            return sw_bytes(sw)
        self.next_session = None
        try:
            if self._chain(cmd, inner):
                sw, data = 0x9000, b""          # a part of a command chain, more to come
            else:
                sw, data = self._dispatch(inner)
        except ChipError as e:
            sw, data = e.sw, b""
            log.info("SM %s: %s", self._describe(inner), e.why)
            if inner.ins in (0x22, 0x86) and not self._is_terminal_authentication(inner):
                self._lock("chip authentication failed")
        except InjectedStatus as e:
            # A bare status word instead of a protected response. The session is
            # kept and the SSC counts it as a response, as a reader's does.
            s.next_ssc()
            log.info("SM %s -> %04X in plain (--fault)", self._describe(inner), e.sw)
            return sw_bytes(e.sw)
        except UncountedStatus as e:
            # The session goes on, but this answer is not counted: a terminal that counts it
            # is one step ahead of the chip from now on.
            log.info("SM %s -> %04X in plain, not counted (--quirk sfi-plain)", self._describe(inner), e.sw)
            return sw_bytes(e.sw)
        if inner.ne is None:
            data = b""                          # no DO'97': no data may come back
        if inner.ins == 0x88 and "aa-le" in self.quirks and inner.ne == 65536:
            log.info("--quirk aa-le: INTERNAL AUTHENTICATE with Le 0000 answered without data")
            data = b""
        odd = bool(inner.ins & 1)
        # The protected response must fit the response APDU size the command
        # allowed: 256 data bytes for a short APDU, vpcd's limit otherwise.
        # Data that does not fit is refused with 6700 (inside DO'99') instead
        # of being silently cut, so a reader asking too much notices it.
        limit = VPCD_MAX_RESPONSE_DATA if cmd.extended else 256
        if self.response_limit is not None:
            limit = min(limit, self.response_limit)
        if self._fault_is("extra"):
            # More than Ne on purpose: only vpcd's framing limits it.
            while data and self._wrapped_size(len(data), odd, s.block) > VPCD_MAX_RESPONSE_DATA:
                data = data[:-1]
        elif inner.ins == 0x88 and "aa-get-response" in self.quirks:
            pass                                # any size: it goes out by GET RESPONSE
        elif self._wrapped_size(len(data), odd, s.block) > limit:
            log.info("%s: %d bytes do not fit a %s response -> 6700",
                     self._describe(inner), len(data),
                     "extended" if cmd.extended else "short")
            sw, data = 0x6700, b""
        log.info("SM %s -> %04X (%d bytes)", self._describe(inner), sw, len(data))
        response = self._wrap(s, sw, data, odd)
        if self._fault_is("bad-mac"):
            # Last byte of DO'8E' (before the SW) flipped: the MAC no longer verifies.
            response = response[:-3] + bytes([response[-3] ^ 0x01]) + response[-2:]
            log.info("--fault %s: DO'8E' of this response corrupted", self.pending_fault.spec)
        elif self._fault_is("replay"):
            log.info("--fault %s: the previous protected response (%d bytes) sent again "
                     "instead", self.pending_fault.spec, len(self.last_sm_response))
            response = self.last_sm_response
        elif self.pending_fault is not None and self.pending_fault.kind in SM_RESPONSE_KINDS:
            response = self._corrupt_sm_response(s, response, odd)
        else:
            self.last_sm_response = response
        if inner.ins == 0x88 and "aa-get-response" in self.quirks and sw == 0x9000:
            self.get_response = (response[:-2], sw)
            size = len(response) - 2
            log.info("--quirk aa-get-response: %d bytes wait for GET RESPONSE", size)
            response = bytes([0x61, min(size, 256) & 0xFF])
        if self.next_session is not None and sw == 0x9000:
            # Chip Authentication: this response went out under the old keys,
            # everything from the next command on uses the new ones (SSC 0).
            self.session = self.next_session
            if self.ta is not None and "eac2" not in self.quirks:
                self.ta.reset()             # EAC version 2: TA came first and its rights stay
        self.next_session = None
        return response

    def _chain(self, cmd, inner):
        """ISO/IEC 7816-4 command chaining under secure messaging (CLA 1C … 0C), for
        PSO:Verify Certificate and EXTERNAL AUTHENTICATE only (a CVCA certificate, or an
        RSA terminal's signature, does not fit one short APDU).
        Each part is protected on its own; the plaintexts are joined. True when `cmd`
        is a part that only waits for the rest; a final part gets the joined data."""
        pending, self.chain_data = self.chain_data, None
        if cmd.cla == 0x1C:
            if inner.ins not in (0x2A, 0x82):
                raise ChipError(0x6884, "command chaining is supported for PSO:Verify Certificate and EXTERNAL AUTHENTICATE only")
            if pending is not None and pending[0] == (inner.ins, inner.p1, inner.p2):
                self.chain_data = (pending[0], pending[1] + inner.data)
            else:
                self.chain_data = ((inner.ins, inner.p1, inner.p2), inner.data)
            return True
        if pending is not None and pending[0] == (inner.ins, inner.p1, inner.p2):
            inner.data = pending[1] + inner.data
            log.info("command chain of %d bytes", len(inner.data))
        return False

    def _unwrap(self, cmd):
        """Check and decrypt a protected command (9303-11 section 9.8.4)."""
        s = self.session
        s.next_ssc()
        try:
            dos = parse_tlvs(cmd.data)
        except ValueError as e:
            raise ChipError(0x6988, "malformed SM data objects: %s" % e)
        tags = [t for t, _, _ in dos]
        if 0x8E not in tags:
            raise ChipError(0x6987, "no DO'8E'")
        # Order fixed by ICAO: [87 or 85] [97] 8E, each at most once.
        allowed = [0x85 if cmd.ins & 1 else 0x87, 0x97, 0x8E]
        positions = [allowed.index(t) if t in allowed else -1 for t in tags]
        if -1 in positions or positions != sorted(set(positions)) or tags[-1] != 0x8E:
            raise ChipError(0x6988, "unexpected SM data objects %s" %
                            " ".join("%02X" % t for t in tags))
        values = {t: v for t, v, _ in dos}
        covered = b"".join(r for t, _, r in dos if t != 0x8E)
        header = s.pad(bytes([cmd.cla, cmd.ins, cmd.p1, cmd.p2]))
        if len(values[0x8E]) != 8 or s.mac(header + covered) != values[0x8E]:
            raise ChipError(0x6988, "wrong MAC")
        data = b""
        for tag in (0x85, 0x87):
            if tag in values:
                crypt = values[tag]
                if tag == 0x87:
                    if crypt[:1] != b"\x01":
                        raise ChipError(0x6988, "DO'87' padding indicator")
                    crypt = crypt[1:]
                if not crypt or len(crypt) % s.block:
                    raise ChipError(0x6988, "cryptogram length")
                try:
                    data = s.decrypt(crypt)
                except ValueError:
                    raise ChipError(0x6988, "padding of the plain data")
        ne = None
        if 0x97 in values:
            le = values[0x97]
            if len(le) not in (1, 2):
                raise ChipError(0x6988, "DO'97' length")
            ne = int.from_bytes(le, "big") or (256 if len(le) == 1 else 65536)
        return Command(0x00, cmd.ins, cmd.p1, cmd.p2, data, ne, cmd.extended)

    @staticmethod
    def _wrapped_size(n, odd, block=8):
        size = 4 + 10                           # DO'99' + DO'8E'
        if n:
            size += tlv_size(0x85, (n // block + 1) * block + (0 if odd else 1))
        return size

    @staticmethod
    def _wrap(s, sw, data, odd):
        """Protected response: [DO'87'/DO'85'] DO'99' DO'8E' and the SW.

        The outer SW repeats the SW of DO'99' (9000, 6282, 6A82, ...).
        """
        s.next_ssc()                            # encryption IV (AES) and MAC use it
        body = b""
        if data:
            crypt = s.encrypt(data)
            body = tlv(0x85, crypt) if odd else tlv(0x87, b"\x01" + crypt)
        body += tlv(0x99, sw_bytes(sw))
        return body + tlv(0x8E, s.mac(body)) + sw_bytes(sw)

    def _end_session(self, why):
        if self.session is not None:
            log.info("secure messaging session ended: %s", why)
            self._lock("the session ended (%s)" % why)
        self.session = None
        self.current_ef = None
        self.chain_data = None
        if self.ca is not None:
            self.ca.reset()
        if self.ta is not None:
            self.ta.reset()

    # --- file system -------------------------------------------------------------
    @staticmethod
    def _is_select_emrtd(cmd):
        return cmd.cla == 0 and cmd.ins == 0xA4 and cmd.p1 == 0x04 \
            and cmd.data == EMRTD_AID

    def _resolve(self, fid=None, sfi=None):
        """Logical name of an EF of the current DF, by FID or SFI."""
        if "atr-info" in self.quirks and not self.app_selected and \
                (fid == ATR_INFO_FID or sfi == ATR_INFO_SFI):
            return ATR_INFO                     # --quirk atr-info: EF.ATR/INFO in the MF
        lds = (fid is not None and (0x0101 <= fid <= 0x0110 or fid in (0x011D, 0x011E))) \
            or (sfi is not None and (1 <= sfi <= 16 or sfi in (0x1D, 0x1E)))
        if "no-access-control" in self.quirks:
            lds = False                         # a plain chip: readable without BAC
        if self.app_selected and "CVCA" in self.files and (fid == 0x011C or sfi == 0x1C):
            lds = True                          # EF.CVCA: an LDS file of the application
        if lds and self.session is None:
            # 6982 even for absent DGs and from the MF: nothing about the
            # contents leaks before authentication.
            raise ChipError(0x6982, "LDS file needs BAC")
        for name, (f, s, in_mf) in FILES.items():
            if in_mf == self.app_selected:
                continue                        # other DF
            if name == "CardSecurity" and self.pace is None:
                continue                        # only served by a PACE chip
            if (fid is not None and f == fid) or (sfi is not None and s == sfi):
                if name == "CardAccess" and "no-card-access" in self.quirks:
                    raise ChipError(self.quirks["no-card-access"], "--quirk no-card-access")
                if name in self.files:
                    if name == "CardSecurity" and getattr(self.session, "kind", "") != "PACE":
                        raise ChipError(0x6982, "EF.CardSecurity needs PACE")
                    return name
        raise ChipError(0x6A82, "file not found")

    def _select(self, cmd):
        if cmd.p2 not in (0x0C, 0x00, 0x04):
            raise ChipError(0x6A86, "P2")
        if cmd.p1 == 0x04:                      # by DF name
            if cmd.data == EMRTD_AID and "app-refused" in self.quirks:
                raise ChipError(self.quirks["app-refused"], "--quirk app-refused")
            if cmd.data != EMRTD_AID:
                raise ChipError(0x6A82, "unknown application")
            self.app_selected, self.current_ef = True, None
            return 0x9000, b""
        if cmd.p1 == 0x00 and cmd.data in (b"", MF_FID.to_bytes(2, "big")):
            self.app_selected, self.current_ef = False, None
            return 0x9000, b""
        if cmd.p1 not in (0x00, 0x02):
            raise ChipError(0x6A86, "selection by path/child DF not supported")
        if len(cmd.data) != 2:
            raise ChipError(0x6A80, "file identifier must be 2 bytes")
        name = self._resolve(fid=int.from_bytes(cmd.data, "big"))
        self.current_ef = name
        if cmd.p2 == 0x0C:
            return 0x9000, b""
        # P2 00/04: a small FCP template (size, transparent EF, FID).
        fcp = tlv(0x80, len(self.files[name]).to_bytes(2, "big")) + \
            tlv(0x82, b"\x01") + tlv(0x83, cmd.data)
        return 0x9000, tlv(0x62, fcp)

    def _fault_is(self, kind):
        return self.pending_fault is not None and self.pending_fault.kind == kind

    def _fault_point(self, name, offset):
        """--fault / --drop-during on a READ BINARY of `name` at `offset`: sleeps
        (slow), vanishes (drop), answers a status (status) or leaves the fault in
        pending_fault for the framing (bad-mac, replay) or _read (extra)."""
        if not self.faults:
            return
        slow, other = self.faults.trigger(
            name, offset, can_replay=self.session is not None and self.last_sm_response is not None)
        if slow is not None:
            log.info("--fault %s: answering READ BINARY of %s at offset %d after %g s",
                     slow.spec, name, offset, slow.seconds)
            time.sleep(slow.seconds)
        if other is None:
            return
        self.pending_fault = other
        log.info("--fault %s fires: READ BINARY of %s at offset %d (time %d%s)", other.spec, name,
                 offset, other.fired, "" if other.times is None else " of %d" % other.times)
        if other.kind == "drop":
            log.info("card vanishes at offset %d of %s", offset, name)
            raise CardDropped()
        if other.kind == "status":
            raise InjectedStatus(other.sw)

    def _read_binary(self, cmd):
        if cmd.p1 & 0x80:                       # short EF identifier in P1
            if cmd.p1 & 0x60:
                raise ChipError(0x6A86, "P1")
            if "sfi-refused" in self.quirks:
                raise ChipError(self.quirks["sfi-refused"], "--quirk sfi-refused: no current EF")
            name, offset = self._resolve(sfi=cmd.p1 & 0x1F), cmd.p2
            if "sfi-plain" in self.quirks and self.session is not None and self.quirks["sfi-plain"][0] == name:
                raise UncountedStatus(self.quirks["sfi-plain"][1])
            self.current_ef = name
        else:
            name, offset = self.current_ef, (cmd.p1 << 8) | cmd.p2
            if name is None:
                raise ChipError(0x6986, "no current EF")
        return self._read(name, offset, cmd, lambda chunk: chunk)

    def _read_binary_odd(self, cmd):
        p1p2 = (cmd.p1 << 8) | cmd.p2
        if p1p2 == 0:
            name = self.current_ef
            if name is None:
                raise ChipError(0x6986, "no current EF")
        elif p1p2 < 0x20:                       # ISO 7816-4: SFI in P2
            name = self._resolve(sfi=p1p2)
        else:
            name = self._resolve(fid=p1p2)
        self.current_ef = name
        dos = None
        try:
            dos = parse_tlvs(cmd.data)
        except ValueError:
            pass
        if not dos or dos[0][0] != 0x54 or not 1 <= len(dos[0][1]) <= 4:
            raise ChipError(0x6A80, "DO'54' offset expected")
        offset = int.from_bytes(dos[0][1], "big")
        return self._read(name, offset, cmd, lambda chunk: tlv(0x53, chunk))

    def _read(self, name, offset, cmd, frame):
        """Common part of B0 and B1. Ne bounds the whole response data field
        (for B1 that includes the DO'53' header). Asking beyond the end returns
        what remains with 6282; an offset at or past the end is 6B00."""
        if name == "CardSecurity" and "eac2" in self.quirks and not (self.ta is not None and self.ta.done):
            raise ChipError(0x6982, "--quirk eac2: EF.CardSecurity needs Terminal Authentication first")
        if self.ta is not None and not self.ta.allows(name):
            # EAC: SELECT works, reading needs Terminal Authentication with the right to it.
            raise ChipError(0x6982, "%s needs Terminal Authentication granting it" % name)
        if cmd.ne is None:
            raise ChipError(0x6700, "READ BINARY without Le")
        if "read-cap" in self.quirks and cmd.ne > self.quirks["read-cap"]:
            raise ChipError(0x6700, "--quirk read-cap: Ne %d > %d" % (cmd.ne, self.quirks["read-cap"]))
        content = self.files[name]
        if offset >= len(content):
            raise ChipError(0x6B00, "offset %d beyond %s (%d bytes)" %
                            (offset, name, len(content)))
        self._fault_point(name, offset)
        want = cmd.ne
        while want > 0 and len(frame(bytes(want))) > cmd.ne:
            want -= 1                           # room for the DO'53' header
        served = self.quirks.read_answer_size(want)
        if served < want:
            log.info("--quirk short-answers: %d of the %d bytes asked", served, want)
            chunk = content[offset:offset + served]
            return 0x9000 if offset + len(chunk) < len(content) or len(chunk) == want else 0x6282, frame(chunk)
        chunk = content[offset:offset + want]
        if self._fault_is("extra"):
            # N more bytes than the answer would have had: the file's next bytes,
            # then filler past its end.
            n = len(chunk) + self.pending_fault.extra
            chunk = content[offset:offset + n]
            chunk += bytes([FILLER]) * (n - len(chunk))
            log.info("--fault %s: %d bytes for Ne=%d", self.pending_fault.spec, n, cmd.ne)
            return 0x9000, frame(chunk)
        if want > len(chunk) and "eof-answer" in self.quirks:
            self._eof_answer(name, offset, cmd, frame(chunk))
        return (0x6282 if want > len(chunk) else 0x9000), frame(chunk)

    # --- BAC -------------------------------------------------------------------
    def _get_challenge(self, cmd):
        if self.locked:
            raise ChipError(0x6982, "--quirk sticky-auth: a protocol failed; reset the card first")
        if cmd.p1 or cmd.p2:
            raise ChipError(0x6A86, "P1-P2")
        if cmd.ne != 8:
            raise ChipError(0x6700, "GET CHALLENGE needs Le 08")
        self.challenge = self.random(8)
        if self.session is not None and self.ta is not None:
            if "ta-challenge-length" in self.quirks:
                self.challenge = self._ta_challenge_of_quirk()
            self.ta.get_challenge(self.challenge)     # r_PICC of Terminal Authentication
        return 0x9000, self.challenge

    def _mutual_authenticate(self, cmd):
        if cmd.p1 or cmd.p2:
            raise ChipError(0x6A86, "P1-P2")
        if len(cmd.data) != 40 or cmd.ne is None or cmd.ne < 40:
            raise ChipError(0x6700, "MUTUAL AUTHENTICATE needs Lc 28 and Le 28")
        if not self.bac_enabled:
            raise ChipError(0x6985, "BAC is disabled (--no-bac)")
        if "no-access-control" in self.quirks:
            raise ChipError(0x6D00, "--quirk no-access-control: a plain chip has no BAC")
        if "mutual-auth-error" in self.quirks:
            raise ChipError(self.quirks["mutual-auth-error"], "--quirk mutual-auth-error")
        if self.session is not None or not self.app_selected or self.challenge is None:
            raise ChipError(0x6985, "no application selected or no challenge")
        rnd_icc, self.challenge = self.challenge, None   # one attempt per challenge
        e_ifd, m_ifd = cmd.data[:32], cmd.data[32:]
        if bac.retail_mac(self.k_mac, e_ifd) != m_ifd:
            raise ChipError(0x6300, "M_IFD wrong (wrong MRZ?)")
        s = bac.dec(self.k_enc, e_ifd)
        rnd_ifd, echoed, k_ifd = s[:8], s[8:16], s[16:]
        if echoed != rnd_icc:
            raise ChipError(0x6300, "RND.ICC not echoed")
        answer = self._complete_bac(rnd_icc, rnd_ifd, k_ifd, self.random(16))
        if "mutual-auth-corrupt" in self.quirks:
            answer = self._corrupt_mutual_auth(answer)
        return 0x9000, answer

    def _complete_bac(self, rnd_icc, rnd_ifd, k_ifd, k_icc):
        """Build E_ICC || M_ICC and open the SM session."""
        e_icc = bac.enc(self.k_enc, rnd_icc + rnd_ifd + k_icc)
        ks_enc, ks_mac = bac.session_keys(k_ifd, k_icc)
        self.session = BacSession(ks_enc, ks_mac, bac.initial_ssc(rnd_icc, rnd_ifd))
        self.current_ef = None
        if self.ta is not None:
            self.ta.reset()
        log.info("BAC completed, secure messaging on")
        if self.verbose:
            log.info("KS_enc %s KS_mac %s SSC %016X", ks_enc.hex(), ks_mac.hex(),
                     self.session.ssc)
        return e_icc + bac.retail_mac(self.k_mac, e_icc)

    # --- PACE --------------------------------------------------------------------
    def _pace_mse_set_at(self, cmd):
        if self.locked:
            raise ChipError(0x6982, "--quirk sticky-auth: a protocol failed; reset the card first")
        refused = self.quirks.on.get("pace-refused")
        if refused and refused[1] == "mse":
            raise ChipError(refused[0], "--quirk pace-refused")
        return self.pace.mse_set_at(cmd)

    def _general_authenticate(self, cmd):
        step = self.pace.step
        sw, data, session = self.pace.general_authenticate(cmd)
        if "pace-answer" in self.quirks:
            data = self._pace_answer_quirk(step, data)
        if session is not None:
            # PACE belongs to the MF: afterwards the MF is current (EF.CardSecurity
            # readable), and the reader selects the eMRTD application under SM.
            self.session, self.current_ef, self.app_selected = session, None, False
            if self.ta is not None:
                self.ta.reset()
        return sw, data

    def _pace_answer_quirk(self, step, data):
        """--quirk pace-answer: the answer of one GENERAL AUTHENTICATE step made faulty."""
        from .quirks import pace_answer_fault
        (_, body, _), = parse_tlvs(data)
        faulty = pace_answer_fault(self.quirks["pace-answer"], step, body, self.pace)
        if faulty is None:
            return data
        log.info("--quirk pace-answer: step %d answered with %s instead of %s", step,
                 faulty[:12].hex().upper(), body[:12].hex().upper())
        return tlv(0x7C, faulty)

    # --- Active and Chip Authentication -----------------------------------------------
    def _internal_authenticate(self, cmd):
        if "aa-bad-trailer" in self.quirks:
            return self._aa_bad_trailer(cmd)
        return self.aa.internal_authenticate(cmd, self._session_or_plain())

    def _session_or_plain(self):
        """The session; on a chip without access control (--quirk no-access-control), where
        chip and active authentication run in plain, a stand-in for the absent one."""
        if self.session is None and "no-access-control" in self.quirks:
            return PlainSession()
        return self.session

    def _is_terminal_authentication(self, cmd):
        """MSE 81xx (Set DST / Set AT), PSO (2A) and, under secure messaging,
        EXTERNAL AUTHENTICATE (82) belong to Terminal Authentication on an EAC chip."""
        if self.ta is None:
            return False
        return (cmd.ins == 0x22 and cmd.p1 == 0x81) or cmd.ins == 0x2A or \
            (cmd.ins == 0x82 and self.session is not None)

    def _is_chip_authentication(self, cmd):
        """MSE:Set KAT / MSE:Set AT 41xx, and GENERAL AUTHENTICATE under SM,
        belong to Chip Authentication; PACE keeps MSE C1A4 and the plain GA."""
        if self.ca is None:
            return False
        if cmd.ins == 0x22:
            return self.pace is None or cmd.p1 == 0x41
        return self.pace is None or self.session is not None

    def _chip_authentication(self, cmd):
        if cmd.ins == 0x22 and "ca-refused" in self.quirks:
            raise ChipError(self.quirks["ca-refused"], "--quirk ca-refused")
        if cmd.ins == 0x22:
            sw, data, new = self.ca.mse(cmd, self._session_or_plain())
        else:
            sw, data, new = self.ca.general_authenticate(cmd, self._session_or_plain())
        if new is not None and "ca-ephemeral-check" in self.quirks:
            new = self._ca_ephemeral_check(new)
        self.next_session = new
        if new is not None and self.verbose:
            log.info("CA session keys: KS_enc %s KS_mac %s, SSC 0", new.ks_enc.hex(),
                     new.ks_mac.hex())
        return sw, data

    def _ca_ephemeral_check(self, new):
        """--quirk ca-ephemeral-check: a reused terminal key is refused; the first CA's keys
        are made unusable, so the terminal must run CA again with a fresh key pair."""
        seen = self.__dict__.setdefault("ca_terminal_keys", [])
        key = bytes(new.ca_terminal_key)
        if key in seen:
            self.ca.reset()
            raise ChipError(0x6A80, "--quirk ca-ephemeral-check: the terminal's ephemeral key "
                                    "was used in an earlier Chip Authentication")
        seen.append(key)
        if len(seen) == 1:
            new.ks_mac = bytes(b ^ 0x55 for b in new.ks_mac)
            log.info("--quirk ca-ephemeral-check: first Chip Authentication, its keys made unusable")
        return new

    # --- logging -------------------------------------------------------------------
    def _describe(self, cmd):
        names = {0xA4: "SELECT", 0xB0: "READ BINARY", 0xB1: "READ BINARY odd",
                 0x84: "GET CHALLENGE", 0x82: "MUTUAL AUTHENTICATE",
                 0x22: "MSE", 0x86: "GENERAL AUTHENTICATE", 0x88: "INTERNAL AUTHENTICATE",
                 0x2A: "PSO:Verify Certificate"}
        if cmd.ins == 0x82 and self.session is not None:
            names[0x82] = "EXTERNAL AUTHENTICATE"
        text = "%s%s %02X%02X" % ("(chained) " if cmd.cla == 0x10 else "",
                                  names.get(cmd.ins, "INS %02X" % cmd.ins), cmd.p1, cmd.p2)
        if cmd.ins == 0xA4 and len(cmd.data) <= 16:
            text += " " + cmd.data.hex().upper()   # FIDs/AIDs are not secret
        text += " Ne=%s%s" % (cmd.ne, " ext" if cmd.extended else "")
        if self.current_ef and cmd.ins in (0xB0, 0xB1):
            text += " [%s]" % self.current_ef
        return text

    # --- TR-03105 Part 5.1 deviations (quirks app-refused … no-access-control, SM faults) ---------
    def _corrupt_sm_response(self, s, response, odd):
        """--fault no-mac / no-cryptogram / no-status / bad-cryptogram: the protected response
        without DO'8E', without DO'87'/'85', without DO'99' (each with the MAC recomputed over
        what is left, so only the missing object is wrong), or with a cryptogram whose
        plaintext padding is broken and a MAC computed over it."""
        kind, spec = self.pending_fault.kind, self.pending_fault.spec
        sw = response[-2:]
        dos = [(t, v) for t, v, _ in parse_tlvs(response[:-2])]
        if kind == "no-mac":
            body = b"".join(tlv(t, v) for t, v in dos if t != 0x8E)
            log.info("--fault %s: DO'8E' left out of the response", spec)
            return body + sw
        if kind == "no-cryptogram":
            dos = [(t, v) for t, v in dos if t not in (0x85, 0x87)]
            what = "DO'87'/DO'85'"
        elif kind == "no-status":
            dos = [(t, v) for t, v in dos if t != 0x99]
            what = "DO'99'"
        else:
            crypt_tag = 0x85 if odd else 0x87
            values = dict(dos)
            if crypt_tag not in values:
                log.info("--fault %s: no cryptogram in this response to corrupt", spec)
                return response
            crypt = bytearray(values[crypt_tag])
            start = 0 if odd else 1              # after DO'87''s padding indicator
            blocks = (len(crypt) - start) // s.block
            # CBC: flipping a byte of the previous ciphertext block flips the same byte of the
            # last plaintext block, which holds the padding's 80 (at data length mod block).
            plain_length = len(s.decrypt(bytes(crypt[start:])))
            position = plain_length % s.block
            if blocks >= 2:
                crypt[start + (blocks - 2) * s.block + position] ^= 0x01
            else:
                crypt[-1] ^= 0x01                # one block: the last byte, any padding garbled
            dos = [(t, bytes(crypt) if t == crypt_tag else v) for t, v in dos]
            what = "the cryptogram (padding of its plaintext broken)"
        body = b"".join(tlv(t, v) for t, v in dos if t != 0x8E)
        log.info("--fault %s: %s changed, MAC computed over the rest", spec, what)
        return body + tlv(0x8E, s.mac(body)) + sw

    def _corrupt_mutual_auth(self, answer):
        """--quirk mutual-auth-corrupt: E_ICC || M_ICC with M_ICC's last byte flipped (mac), or
        with E_ICC's first byte flipped and M_ICC computed over it (cryptogram)."""
        e_icc, m_icc = answer[:32], answer[32:]
        if self.quirks["mutual-auth-corrupt"] == "mac":
            log.info("--quirk mutual-auth-corrupt:mac: M_ICC corrupted")
            return e_icc + m_icc[:-1] + bytes([m_icc[-1] ^ 0x01])
        e_icc = bytes([e_icc[0] ^ 0x01]) + e_icc[1:]
        log.info("--quirk mutual-auth-corrupt:cryptogram: E_ICC corrupted, M_ICC over it")
        return e_icc + bac.retail_mac(self.k_mac, e_icc)

    def _eof_answer(self, name, offset, cmd, data):
        """--quirk eof-answer: Ne beyond the end of the file answered 6B00 or 6Cxx."""
        if self.quirks["eof-answer"] == 0x6B00:
            raise ChipError(0x6B00, "--quirk eof-answer: Ne %d beyond the end of %s at offset %d"
                            % (cmd.ne, name, offset))
        raise ChipError(0x6C00 | (len(data) & 0xFF),
                        "--quirk eof-answer: Ne %d beyond the end of %s, %d bytes available"
                        % (cmd.ne, name, len(data)))

    def _aa_bad_trailer(self, cmd):
        """--quirk aa-bad-trailer: the signature's trailer byte is wrong (BC -> BD, CC -> CD)."""
        from .aa import sign_9796_2_bad_trailer
        real = self.aa.sign
        self.aa.sign = lambda challenge: sign_9796_2_bad_trailer(self.aa, challenge)
        try:
            return self.aa.internal_authenticate(cmd, self.session)
        finally:
            self.aa.sign = real
