"""An emulated NXP PN532 NFC controller on a pseudo-terminal, with the virtual
passport (chip.EmrtdOS) as the one card in its field.

The host side is the PN532's HSU (UART) frame protocol as described in the
PN532 user manual (UM0701-02, sections 6.2 and 7): normal and extended
information frames, ACK/NACK, application error frames and the 0x55 wake-up
preamble. The RF side is modelled as one ISO/IEC 14443-4 PICC (type A by
default, type B on request) with its own block protocol (PiccIsoDep): the
PN532's InDataExchange drives it like the real controller would (I-block
chaining both ways, R(ACK) to fetch chained responses), and InCommunicateThru
hands raw blocks from the host to it (what libnfc does with NP_EASY_FRAMING
off and in nfc_initiator_target_is_present).

Behaviour choices are documented in PN532.md next to this file.
"""
import logging
import os
import select
import signal
import termios
import threading
import time
import tty

from .chip import CardDropped

log = logging.getLogger("vpassport.pn532")

# --- host frames (UM0701-02 6.2.1) --------------------------------------------
TFI_HOST = 0xD4                  # host controller -> PN532
TFI_PN532 = 0xD5                 # PN532 -> host controller
ACK_FRAME = bytes.fromhex("0000FF00FF00")
NACK_FRAME = bytes.fromhex("0000FFFF0000")
ERROR_FRAME = bytes.fromhex("0000FF01FF7F8100")   # application-level error
MAX_DATA_IN = 262                # InDataExchange/InCommunicateThru DataIn per frame
PARTIAL_FRAME_TIMEOUT = 1.0      # drop an incomplete frame after this long without data

# --- status byte error codes (UM0701-02 table "Error code list") --------------
ST_OK = 0x00
ST_TIMEOUT = 0x01                # the target has not answered
ST_RF_PROTOCOL = 0x0B            # RF protocol error (unexpected block from the target)
ST_NOT_ALLOWED = 0x27            # command not acceptable in the current context
MI = 0x40                        # "more information" bit of Tg / status

# --- CIU registers libnfc touches, with plausible power-up values ---------------
# (libnfc reads some of them before masked writes; unknown ones read as 00 and
# are logged.) TxMode/RxMode start with CRC on, as libnfc assumes.
REG_TXMODE, REG_RXMODE, REG_TXCONTROL = 0x6302, 0x6303, 0x6304
REG_MANUALRCV, REG_BITFRAMING = 0x630D, 0x633D
REGISTER_DEFAULTS = {
    0x6106: 0x00,  # Control_switch_rng
    0x6301: 0x3B,  # CIU_Mode
    0x6302: 0x80,  # CIU_TxMode: CRC on, 106 kbit/s, type A framing
    0x6303: 0x80,  # CIU_RxMode
    0x6304: 0x80,  # CIU_TxControl (bits 0-1: antenna drivers, follow the RF field)
    0x6305: 0x40,  # CIU_TxAuto: 100% ASK
    0x6306: 0x10,  # CIU_TxSel
    0x6307: 0x84,  # CIU_RxSel
    0x6308: 0x84,  # CIU_RxThreshold
    0x6309: 0x4D,  # CIU_Demod
    0x630A: 0x00, 0x630B: 0x00,  # CIU_FelNFC1/2
    0x630C: 0x62,  # CIU_MifNFC
    0x630D: 0x00,  # CIU_ManualRCV (bit 4: parity off)
    0x630E: 0x00,  # CIU_TypeB
    0x6311: 0xFF, 0x6312: 0xFF,  # CIU_CRCResult MSB/LSB
    0x6313: 0x88,  # CIU_GsNOFF
    0x6314: 0x26,  # CIU_ModWidth
    0x6315: 0x87,  # CIU_TxBitPhase
    0x6316: 0x48,  # CIU_RFCfg
    0x6317: 0x88,  # CIU_GsNOn
    0x6318: 0x20,  # CIU_CWGsP
    0x6319: 0x20,  # CIU_ModGsP
    0x631A: 0x00, 0x631B: 0x00, 0x631C: 0x00, 0x631D: 0x00,  # timer
    0x631E: 0x00, 0x631F: 0x00,
    0x6321: 0x00, 0x6322: 0x00, 0x6323: 0x80, 0x6324: 0x00, 0x6325: 0x00,
    0x6326: 0x40,
    0x6327: 0x80,  # CIU_Version
    0x6328: 0x00, 0x6329: 0x00, 0x632A: 0x00, 0x632B: 0x00,
    0x632F: 0x00, 0x6330: 0x00,
    0x6331: 0x20,  # CIU_Command
    0x6332: 0x80, 0x6333: 0x00,  # CIU_CommIEn, DivIEn
    0x6334: 0x14, 0x6335: 0x00,  # CIU_CommIrq, DivIrq
    0x6336: 0x00,  # CIU_Error
    0x6337: 0x21,  # CIU_Status1
    0x6338: 0x00,  # CIU_Status2 (bit 3: Crypto1 on)
    0x6339: 0x00, 0x633A: 0x00,  # FIFO data/level
    0x633B: 0x08,  # CIU_WaterLevel
    0x633C: 0x10,  # CIU_Control (bit 4: initiator)
    0x633D: 0x00,  # CIU_BitFraming (bits 0-2: TxLastBits)
    0x633E: 0x80,  # CIU_Coll
    0xFFB0: 0xFF,  # SFR P3
    0xFFF4: 0x00, 0xFFF5: 0x00,  # P7CFGA/B
    0xFFF7: 0x07,  # P7
    0xFFFC: 0xFF, 0xFFFD: 0x03,  # P3CFGA/B
}

