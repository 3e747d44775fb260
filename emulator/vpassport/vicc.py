"""Socket loop between vpcd (the pcscd driver) and the emulated chip.

Same framing as the library's VirtualICC (2-byte big-endian length, then
either a 1-byte control code or an APDU), but written here because VirtualICC
insists on its own card types and calls sys.exit() on socket errors, while we
need connection retries (pcscd may still be starting) and a clean "vanish".
"""
import logging
import socket
import struct
import time

from .chip import CardDropped
from .libvsc import VPCD_CTRL_ATR, VPCD_CTRL_OFF, VPCD_CTRL_ON, VPCD_CTRL_RESET

log = logging.getLogger("vpassport.vicc")


def connect(host, port, timeout):
    """Connect to vpcd, retrying until it listens (pcscd loads it at start)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return socket.create_connection((host, port), timeout=2)
        except OSError as e:
            if time.monotonic() > deadline:
                raise OSError("vpcd not reachable on %s:%d: %s" % (host, port, e))
            time.sleep(0.05)


def _recv_exact(sock, n):
    buf = b""
    while len(buf) < n:
        # vpcd writes the length and the APDU separately with Nagle on: unless
        # we ACK at once, its second write waits for our delayed ACK (~40 ms
        # per APDU). Linux clears QUICKACK again after use, hence every time.
        if hasattr(socket, "TCP_QUICKACK"):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
        part = sock.recv(n - len(buf))
        if not part:
            raise EOFError("vpcd closed the connection")
        buf += part
    return buf


def serve(chip, sock, on_power_up=None):
    """Answer vpcd until it disconnects (returns False) or the card drops (returns True)."""
    sock.settimeout(None)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def send(payload):
        sock.sendall(struct.pack("!H", len(payload)) + payload)

    try:
        while True:
            size = struct.unpack("!H", _recv_exact(sock, 2))[0]
            msg = _recv_exact(sock, size) if size else b""
            if size == 1:
                code = msg[0]
                if code == VPCD_CTRL_ATR:       # also pcscd's presence poll
                    send(chip.getATR())
                elif code in (VPCD_CTRL_ON, VPCD_CTRL_RESET):
                    log.info("power up" if code == VPCD_CTRL_ON else "reset")
                    chip.powerUp() if code == VPCD_CTRL_ON else chip.reset()
                    # Only a power-up says pcscd has seen this card inserted. A reset may be
                    # pcscd cleaning up after an earlier card's client (a client that died
                    # during a transmit is reset late, on a busy machine after the next card
                    # is connected): taken for the insertion, the next scan would start
                    # before pcscd knows this card.
                    if on_power_up and code == VPCD_CTRL_ON:
                        on_power_up()
                elif code == VPCD_CTRL_OFF:
                    log.info("power down")
                    chip.powerDown()
                else:
                    log.warning("unknown vpcd control code %d", code)
            elif size:
                send(chip.execute(msg))
            else:
                log.warning("empty vpcd message")
    except CardDropped:
        # Make the pending transmit fail the way a removed card does. vpcd
        # 3.3 reports a connection lost while it waits for the length as a
        # *successful* empty response, so announce a response, then reset the
        # connection: the read of the body fails, pcscd answers the client
        # SCARD_E_NOT_TRANSACTED, and its next presence poll (<= 0.4 s)
        # reports the card removed (SCARD_W_REMOVED_CARD).
        log.info("card dropped: resetting the connection without answering")
        sock.sendall(struct.pack("!H", 16))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        return True
    except EOFError as e:
        log.info("%s", e)
    finally:
        sock.close()
    return False
