"""Secure messaging sessions of the chip: keys, send sequence counter, cipher.

chip.py does the ICAO 9303-11 section 9.8 framing (DO'87'/'85'/'97'/'99'/'8E')
and asks a session for the cryptography:

  next_ssc()     increment the SSC (before each command and each response)
  pad(data)      ISO/IEC 9797-1 padding method 2 to the cipher's block size
  mac(data)      8-byte MAC over SSC || pad(data)
  encrypt(data)  pad and encrypt (IV per the session's cipher and the SSC)
  decrypt(data)  decrypt and remove the padding (ValueError if it is wrong)

BacSession: 3DES after BAC (bac.py primitives, SSC from the nonces).
PaceSession: the cipher PACE chose (AES-CBC/CMAC, or 3DES for *-3DES-* OIDs),
computed by OpenPACE (EAC_encrypt/EAC_decrypt/EAC_authenticate with its own
SSC, which starts at 0 and has the cipher's block size).
AesSession: AES secure messaging with given keys (after Chip Authentication
with an AES protocol; pycryptodome): IV = E(KS_enc, SSC), CMAC-8, 16-byte SSC.
After a 3DES Chip Authentication the chip uses a BacSession with SSC 0.
"""
from Cryptodome.Cipher import AES
from Cryptodome.Hash import CMAC

from . import bac


class BacSession:
    """Keys and send sequence counter of an established BAC session."""

    kind = "BAC"
    block = 8

    def __init__(self, ks_enc, ks_mac, ssc):
        self.ks_enc, self.ks_mac, self.ssc = ks_enc, ks_mac, ssc

    def next_ssc(self):
        self.ssc = (self.ssc + 1) % (1 << 64)
        return self.ssc.to_bytes(8, "big")

    @staticmethod
    def pad(data):
        return bac.pad(data)

    def mac(self, data):
        return bac.retail_mac(self.ks_mac, self.ssc.to_bytes(8, "big") + data)

    def encrypt(self, data):
        return bac.enc(self.ks_enc, bac.pad(data))

    def decrypt(self, data):
        return bac.unpad(bac.dec(self.ks_enc, data))


class PaceSession:
    """Secure messaging with the session keys of a finished PACE run."""

    kind = "PACE"

    def __init__(self, run):
        self.run = run                          # openpace.Pace, SM context set
        self.block = run.block_size()
        self.ssc = 0

    def next_ssc(self):
        self.run.increment_ssc()
        self.ssc += 1
        return self.ssc.to_bytes(self.block, "big")

    def pad(self, data):
        return self.run.pad(data)

    def mac(self, data):
        return self.run.mac(self.run.pad(data))

    def encrypt(self, data):
        return self.run.encrypt(self.run.pad(data))

    def decrypt(self, data):
        return self.run.unpad(self.run.decrypt(data))

    def keys(self):
        return self.run.session_keys()


class AesSession:
    """AES-CBC / AES-CMAC secure messaging (ICAO 9303-11 9.8.6.2, 9.8.7) with
    keys of 16, 24 or 32 bytes; the SSC is 16 bytes."""

    kind = "CA"
    block = 16

    def __init__(self, ks_enc, ks_mac, ssc=0):
        self.ks_enc, self.ks_mac, self.ssc = ks_enc, ks_mac, ssc

    def next_ssc(self):
        self.ssc = (self.ssc + 1) % (1 << 128)
        return self.ssc.to_bytes(16, "big")

    @staticmethod
    def pad(data):
        data = data + b"\x80"
        return data + bytes(-len(data) % 16)

    def mac(self, data):
        c = CMAC.new(self.ks_mac, ciphermod=AES)
        c.update(self.ssc.to_bytes(16, "big") + self.pad(data))
        return c.digest()[:8]

    def _cipher(self):
        iv = AES.new(self.ks_enc, AES.MODE_ECB).encrypt(self.ssc.to_bytes(16, "big"))
        return AES.new(self.ks_enc, AES.MODE_CBC, iv=iv)

    def encrypt(self, data):
        return self._cipher().encrypt(self.pad(data))

    def decrypt(self, data):
        plain = self._cipher().decrypt(data)
        stripped = plain.rstrip(b"\x00")
        if not stripped.endswith(b"\x80") or len(plain) - len(stripped) > 15:
            raise ValueError("bad ISO 9797-1 method 2 padding")
        return stripped[:-1]