COMMAND_NAMES = {
    0x00: "Diagnose", 0x02: "GetFirmwareVersion", 0x04: "GetGeneralStatus",
    0x06: "ReadRegister", 0x08: "WriteRegister", 0x0C: "ReadGPIO", 0x0E: "WriteGPIO",
    0x10: "SetSerialBaudRate", 0x12: "SetParameters", 0x14: "SAMConfiguration",
    0x16: "PowerDown", 0x32: "RFConfiguration", 0x58: "RFRegulationTest",
    0x56: "InJumpForDEP", 0x46: "InJumpForPSL", 0x4A: "InListPassiveTarget",
    0x50: "InATR", 0x4E: "InPSL", 0x40: "InDataExchange", 0x42: "InCommunicateThru",
    0x44: "InDeselect", 0x52: "InRelease", 0x54: "InSelect", 0x60: "InAutoPoll",
    0x8C: "TgInitAsTarget", 0x92: "TgSetGeneralBytes", 0x86: "TgGetData",
    0x8E: "TgSetData", 0x94: "TgSetMetaData", 0x88: "TgGetInitiatorCommand",
    0x90: "TgResponseToInitiator", 0x8A: "TgGetTargetStatus",
}

# FSD/FSC from FSDI/FSCI (ISO/IEC 14443-4); codes above 8 are capped at 256,
# the most a PN532 frame carries.
FS_TABLE = [16, 24, 32, 40, 48, 64, 96, 128, 256]


def frame_size(code):
    return FS_TABLE[min(code, 8)]


class SyntaxErr(Exception):
    """Answered with the application-level error frame."""


def build_frame(payload, no_amble=False):
    """PN532 -> host information frame: normal, or extended when TFI+data > 255."""
    body = bytes([TFI_PN532]) + payload
    n = len(body)
    if n <= 255:
        head = bytes([n, (-n) & 0xFF])
    else:
        head = b"\xff\xff" + n.to_bytes(2, "big") + bytes([(-((n >> 8) + (n & 0xFF))) & 0xFF])
    frame = b"\x00\xff" + head + body + bytes([(-sum(body)) & 0xFF])
    return frame if no_amble else b"\x00" + frame + b"\x00"


class FrameReader:
    """Splits the host's byte stream into events:
    ("ack",), ("nack",), ("frame", tfi, data), ("bad", why), ("wakeup", n)."""

    def __init__(self):
        self.buf = b""
        self.last_data = 0.0

    def feed(self, data):
        now = time.monotonic()
        if self.buf and now - self.last_data > PARTIAL_FRAME_TIMEOUT:
            if self.buf != b"\x00":       # (a lone 00 is a postamble, not a frame)
                log.info("dropping %d bytes of an incomplete frame", len(self.buf))
            self.buf = b""
        self.last_data = now
        self.buf += data
        events = []
        while True:
            i = self.buf.find(b"\x00\xff")
            if i < 0:
                keep = 1 if self.buf.endswith(b"\x00") else 0
                self._junk(self.buf[:len(self.buf) - keep], events)
                self.buf = self.buf[len(self.buf) - keep:]
                return events
            self._junk(self.buf[:i], events)
            self.buf = self.buf[i:]
            b = self.buf
            if len(b) < 4:
                return events
            ln, lcs = b[2], b[3]
            if (ln, lcs) == (0x00, 0xFF):
                events.append(("ack",))
                self.buf = b[4:]
                continue
            if (ln, lcs) == (0xFF, 0x00):
                events.append(("nack",))
                self.buf = b[4:]
                continue
            if (ln, lcs) == (0xFF, 0xFF):
                if len(b) < 7:
                    return events
                if (b[4] + b[5] + b[6]) & 0xFF:
                    events.append(("bad", "extended length checksum"))
                    self.buf = b[2:]
                    continue
                n, hdr = (b[4] << 8) | b[5], 7
            else:
                if (ln + lcs) & 0xFF:
                    events.append(("bad", "length checksum"))
                    self.buf = b[2:]
                    continue
                n, hdr = ln, 4
            if len(b) < hdr + n + 1:
                return events
            body, dcs = b[hdr:hdr + n], b[hdr + n]
            if (sum(body) + dcs) & 0xFF or n == 0:
                events.append(("bad", "data checksum"))
                self.buf = b[2:]            # resynchronise on the next start code
                continue
            events.append(("frame", body[0], bytes(body[1:])))
            self.buf = b[hdr + n + 1:]

    @staticmethod
    def _junk(junk, events):
        if b"\x55" in junk:
            events.append(("wakeup", junk.count(b"\x55")))


