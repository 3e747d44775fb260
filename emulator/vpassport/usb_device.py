"""Emulated USB readers around the virtual passport's chip, for Debian's own reader drivers:
pcscd's CCID driver (libccid) reaches them through emulator/vpassport/usbshim (LD_PRELOAD), which
carries libusb transfers to this process over a UNIX socket (the framing is in libusb_shim.c).

Models (facts from the USB CCID specification rev 1.1, PC/SC part 3, the readers' data sheets
and libccid's reader list; no driver code is copied):
  ccid-extended  Identiv uTrust 3700 F (04e6:5790): CCID, extended APDU exchange level, messages
                 of at most 271 bytes (longer APDUs and answers travel in chained blocks,
                 wLevelParameter / bChainParameter), an interrupt endpoint for card movements.
  acr122u        ACS ACR122U (072f:2200): CCID, short APDU exchange level, for libccid; and the
                 PN532 behind it for libnfc's acr122_usb driver, reached by the ACR122U's pseudo
                 APDUs (FF 00 00 00 Lc D4…: "direct transmit", ACR122U API manual) in XfrBlock.
  pn533          SCM SCL3711 (04e6:5591): a PN533 on vendor-specific bulk endpoints (0x04 out,
                 0x84 in), PN53x frames as on a UART, for libnfc's pn53x_usb driver.

The reader builds the contactless card's ATR as PC/SC part 3 says: 3B 8n 80 01, the chip's
historical bytes, TCK. A card that drops (the virtual passport's --drop-during or a fault) makes
the slot empty: the pending exchange fails (ICC mute) and the interrupt endpoint announces it.
`unplug` (SIGUSR2) makes the device vanish from the bus; `plug` (SIGUSR2 again) brings it back.
"""
import logging
import os
import socket
import struct
import threading

from .chip import CardDropped
from .pn532 import ACK_FRAME, TFI_HOST, Pn532, historical_bytes

log = logging.getLogger("vpassport.usb")

LIBUSB_ERROR_TIMEOUT = -7
LIBUSB_ERROR_PIPE = -9

BULK_OUT, BULK_IN, INTERRUPT_IN = 0x02, 0x82, 0x83


class InQueue:
    """What a bulk IN endpoint gives, packet by packet. An unplug empties it and starts a new
    generation: an answer to a request the unplug cut is dropped, not given to the next host."""

    def __init__(self):
        self.items, self.generation = [], 0
        self.condition = threading.Condition()

    def put(self, packets, generation):
        with self.condition:
            if generation == self.generation:
                self.items += packets
            self.condition.notify_all()

    def clear(self, unplugged=False):
        with self.condition:
            self.items = []
            if unplugged:
                self.generation += 1

    def take(self, timeout_ms):
        with self.condition:
            if not self.condition.wait_for(lambda: self.items, timeout=timeout_ms / 1000 if timeout_ms else None):
                return LIBUSB_ERROR_TIMEOUT, b""
            return 0, self.items.pop(0)


class Model:
    def __init__(self, name, vendor, product, manufacturer, product_name, serial, features, max_message, firmware=0x0100,
                 ccid=True):
        self.name, self.vendor, self.product, self.firmware = name, vendor, product, firmware
        self.manufacturer, self.product_name, self.serial = manufacturer, product_name, serial
        self.features, self.max_message = features, max_message
        self.ccid = ccid

    @property
    def extended(self):
        return self.features & 0x00070000 == 0x00040000


# dwFeatures: automatic parameters from the ATR (0x02), activation (0x04), voltage (0x08),
# clock (0x10), baud rate (0x20), PPS by the reader (0x80); exchange level: 0x00020000 short
# APDU, 0x00040000 short and extended APDU.
MODELS = {
    "ccid-extended": Model("ccid-extended", 0x04E6, 0x5790, "Identiv", "uTrust 3700 F CL Reader", "55041942700133",
                           0x000400BE, 271),
    # libccid refuses ACR122U firmware it lists as bogus (bcdDevice 1.00 was refused here); the
    # common ACR122U214 reports 2.14.
    "acr122u": Model("acr122u", 0x072F, 0x2200, "ACS", "ACR122U PICC Interface", None,
                     0x000200BE, 271, firmware=0x0214),
    "pn533": Model("pn533", 0x04E6, 0x5591, "SCM Micro", "SCL3711-NFC&RW", None, 0, 0, firmware=0x0100,
                   ccid=False),
}


