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
"""
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