# --- the card: ISO/IEC 14443-3/-4 as seen through the RF interface ----------------
class PiccIsoDep:
    """The passport's contactless front end: ISO/IEC 14443-4 block protocol
    around chip.execute (PICC side). handle_raw() takes a frame as the PCD sends
    it (without CRC) and returns the PICC's frame, or None for no answer."""

    def __init__(self, execute, ats, layer4, fsd=256):
        self.execute = execute
        self.ats = ats                  # with TL (type A); None for type B
        self.layer4 = layer4            # False: ISO 14443-3 only until RATS
        self.halted = False
        self.fsd = fsd                  # largest frame the PCD takes (incl. CRC)
        self.bn = 1                     # PICC block number (rule C: 1 after activation)
        self.rx = b""                   # PCD chaining in progress
        self.tx = b""                   # rest of a chained response
        self.last = None                # last block sent (for retransmission)

    def handle_raw(self, frame):
        if self.halted or not frame:
            return None
        if not self.layer4:
            if frame[0] == 0xE0 and len(frame) == 2 and self.ats is not None:   # RATS
                self.fsd = frame_size(frame[1] >> 4)
                self.layer4 = True
                log.info("RATS (FSD %d, CID %d) -> ATS", self.fsd, frame[1] & 0x0F)
                return self.ats
            if frame[:2] == b"\x50\x00":                                          # HLTA
                self.halted = True
                log.info("HLTA: card halted")
            return None
        pcb, i, cid = frame[0], 1, None
        if pcb & 0x08:                  # CID follows (same bit in I, R and S blocks)
            if len(frame) < 2:
                return None
            cid, i = frame[1], 2
            if cid & 0x0F:
                return None             # another card's CID: not for us
        if pcb & 0xE2 == 0x02:          # I-block
            if pcb & 0x04:
                i += 1                  # NAD (not announced in the ATS): skipped
            inf = frame[i:]
            self.bn ^= 1                # rule D
            if pcb & 0x10:              # PCD chaining: acknowledge
                self.rx += inf
                self.tx = b""
                return self._send(0xA2 | self.bn, b"", cid)
            apdu, self.rx = self.rx + inf, b""
            self.tx = self.execute(apdu)          # may raise CardDropped
            return self._next_i(cid)
        if pcb & 0xE6 == 0xA2:          # R-block
            if pcb & 1 == self.bn:      # rule 11: repeat the last block
                return self.last if self.last is not None else self._send(0xA2 | self.bn, b"", cid)
            if not pcb & 0x10 and self.tx:        # R(ACK), other number: rule 13
                self.bn ^= 1
                return self._next_i(cid)
            return self._send(0xA2 | self.bn, b"", cid)   # R(NAK): rule 12
        if pcb & 0xC7 == 0xC2:          # S-block
            if pcb & 0x30 == 0x00:      # DESELECT
                self.halted = True
                log.info("S(DESELECT): card halted")
                return self._send(0xC2, b"", cid)
            return None                 # WTX answers: we never ask for one
        return None

    def _next_i(self, cid):
        room = self.fsd - 3 - (1 if cid is not None else 0)   # PCB, CRC, CID
        chunk, self.tx = self.tx[:room], self.tx[room:]
        return self._send(0x02 | self.bn | (0x10 if self.tx else 0), chunk, cid)

    def _send(self, pcb, inf, cid):
        block = bytes([pcb | (0x08 if cid is not None else 0)]) + \
            (bytes([cid & 0x0F]) if cid is not None else b"") + inf
        self.last = block
        return block


class Target:
    """The activated card as the PN532 keeps it (target number 1)."""

    def __init__(self, picc, modulation):
        self.picc = picc
        self.modulation = modulation    # BrTy: 0x00 type A, 0x03 type B
        self.selected = True            # False after InDeselect
        self.pcd_bn = 0                 # the PN532's own block number (PCD side)
        self.resp = b""                 # response data not yet passed to the host
        self.card_chaining = False      # the card has more chained blocks