def ccid_class_descriptor(model):
    """The 54-byte CCID functional descriptor (CCID 1.1, table 5.1-1)."""
    return struct.pack("<BBHBBIIIBIIBIIIIIBBHBB",
                       0x36, 0x21, 0x0110, 0, 0x07, 0x00000003, 3580, 3580, 0, 9600, 9600, 0, 254,
                       0, 0, model.features, model.max_message, 0xFF, 0xFF, 0, 0, 1)


PN533_OUT, PN533_IN = 0x04, 0x84


def descriptors(model):
    device = struct.pack("<BBHBBBBHHHBBBB", 18, 1, 0x0200, 0, 0, 0, 64, model.vendor, model.product,
                         model.firmware, 1, 2, 3 if model.serial else 0, 1)
    if model.ccid:
        interface = struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 3, 0x0B, 0, 0, 0)
        endpoints = struct.pack("<BBBBHB", 7, 5, BULK_OUT, 2, 64, 0) + struct.pack("<BBBBHB", 7, 5, BULK_IN, 2, 64, 0) + \
            struct.pack("<BBBBHB", 7, 5, INTERRUPT_IN, 3, 8, 16)
        body = interface + ccid_class_descriptor(model) + endpoints
    else:                                   # vendor-specific: two bulk endpoints
        interface = struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 2, 0xFF, 0xFF, 0xFF, 0)
        body = interface + struct.pack("<BBBBHB", 7, 5, PN533_IN, 2, 64, 0) + struct.pack("<BBBBHB", 7, 5, PN533_OUT, 2, 64, 0)
    config = struct.pack("<BBHBBBBB", 9, 2, 9 + len(body), 1, 1, 0, 0x80, 50) + body
    strings = [(1, model.manufacturer), (2, model.product_name)] + ([(3, model.serial)] if model.serial else [])
    blob = bytes([1, 5]) + device + struct.pack("<H", len(config)) + config + bytes([len(strings)])
    for index, text in strings:
        blob += bytes([index, len(text)]) + text.encode()
    return blob


