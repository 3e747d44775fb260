"""Emulated USB readers around the virtual passport's chip, for Debian's own reader drivers:
pcscd's CCID driver (libccid) reaches them through scripts/vpassport/usbshim (LD_PRELOAD), which
carries libusb transfers to this process over a UNIX socket (the framing is in libusb_shim.c).

Models (facts from the USB CCID specification rev 1.1, PC/SC part 3, the readers' data sheets
and libccid's reader list; no driver code is copied):
  ccid-extended  Identiv uTrust 3700 F (04e6:5790): CCID, extended APDU exchange level, messages
                 of at most 271 bytes (longer APDUs and answers travel in chained blocks,
                 wLevelParameter / bChainParameter), an interrupt endpoint for card movements.
  acr122u        ACS ACR122U (072f:2200) as libccid drives it: CCID, short APDU exchange level.

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
from .pn532 import historical_bytes

log = logging.getLogger("vpassport.usb")

LIBUSB_ERROR_TIMEOUT = -7
LIBUSB_ERROR_NO_DEVICE = -4
LIBUSB_ERROR_PIPE = -9

BULK_OUT, BULK_IN, INTERRUPT_IN = 0x02, 0x82, 0x83


class Model:
    def __init__(self, name, vendor, product, manufacturer, product_name, serial, features, max_message, firmware=0x0100):
        self.name, self.vendor, self.product, self.firmware = name, vendor, product, firmware
        self.manufacturer, self.product_name, self.serial = manufacturer, product_name, serial
        self.features, self.max_message = features, max_message

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
}


def ccid_class_descriptor(model):
    """The 54-byte CCID functional descriptor (CCID 1.1, table 5.1-1)."""
    return struct.pack("<BBHBBIIIBIIBIIIIIBBHBB",
                       0x36, 0x21, 0x0110, 0, 0x07, 0x00000003, 3580, 3580, 0, 9600, 9600, 0, 254,
                       0, 0, model.features, model.max_message, 0xFF, 0xFF, 0, 0, 1)


def descriptors(model):
    device = struct.pack("<BBHBBBBHHHBBBB", 18, 1, 0x0200, 0, 0, 0, 64, model.vendor, model.product,
                         model.firmware, 1, 2, 3 if model.serial else 0, 1)
    interface = struct.pack("<BBBBBBBBB", 9, 4, 0, 0, 3, 0x0B, 0, 0, 0)
    endpoints = struct.pack("<BBBBHB", 7, 5, BULK_OUT, 2, 64, 0) + struct.pack("<BBBBHB", 7, 5, BULK_IN, 2, 64, 0) + \
        struct.pack("<BBBBHB", 7, 5, INTERRUPT_IN, 3, 8, 16)
    body = interface + ccid_class_descriptor(model) + endpoints
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
        self.answers = []
        self.changed = True             # the host learns the slot's state first
        self.condition = threading.Condition()
        self.command = b""              # a command APDU arriving in chained blocks
        self.pending = b""              # an answer still to be given in chained blocks
        self.plugged = True

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
        kind, length, slot, sequence = message[0], struct.unpack("<I", message[1:5])[0], message[5], message[6]
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

    def next_block(self, sequence, room, first=False):
        block, self.pending = self.pending[:room], self.pending[room:]
        chain = (0x01 if first else 0x03) if self.pending else 0x02
        return self.reply(0x80, sequence, block, chain=chain)

    # --- endpoints --------------------------------------------------------------------------
    def bulk_out(self, data):
        answer = self.handle(data)
        if answer is not None:
            with self.condition:
                self.answers.append(answer)
                self.condition.notify_all()
        return len(data)

    def bulk_in(self, timeout_ms):
        with self.condition:
            if not self.condition.wait_for(lambda: self.answers, timeout=timeout_ms / 1000 if timeout_ms else None):
                return LIBUSB_ERROR_TIMEOUT, b""
            return 0, self.answers.pop(0)

    def interrupt_in(self, timeout_ms):
        with self.condition:
            if not self.condition.wait_for(lambda: self.changed, timeout=timeout_ms / 1000 if timeout_ms else None):
                return LIBUSB_ERROR_TIMEOUT, b""
            self.changed = False
            return 0, bytes([0x50, 0x02 | (1 if self.present else 0)])   # RDR_to_PC_NotifySlotChange


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
        if op == "C":
            return LIBUSB_ERROR_PIPE, b""           # no class request is needed by the drivers
        return LIBUSB_ERROR_PIPE, b""

    @staticmethod
    def exact(sock, n):
        buf = b""
        while len(buf) < n:
            part = sock.recv(n - len(buf))
            if not part:
                raise EOFError("the driver closed the connection")
            buf += part
        return buf