class Pn532:
    """PN532 command set on top of one emulated card. feed() takes host bytes
    and returns the bytes to write back."""

    def __init__(self, chip, card_type="A", uid=None, on_card_gone=None):
        self.chip = chip
        self.card_type = card_type.upper()
        self.fixed_uid = uid
        self.on_card_gone = on_card_gone
        self.reader = FrameReader()
        self.regs = dict(REGISTER_DEFAULTS)
        self.parameters = 0x14          # SetParameters flags (assumed power-up: auto ATR_RES + RATS)
        self.rf_on = False
        self.max_retries_passive = 0xFF  # RFConfiguration item 5 (0xFF: for ever)
        self.sam_mode = None
        self.power = "lowvbat"          # HSU PN532 starts in LowVbat
        self.card_present = True
        self.card_gone_reason = None
        self.target = None
        self.last_response = None       # for NACK
        self.pending = None             # (cmd, params) waiting for a card, e.g. endless polling
        self.uid = self._new_uid()

    # --- card identity ----------------------------------------------------------
    def _new_uid(self):
        if self.fixed_uid:
            return self.fixed_uid
        # ISO/IEC 14443-3: a random single-size UID starts with 08 (passports use one)
        return (b"\x08" if self.card_type == "A" else b"") + os.urandom(3 if self.card_type == "A" else 4)

    def ats(self):
        """TL T0 TA TB TC + the historical bytes of the chip's ATR, so the
        card-capabilities object (73 ..) reads the same as through pcscd."""
        hist = historical_bytes(self.chip.getATR())
        t0 = 0x70 | 0x08                 # TA, TB, TC present; FSCI 8 = 256 bytes
        body = bytes([t0, 0x80,          # TA: same D both ways, 106 kbit/s only
                      0x90,              # TB: FWI 9 (~155 ms), SFGI 0
                      0x02]) + hist      # TC: CID supported, NAD not
        return bytes([len(body) + 1]) + body

    def target_data(self, modulation):
        """TargetData of InListPassiveTarget / InAutoPoll for the card (Tg first)."""
        if modulation == 0x03:
            atqb = b"\x50" + self.uid[:4] + b"\x00\x00\x00\x00" + bytes([
                0x00,                    # bit rates: 106 kbit/s only
                0x81,                    # max frame 256 (FSCI 8), ISO 14443-4
                0x91])                   # FWI 9, ADC 0, CID supported
            return b"\x01" + atqb + b"\x01\x00"   # ATTRIB_RES: MBLI 0, CID 0
        atqa = b"\x00\x44" if len(self.uid) == 7 else b"\x00\x04"
        data = b"\x01" + atqa + b"\x20" + bytes([len(self.uid)]) + self.uid
        if self.parameters & 0x10:       # fAutomaticRATS
            data += self.ats()
        return data

    def card_answers(self, modulation):
        want = 0x03 if self.card_type == "B" else 0x00
        return self.card_present and modulation == want

    def activate(self, modulation):
        """Anticollision/selection (+ RATS or ATTRIB): a fresh card session."""
        self.rf_on = True
        self._set_framing(modulation)
        self.chip.reset()
        layer4 = modulation == 0x03 or bool(self.parameters & 0x10)
        picc = PiccIsoDep(self._execute, self.ats() if modulation == 0x00 else None, layer4)
        self.target = Target(picc, modulation)
        log.info("card activated (%s, UID %s%s)", "type B" if modulation == 0x03 else "type A",
                 self.uid.hex().upper(), ", ISO 14443-4" if layer4 else ", ISO 14443-3 only")

    def _set_framing(self, modulation):
        """The CIU set-up the firmware programs for a polling modulation: CRC on,
        speed and framing of the modulation, parity on, whole bytes."""
        framing = {0x00: 0x00, 0x03: 0x03, 0x01: 0x02, 0x02: 0x02}.get(modulation, 0x00)
        speed = {0x01: 0x10, 0x02: 0x20}.get(modulation, 0x00)
        for reg in (REG_TXMODE, REG_RXMODE):
            self.regs[reg] = 0x80 | (self.regs[reg] & 0x0C) | speed | framing
        self.regs[REG_MANUALRCV] &= ~0x10
        self.regs[REG_BITFRAMING] &= ~0x07

    def _execute(self, apdu):
        resp = self.chip.execute(apdu)
        log.debug("APDU %d -> %d bytes", len(apdu), len(resp))
        return resp

    def field(self, on):
        if on == self.rf_on:
            return
        self.rf_on = on
        self.regs[REG_TXCONTROL] = (self.regs[REG_TXCONTROL] & ~0x03) | (0x03 if on else 0)
        if not on:
            # The card loses power: its session ends; a new UID next time.
            self.target = None
            self.chip.powerDown()
            self.uid = self._new_uid()
            log.info("RF field off")
        else:
            log.info("RF field on")

    def card_gone(self, reason):
        if self.card_present:
            self.card_present = False
            self.card_gone_reason = reason
            log.info("card gone (%s)", reason)
            if self.on_card_gone:
                self.on_card_gone(reason)
            back = getattr(self.chip, "return_after", None)
            if reason == "dropped" and back:
                self.chip.return_after = None   # once, as over vpcd
                threading.Timer(back, self.card_returns).start()

    def card_returns(self):
        """--return-after: the dropped card is back in the field (selected anew, reset)."""
        log.info("card back in the field (--return-after)")
        self.card_gone_reason = None
        self.card_present = True
        if self.on_card_gone:
            self.on_card_gone(None)

    # --- host interface ------------------------------------------------------------
    def feed(self, data):
        out = b""
        for ev in self.reader.feed(data):
            kind = ev[0]
            if kind == "wakeup":
                if self.power != "normal":
                    log.info("wake-up preamble (%d x 55)", ev[1])
                if self.power == "powerdown":
                    self.power = "normal"
            elif kind == "ack":
                if self.pending:
                    log.info("host ACK: %s aborted", COMMAND_NAMES.get(self.pending[0]))
                    self.pending = None
            elif kind == "nack":
                log.info("host NACK: repeating the last response")
                if self.last_response:
                    out += self.last_response
            elif kind == "bad":
                log.warning("frame ignored: %s", ev[1])
            else:
                out += self._frame(ev[1], ev[2])
        return out

    def _frame(self, tfi, data):
        if self.pending:
            log.info("%s aborted by a new command", COMMAND_NAMES.get(self.pending[0]))
            self.pending = None
        out = ACK_FRAME
        if tfi != TFI_HOST or not data:
            log.warning("frame with TFI %02X and %d bytes: syntax error", tfi, len(data))
            self.last_response = ERROR_FRAME
            return out + ERROR_FRAME
        cmd, params = data[0], data[1:]
        name = COMMAND_NAMES.get(cmd, "command %02X" % cmd)
        if self.power == "powerdown":
            log.warning("%s received while in power-down without wake-up", name)
            self.power = "normal"
        if self.power == "lowvbat" and cmd != 0x14:
            log.info("%s before SAMConfiguration (LowVbat)", name)
        handler = getattr(self, "_cmd_%02x" % cmd, None)
        try:
            if handler is None:
                raise SyntaxErr("not supported")
            result = handler(params)
        except SyntaxErr as e:
            log.info("%s %s: error frame (%s)", name, params.hex().upper()[:40], e)
            self.last_response = ERROR_FRAME
            return out + ERROR_FRAME
        if result is None:              # waits (for a card that does not come)
            self.pending = (cmd, params)
            log.info("%s %s: waiting", name, params.hex().upper()[:40])
            return out
        if cmd not in (0x40, 0x42):     # data exchanges log themselves
            log.info("%s %s -> %s", name, params.hex().upper()[:60], result.hex().upper()[:60])
        resp = build_frame(bytes([cmd + 1]) + result, no_amble=bool(self.parameters & 0x40))
        self.last_response = resp
        return out + resp

    # --- miscellaneous commands -------------------------------------------------------
    def _cmd_00(self, p):               # Diagnose
        if not p:
            raise SyntaxErr("NumTst missing")
        test = p[0]
        if test == 0x00:                # communication line test: echo
            return p
        if test in (0x01, 0x02):        # ROM / RAM test: OK
            return b"\x00"
        if test == 0x04:                # polling test to target: number of failures
            return b"\x00"
        if test == 0x06:                # attention request / card presence
            ok = self.target is not None and self.card_present and self.rf_on
            return bytes([ST_OK if ok else ST_TIMEOUT])
        if test == 0x07:                # antenna self test
            return b"\x00"
        raise SyntaxErr("Diagnose test %02X" % test)

    def _cmd_02(self, p):               # GetFirmwareVersion: PN532 v1.6, A+B+DEP
        return bytes([0x32, 0x01, 0x06, 0x07])

    def _cmd_04(self, p):               # GetGeneralStatus
        t = self.target
        targets = b""
        if t is not None and t.selected:
            targets = bytes([1, 0x00, 0x00, t.modulation])   # Tg, BrRx, BrTx, Type
        return bytes([0x00, 1 if self.rf_on else 0, len(targets) // 4]) + targets + b"\x00"

    def _cmd_06(self, p):               # ReadRegister
        if not p or len(p) % 2:
            raise SyntaxErr("odd address list")
        out = b""
        for i in range(0, len(p), 2):
            addr = (p[i] << 8) | p[i + 1]
            if addr not in self.regs:
                log.info("ReadRegister of unknown register %04X: 00", addr)
            out += bytes([self.regs.get(addr, 0x00)])
        return out

    def _cmd_08(self, p):               # WriteRegister
        if not p or len(p) % 3:
            raise SyntaxErr("address/value triples expected")
        for i in range(0, len(p), 3):
            addr = (p[i] << 8) | p[i + 1]
            if addr not in self.regs:
                log.info("WriteRegister of unknown register %04X = %02X", addr, p[i + 2])
            self.regs[addr] = p[i + 2]
        return b""

    def _cmd_0c(self, p):               # ReadGPIO: P3, P7, I0I1
        return bytes([self.regs[0xFFB0], self.regs[0xFFF7], 0x00])

    def _cmd_0e(self, p):               # WriteGPIO
        if len(p) >= 1 and p[0] & 0x80:
            self.regs[0xFFB0] = p[0] & 0x3F
        if len(p) >= 2 and p[1] & 0x80:
            self.regs[0xFFF7] = p[1] & 0x06
        return b""

    def _cmd_10(self, p):               # SetSerialBaudRate: a pty has no baud rate
        if len(p) != 1:
            raise SyntaxErr("BR")
        return b""

    def _cmd_12(self, p):               # SetParameters
        if len(p) != 1:
            raise SyntaxErr("Flags")
        self.parameters = p[0]
        return b""

    def _cmd_14(self, p):               # SAMConfiguration
        if not p or p[0] not in (1, 2, 3, 4):
            raise SyntaxErr("Mode")
        self.sam_mode = p[0]
        self.power = "normal"
        return b""

    def _cmd_16(self, p):               # PowerDown
        if not p:
            raise SyntaxErr("WakeUpEnable")
        self.field(False)
        self.power = "powerdown"
        return b"\x00"

    def _cmd_32(self, p):               # RFConfiguration
        sizes = {0x01: 1, 0x02: 3, 0x04: 1, 0x05: 3, 0x0A: 11, 0x0B: 8, 0x0C: 3, 0x0D: 9}
        if not p or p[0] not in sizes or len(p) - 1 != sizes[p[0]]:
            raise SyntaxErr("CfgItem")
        if p[0] == 0x01:
            self.field(bool(p[1] & 0x01))
        elif p[0] == 0x05:
            self.max_retries_passive = p[3]
        return b""

    # --- initiator commands ---------------------------------------------------------
    def _cmd_4a(self, p):               # InListPassiveTarget
        if len(p) < 2 or p[0] not in (1, 2) or p[1] > 0x04:
            raise SyntaxErr("MaxTg/BrTy")
        brty, init = p[1], p[2:]
        if brty == 0x03 and not init:
            raise SyntaxErr("AFI missing")
        self.field(True)
        self.target = None              # the PN532 forgets earlier targets
        if self.card_answers(brty) and self._uid_matches(brty, init):
            self.activate(brty)
            return b"\x01" + self.target_data(brty)
        if self.max_retries_passive == 0xFF:
            return None                 # polls for ever (until the host aborts)
        return b"\x00"

    def _uid_matches(self, brty, init):
        if brty != 0x00 or not init:
            return True                 # (AFI 00 of type B wakes every card)
        want = bytes(init)
        if len(want) == 8 and want[0] == 0x88:                          # CT + 7 bytes
            want = want[1:]
        elif len(want) == 12 and want[0] == 0x88 and want[4] == 0x88:   # 10 bytes
            want = want[1:4] + want[5:]
        return want == self.uid

    def _cmd_60(self, p):               # InAutoPoll
        if len(p) < 3:
            raise SyntaxErr("PollNr/Period/Type")
        poll_nr, types = p[0], p[2:]
        for t in types:
            if self.card_type == "A" and t in (0x00, 0x10, 0x20) and self.card_answers(0x00):
                saved = self.parameters
                if t == 0x20:
                    self.parameters |= 0x10         # ISO 14443-4: RATS done
                elif t == 0x10:
                    self.parameters &= ~0x10
                self.field(True)
                self.activate(0x00)
                data = self.target_data(0x00)
                self.parameters = saved
                return bytes([1, t, len(data)]) + data
            if self.card_type == "B" and t in (0x03, 0x23) and self.card_answers(0x03):
                self.field(True)
                self.activate(0x03)
                data = self.target_data(0x03)
                return bytes([1, t, len(data)]) + data
        if poll_nr == 0xFF:
            return None
        return b"\x00"

    def _active_target(self, tg):
        """The target a data command addresses, or a status byte."""
        t = self.target
        if t is None or tg != 1:
            return None, ST_NOT_ALLOWED
        if not self.card_present or not self.rf_on:
            return None, ST_TIMEOUT
        if not t.selected:
            log.info("data exchange with a deselected target: selecting it again")
            self._reselect()
        return t, ST_OK

    def _reselect(self):
        modulation = self.target.modulation
        self.activate(modulation)

    def _cmd_40(self, p):               # InDataExchange
        if not p:
            raise SyntaxErr("Tg")
        tg, more, data = p[0] & 0x3F, bool(p[0] & MI), p[1:]
        t, st = self._active_target(tg)
        if t is None:
            log.info("InDataExchange Tg %02X: status %02X", p[0], st)
            return bytes([st])
        try:
            if not t.picc.layer4:       # ISO 14443-3 target: data goes out as a raw frame
                return self._raw_exchange(t, data, "InDataExchange")
            if not data and not more and (t.resp or t.card_chaining):
                return self._give_response(t)          # host fetches the rest (MI)
            if t.resp or t.card_chaining:
                log.info("InDataExchange: new command while %d response bytes were pending",
                         len(t.resp))
                t.resp, t.card_chaining = b"", False
            status = self._send_to_card(t, data, more)
            if status is not None:
                return bytes([status])
            if more:
                log.info("InDataExchange (MI) %d bytes: chained, status 00", len(data))
                return b"\x00"
            return self._give_response(t, len(data))
        except CardDropped:
            self.card_gone("dropped")
            log.info("InDataExchange: card dropped, status 01 (timeout)")
            return bytes([ST_TIMEOUT])

    def _send_to_card(self, t, data, more):
        """I-blocks from the PN532 to the card (chained as FSC needs). Returns an
        error status, or None when the card took it (the reply is in t.resp)."""
        fsc = frame_size(t.picc.ats[1] & 0x0F) if t.picc.ats else 256
        room = fsc - 3
        pieces = [data[i:i + room] for i in range(0, len(data), room)] or [b""]
        for n, piece in enumerate(pieces):
            chained = more or n < len(pieces) - 1
            reply = t.picc.handle_raw(bytes([0x02 | t.pcd_bn | (0x10 if chained else 0)]) + piece)
            if reply is None:
                return ST_TIMEOUT
            t.pcd_bn = (reply[0] & 1) ^ 1
            if chained:
                if reply[0] & 0xF6 != 0xA2:            # expected R(ACK)
                    return ST_RF_PROTOCOL
            else:
                if reply[0] & 0xE2 != 0x02:            # expected an I-block
                    return ST_RF_PROTOCOL
                t.resp = reply[1:]
                t.card_chaining = bool(reply[0] & 0x10)
        return None

    def _give_response(self, t, sent=None):
        """Up to MAX_DATA_IN bytes of the card's answer; MI while more follows."""
        while t.card_chaining and len(t.resp) < MAX_DATA_IN:
            reply = t.picc.handle_raw(bytes([0xA2 | t.pcd_bn]))
            if reply is None or reply[0] & 0xE2 != 0x02:
                t.resp, t.card_chaining = b"", False
                return bytes([ST_RF_PROTOCOL])
            t.pcd_bn = (reply[0] & 1) ^ 1
            t.resp += reply[1:]
            t.card_chaining = bool(reply[0] & 0x10)
        out, t.resp = t.resp[:MAX_DATA_IN], t.resp[MAX_DATA_IN:]
        more = bool(t.resp) or t.card_chaining
        log.info("InDataExchange%s -> status %02X, %d bytes",
                 " %d bytes" % sent if sent is not None else " (get more)",
                 MI if more else ST_OK, len(out))
        return bytes([MI if more else ST_OK]) + out

    def _cmd_42(self, p):               # InCommunicateThru
        t = self.target
        if not self.card_present or not self.rf_on:
            log.info("InCommunicateThru %d bytes -> status 01 (no card)", len(p))
            return bytes([ST_TIMEOUT])
        if t is None or not t.selected:
            log.info("InCommunicateThru %d bytes: no active card -> status 01", len(p))
            return bytes([ST_TIMEOUT])
        try:
            return self._raw_exchange(t, p, "InCommunicateThru")
        except CardDropped:
            self.card_gone("dropped")
            log.info("InCommunicateThru: card dropped, status 01 (timeout)")
            return bytes([ST_TIMEOUT])

    def _raw_exchange(self, t, frame, name):
        """A frame as the host gave it, if the CIU settings let the card understand it."""
        tx, rx = self.regs[REG_TXMODE], self.regs[REG_RXMODE]
        want = 0x03 if t.modulation == 0x03 else 0x00
        why = None
        if tx & 0x03 != want or rx & 0x03 != want:
            why = "framing %d/%d" % (tx & 3, rx & 3)
        elif not tx & 0x80 or not rx & 0x80:
            why = "CRC handled by the host"
        elif self.regs[REG_MANUALRCV] & 0x10:
            why = "parity off"
        elif self.regs[REG_BITFRAMING] & 0x07:
            why = "short frame"
        if why:
            log.info("%s %d bytes: card does not answer (%s) -> status 01", name, len(frame), why)
            return bytes([ST_TIMEOUT])
        reply = t.picc.handle_raw(frame)
        if reply is None:
            log.info("%s %s: no answer -> status 01", name, frame[:2].hex().upper())
            return bytes([ST_TIMEOUT])
        log.info("%s %d bytes (PCB %02X) -> %d bytes (PCB %02X)", name, len(frame), frame[0],
                 len(reply), reply[0])
        return b"\x00" + reply

    def _cmd_44(self, p):               # InDeselect
        if len(p) != 1:
            raise SyntaxErr("Tg")
        t = self.target
        if t is None:
            return bytes([ST_OK if p[0] == 0 else ST_NOT_ALLOWED])
        if t.selected and self.card_present and t.picc.layer4:
            t.picc.handle_raw(b"\xc2")
        t.selected = False
        return bytes([ST_OK])

    def _cmd_52(self, p):               # InRelease
        if len(p) != 1:
            raise SyntaxErr("Tg")
        t = self.target
        if t is None:
            return bytes([ST_OK if p[0] == 0 else ST_NOT_ALLOWED])
        if t.selected and self.card_present and t.picc.layer4:
            t.picc.handle_raw(b"\xc2")
        self.target = None
        return bytes([ST_OK])

    def _cmd_54(self, p):               # InSelect
        if len(p) != 1:
            raise SyntaxErr("Tg")
        if self.target is None or p[0] != 1:
            return bytes([ST_NOT_ALLOWED])
        if not self.card_present or not self.rf_on:
            return bytes([ST_TIMEOUT])
        self._reselect()
        return bytes([ST_OK])

    def _cmd_56(self, p):               # InJumpForDEP: no NFC-DEP target here
        return bytes([ST_TIMEOUT])

    def _cmd_4e(self, p):               # InPSL: the card only does 106 kbit/s
        return bytes([ST_NOT_ALLOWED])

    def _cmd_50(self, p):               # InATR: no NFC-DEP target
        return bytes([ST_NOT_ALLOWED])

    def _cmd_8c(self, p):               # TgInitAsTarget: no initiator ever comes
        return None


def historical_bytes(atr):
    """Historical bytes of an ISO 7816-3 ATR."""
    if len(atr) < 2:
        return b""
    k, y, i = atr[1] & 0x0F, atr[1] >> 4, 1
    while True:
        i += bin(y & 0x7).count("1")
        if not y & 0x8:
            break
        i += 1
        y = atr[i] >> 4
    return bytes(atr[i + 1:i + 1 + k])


# --- the pty loop -------------------------------------------------------------------
class PtyServer:
    """Owns the pty pair and runs the PN532 until SIGTERM."""

    def __init__(self, pn532, ready_file=None):
        self.pn532 = pn532
        self.ready_file = ready_file
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        os.set_blocking(self.master, False)
        self.ejected = False

    @property
    def connstring(self):
        return "pn532_uart:%s" % self.path

    def _write(self, data):
        while data:
            try:
                n = os.write(self.master, data)
                data = data[n:]
            except BlockingIOError:
                r, w, _ = select.select([], [self.master], [], 1.0)
                if not w:
                    log.warning("nobody reads the tty: %d bytes dropped", len(data))
                    termios.tcflush(self.slave, termios.TCIFLUSH)
                    return

    def eject(self, *_):
        self.ejected = True

    def run(self):
        # The handler only sets a flag; the wake-up pipe makes select() return
        # at once so the card leaves the field right away, between commands.
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_r, False)
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGUSR1, self.eject)
        if self.ready_file:
            tmp = self.ready_file + ".tmp"
            with open(tmp, "w") as f:
                f.write(self.connstring + "\n")
            os.replace(tmp, self.ready_file)
        log.info("PN532 (v1.6) on %s, connstring %s", self.path, self.connstring)
        verbose = getattr(self.pn532.chip, "verbose", False)
        try:
            while True:
                if self.ejected:
                    self.ejected = False
                    self.pn532.card_gone("ejected")
                r, _, _ = select.select([self.master, wake_r], [], [])
                if wake_r in r:
                    try:
                        os.read(wake_r, 64)
                    except BlockingIOError:
                        pass
                    continue
                if not r:
                    continue
                try:
                    data = os.read(self.master, 4096)
                except BlockingIOError:
                    continue
                except OSError as e:
                    log.error("pty read: %s", e)
                    return
                if verbose:
                    log.info("host> %s", data.hex().upper())
                out = self.pn532.feed(data)
                if out:
                    if verbose:
                        log.info("host< %s", out.hex().upper())
                    self._write(out)
        finally:
            signal.set_wakeup_fd(-1)
            for fd in (wake_r, wake_w, self.master, self.slave):
                os.close(fd)