class CCIDReader:
    """One slot, one contactless chip. Bulk OUT takes PC_to_RDR messages, bulk IN gives the
    answers in order, interrupt IN announces the slot's changes."""

    def __init__(self, chip, model, on_card_gone=None):
        self.chip, self.model, self.on_card_gone = chip, model, on_card_gone
        self.present, self.powered = True, False
        self.answers = InQueue()
        self.changed = True             # the host learns the slot's state first
        self.condition = threading.Condition()
        self.command = b""              # a command APDU arriving in chained blocks
        self.pending = b""              # an answer still to be given in chained blocks

    # --- the chip -------------------------------------------------------------------------
    def atr(self):
        history = historical_bytes(self.chip.getATR())
        body = bytes([0x80 | len(history), 0x80, 0x01]) + history
        tck = 0
        for byte in body:
            tck ^= byte
        return bytes([0x3B]) + body + bytes([tck])

    def card_gone(self, reason):
        with self.condition:
            if self.present:
                log.info("card left the field (%s)", reason)
                self.present, self.powered, self.changed = False, False, True
                self.condition.notify_all()
        if hasattr(self, "pn532") and self.pn532.card_present:
            self.pn532.card_gone(reason)        # the field of the PN532 that libnfc drives
            return
        if self.on_card_gone:
            self.on_card_gone(reason)
        back = getattr(self.chip, "return_after", None)
        if back:
            self.chip.return_after = None
            threading.Timer(back, self.card_returns).start()

    def card_returns(self):
        with self.condition:
            log.info("card back in the field")
            self.present, self.changed = True, True
            self.condition.notify_all()
        if self.on_card_gone:
            self.on_card_gone(None)

    # --- CCID messages ----------------------------------------------------------------------
    def slot_status(self):
        return 0 if self.present and self.powered else (1 if self.present else 2)

    def reply(self, kind, sequence, data=b"", failed=False, error=0, chain=0, extra=0):
        status = self.slot_status() | (0x40 if failed else 0)
        specific = chain if kind == 0x80 else extra
        return struct.pack("<BIBBBBB", kind, len(data), 0, sequence, status, error, specific) + data

    def handle(self, message):
        if len(message) < 10:
            return None
        kind, length, sequence = message[0], struct.unpack("<I", message[1:5])[0], message[6]
        data = message[10:10 + length]
        if kind == 0x62:                                      # PC_to_RDR_IccPowerOn
            if not self.present:
                return self.reply(0x80, sequence, failed=True, error=0xFE)
            self.chip.powerUp()
            self.powered = True
            return self.reply(0x80, sequence, self.atr())
        if kind == 0x63:                                      # PC_to_RDR_IccPowerOff
            if self.powered:
                self.chip.powerDown()
            self.powered = False
            return self.reply(0x81, sequence)
        if kind == 0x65:                                      # PC_to_RDR_GetSlotStatus
            return self.reply(0x81, sequence)
        if kind == 0x6F:                                      # PC_to_RDR_XfrBlock
            return self.transfer(sequence, data, struct.unpack("<H", message[8:10])[0])
        if kind == 0x6B:                                      # PC_to_RDR_Escape
            return self.reply(0x83, sequence, b"")
        if kind in (0x61, 0x6C, 0x6D):                        # parameters, clock and data rate
            if kind == 0x6D:                                  # RDR_to_PC_DataRateAndClockFrequency
                return self.reply(0x84, sequence, struct.pack("<II", 3580, 9600))
            return self.reply(0x82, sequence, bytes([0x11, 0x10, 0x00, 0x4D, 0x00, 0xFE, 0x00]), extra=1)  # T=1
        log.warning("CCID message %02X not supported", kind)
        return self.reply(0x81, sequence, failed=True, error=0x00)   # CMD_NOT_SUPPORTED

    def transfer(self, sequence, data, level):
        if self.model.name == "acr122u" and data[:1] == b"\xFF" and level == 0:
            return self.reply(0x80, sequence, self.pseudo_apdu(data))
        if not (self.present and self.powered):
            return self.reply(0x80, sequence, failed=True, error=0xFE)
        room = self.model.max_message - 10
        if level == 0x10:                                     # give the next block of the answer
            return self.next_block(sequence, room)
        if level in (0x01, 0x03):                             # more of the command follows
            self.command += data
            return self.reply(0x80, sequence, chain=0x10)
        apdu = self.command + data
        self.command = b""
        if not self.model.extended and len(apdu) > 5 and apdu[4] == 0:
            # A short-APDU reader passes no extended-length APDU to the card: wrong length.
            log.info("extended-length APDU refused by the %s (short APDUs only)", self.model.name)
            return self.reply(0x80, sequence, b"\x67\x00")
        try:
            answer = self.chip.execute(apdu)
        except CardDropped:
            self.card_gone("dropped")
            return self.reply(0x80, sequence, failed=True, error=0xFE)
        if len(answer) <= room or not self.model.extended:
            return self.reply(0x80, sequence, answer)
        self.pending = answer
        return self.next_block(sequence, room, first=True)

    def power_cycle(self):
        """Unplugged: whatever the device held (answers not yet read, the card's power) is lost."""
        self.answers.clear(unplugged=True)
        with self.condition:
            self.command, self.pending = b"", b""
            self.powered, self.changed = False, True
        if hasattr(self, "pn532"):
            del self.pn532

    def pseudo_apdu(self, apdu):
        """The ACR122U's own commands (class FF): direct transmit to its PN532, which drives the
        card itself (libnfc's acr122_usb); the firmware version; the rest (LED, buzzer, PICC
        parameters) accepted."""
        if apdu[1:4] == b"\x00\x00\x00" and len(apdu) > 5 and apdu[5] == TFI_HOST:
            answer = self.pn532_answer(apdu[5:5 + apdu[4]])
            # The reader's answer (with its status word) has a one-byte length: a longer PN532
            # answer fails (63 00).
            return answer + b"\x90\x00" if len(answer) + 2 <= 255 else b"\x63\x00"
        if apdu[1:3] == b"\x00\x48":
            return b"ACR122U214"
        return b"\x90\x00"

    def pn532_answer(self, tama):
        """`tama` (D4 CMD …) as a frame to the PN532; its answer's TFI and data (D5 CMD+1 …)."""
        if not hasattr(self, "pn532"):
            self.pn532 = Pn532(self.chip, on_card_gone=self.on_card_gone)
            self.pn532.power = "normal"
            self.pn532.card_present = self.present     # an ejected card is not in its field either
        n = len(tama)
        frame = b"\x00\x00\xff" + bytes([n, (-n) & 0xFF]) + tama + bytes([(-sum(tama)) & 0xFF, 0])
        for answer in split_frames(self.pn532.feed(frame)):
            if answer != ACK_FRAME:
                return frame_data(answer)
        return b""

    def next_block(self, sequence, room, first=False):
        block, self.pending = self.pending[:room], self.pending[room:]
        chain = (0x01 if first else 0x03) if self.pending else 0x02
        return self.reply(0x80, sequence, block, chain=chain)

    # --- endpoints --------------------------------------------------------------------------
    def bulk_out(self, data):
        generation = self.answers.generation
        answer = self.handle(data)
        if answer is not None:
            self.answers.put([answer], generation)
        return len(data)

    def bulk_in(self, timeout_ms):
        return self.answers.take(timeout_ms)

    def interrupt_in(self, timeout_ms):
        with self.condition:
            if not self.condition.wait_for(lambda: self.changed, timeout=timeout_ms / 1000 if timeout_ms else None):
                return LIBUSB_ERROR_TIMEOUT, b""
            self.changed = False
            return 0, bytes([0x50, 0x02 | (1 if self.present else 0)])   # RDR_to_PC_NotifySlotChange


def split_frames(data):
    """PN53x frames one after the other (ACK, normal, extended) as separate USB packets."""
    frames, at = [], 0
    while at + 6 <= len(data):
        start = data.find(b"\x00\xff", at)
        if start < 0:
            break
        if data[start + 2:start + 4] in (b"\x00\xff", b"\xff\x00"):     # ACK, NACK: 00 00 FF 00 FF 00
            end = start + 4
        elif data[start + 2:start + 4] == b"\xff\xff":                   # extended frame
            n = int.from_bytes(data[start + 4:start + 6], "big")
            end = start + 7 + n + 1
        else:
            end = start + 4 + data[start + 2] + 1
        frames.append(data[max(start - 1, at):end + 1])
        at = end + 1
    return frames


def frame_data(frame):
    """TFI and data of a normal or extended information frame."""
    start = frame.find(b"\x00\xff")
    if frame[start + 2:start + 4] == b"\xff\xff":
        n = int.from_bytes(frame[start + 4:start + 6], "big")
        return frame[start + 7:start + 7 + n]
    return frame[start + 4:start + 4 + frame[start + 2]]


class Pn533(Pn532):
    """The PN532 emulation answering as a PN533 (v2.7): the chip behind an SCL3711."""

    def _cmd_02(self, p):               # GetFirmwareVersion: PN533 v2.7, ISO 14443 A and B, DEP
        return bytes([0x33, 0x02, 0x07, 0x07])

    # A PN533 puts a status byte (00: success) before the answer of ReadRegister and
    # WriteRegister, where a PN532 has none (PN533 user manual; libnfc reads it so).
    def _cmd_06(self, p):
        return b"\x00" + super()._cmd_06(p)

    def _cmd_08(self, p):
        return b"\x00" + super()._cmd_08(p)


class PN533Stick:
    """A PN533 on bulk endpoints: each frame the host writes is answered by an ACK packet, then
    the answer's packet (pn53x_usb reads them one by one)."""

    def __init__(self, chip, model, on_card_gone=None):
        self.model = model
        self.pn533 = Pn533(chip, on_card_gone=on_card_gone)
        self.pn533.power = "normal"
        self.packets = InQueue()

    def card_gone(self, reason):
        self.pn533.card_gone(reason)

    def power_cycle(self):
        """Unplugged: packets not yet read and the PN533's state are lost; it starts afresh."""
        chip, on_card_gone = self.pn533.chip, self.pn533.on_card_gone
        self.packets.clear(unplugged=True)
        self.pn533 = Pn533(chip, on_card_gone=on_card_gone)
        self.pn533.power = "normal"

    def bulk_out(self, data):
        generation = self.packets.generation
        answer = self.pn533.feed(data)
        if data == ACK_FRAME:           # the host aborts: an answer it never read is dropped
            self.packets.clear()
        self.packets.put(split_frames(answer), generation)
        return len(data)

    def bulk_in(self, timeout_ms):
        return self.packets.take(timeout_ms)

    def interrupt_in(self, timeout_ms):
        return LIBUSB_ERROR_TIMEOUT, b""


class USBServer:
    """The UNIX socket the shim in the driver's process connects to (one thread per connection)."""

    def __init__(self, device, path, ready_file=None):
        self.device, self.path, self.ready_file = device, path, ready_file
        self.sockets = []
        self.listener = None

    def plug(self):
        if os.path.exists(self.path):
            os.remove(self.path)
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        os.chmod(self.path, 0o666)
        self.listener.listen(8)
        threading.Thread(target=self.accept, args=(self.listener,), daemon=True).start()
        log.info("USB device %04x:%04x plugged in (%s)", self.device.model.vendor, self.device.model.product, self.path)

    def unplug(self):
        log.info("USB device unplugged")
        self.device.power_cycle()
        listener, self.listener = self.listener, None
        if listener:
            listener.close()
        if os.path.exists(self.path):
            os.remove(self.path)
        for sock in self.sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.sockets = []

    def run(self):
        self.plug()
        if self.ready_file:
            with open(self.ready_file, "w") as f:
                f.write(self.path + "\n")
        threading.Event().wait()

    def accept(self, listener):
        while True:
            try:
                sock, _ = listener.accept()
            except OSError:
                return
            self.sockets.append(sock)
            threading.Thread(target=self.serve, args=(sock,), daemon=True).start()

    def serve(self, sock):
        try:
            while True:
                header = self.exact(sock, 10)
                op, endpoint = chr(header[0]), header[1]
                length, timeout = struct.unpack("<II", header[2:10])
                status, data = self.request(op, endpoint, length, timeout, self.exact(sock, length) if op in "OC" else b"")
                sock.sendall(struct.pack("<iI", status, len(data)) + data)
        except (EOFError, OSError):
            pass
        finally:
            if sock in self.sockets:
                self.sockets.remove(sock)
            sock.close()

    def request(self, op, endpoint, length, timeout, data):
        device = self.device
        if op == "D":
            return 0, descriptors(device.model)
        if op == "O":
            return device.bulk_out(data), b""
        if op == "I":
            status, answer = device.interrupt_in(timeout) if endpoint == INTERRUPT_IN else device.bulk_in(timeout)
            return (len(answer[:length]) if status == 0 else status), answer[:length]
        return LIBUSB_ERROR_PIPE, b""               # no control request is needed by the drivers

    @staticmethod
    def exact(sock, n):
        buf = b""
        while len(buf) < n:
            part = sock.recv(n - len(buf))
            if not part:
                raise EOFError("the driver closed the connection")
            buf += part
        return buf
