"""Active Authentication, chip side (ICAO 9303-11 section 6.1).

INTERNAL AUTHENTICATE (INS 88) with an 8-byte challenge RND.IFD, under secure
messaging only. The chip signs with the private key of DG15:

  RSA   ISO/IEC 9796-2 digital signature scheme 1, partial message recovery:
        m = 6A || M1 || H(M1 || RND.IFD) || trailer, M1 random and as long as
        the modulus leaves room for (k - 2 - |H| bytes with trailer BC for
        SHA-1, k - 3 - |H| with the two-byte trailer xx CC for the others:
        33 SHA-1, 38 SHA-224, 34 SHA-256, 36 SHA-384, 35 SHA-512);
        signature = m^d mod n as k bytes (k = modulus length in bytes).
  ECDSA the hash of DG14's ActiveAuthenticationInfo (SHA-256 without one)
        over RND.IFD; the signature is plain r || s (each the order's length).

Status words are listed in README.md.
"""
import logging
import os

from .apdu import ChipError
from .keys import ECDSA_HASHES, hash_function

log = logging.getLogger("vpassport.aa")

# ISO/IEC 10118-3 hash identifiers for the ISO/IEC 9796-2 trailer "xx CC"
TRAILER_IDS = {"sha1": 0x33, "sha224": 0x38, "sha256": 0x34, "sha384": 0x36, "sha512": 0x35}
CHALLENGE_LENGTH = 8


class ActiveAuthentication:
    def __init__(self, private, public, rsa_hash="sha1", ecdsa_hash=None,
                 bad_signature=False, random=os.urandom):
        if private.kind not in ("RSA", "EC"):
            raise ValueError("Active Authentication needs an RSA or EC key, not %s" % private.kind)
        self.private, self.public = private, public
        self.rsa_hash = rsa_hash
        self.ecdsa_hash = ecdsa_hash or "sha256"
        self.bad_signature = bad_signature
        self.random = random
        if private.kind == "RSA":
            bits = private.n.bit_length()
            if bits % 8:
                raise ValueError("RSA modulus of %d bits: only whole-byte moduli are supported" % bits)
            if self.m1_length() < 1:
                raise ValueError("RSA modulus too short for ISO/IEC 9796-2 with %s" % rsa_hash)

    def describe(self):
        if self.private.kind == "RSA":
            return "RSA %d-bit, ISO/IEC 9796-2 scheme 1, %s (trailer %s)" % (
                self.private.n.bit_length(), self.rsa_hash.upper(),
                "BC" if self.rsa_hash == "sha1" else "%02XCC" % TRAILER_IDS[self.rsa_hash])
        return "ECDSA on %s, %s, plain r||s" % (self.public.domain, self.ecdsa_hash.upper())

    @property
    def signature_length(self):
        if self.private.kind == "RSA":
            return (self.private.n.bit_length() + 7) // 8
        return 2 * self.public.domain.order_size

    def m1_length(self):
        k = (self.private.n.bit_length() + 7) // 8
        h = hash_function(self.rsa_hash)().digest_size
        return k - 1 - h - (1 if self.rsa_hash == "sha1" else 2)

    # --- INTERNAL AUTHENTICATE -------------------------------------------------------------------
    def internal_authenticate(self, cmd, session):
        if session is None:
            raise ChipError(0x6982, "INTERNAL AUTHENTICATE needs secure messaging (BAC or PACE)")
        if cmd.p1 or cmd.p2:
            raise ChipError(0x6A86, "P1-P2 must be 0000")
        if len(cmd.data) != CHALLENGE_LENGTH:
            raise ChipError(0x6700, "challenge of %d bytes, 8 expected" % len(cmd.data))
        if cmd.ne is None or cmd.ne < self.signature_length:
            raise ChipError(0x6700, "Le %s is smaller than the %d-byte signature" %
                            (cmd.ne, self.signature_length))
        sig = self.sign(cmd.data)
        if self.bad_signature:
            sig = sig[:-1] + bytes([sig[-1] ^ 0x01])
            log.info("--aa-bad-signature: last bit of the signature flipped")
        log.info("Active Authentication: signed the challenge (%d bytes)", len(sig))
        return 0x9000, sig

    def sign(self, challenge):
        if self.private.kind == "RSA":
            return self.sign_9796_2(challenge)
        return self.sign_ecdsa(challenge)

    def sign_9796_2(self, challenge, m1=None):
        key = self.private
        k = (key.n.bit_length() + 7) // 8
        if m1 is None:
            m1 = self.random(self.m1_length())
        digest = hash_function(self.rsa_hash)(m1 + challenge).digest()
        trailer = b"\xBC" if self.rsa_hash == "sha1" else bytes([TRAILER_IDS[self.rsa_hash], 0xCC])
        m = b"\x6A" + m1 + digest + trailer
        assert len(m) == k
        return pow(int.from_bytes(m, "big"), key.secret, key.n).to_bytes(k, "big")

    def sign_ecdsa(self, challenge, nonce=None):
        curve, d = self.public.domain, self.private.secret
        n = curve.n
        digest = hash_function(self.ecdsa_hash)(challenge).digest()
        e = int.from_bytes(digest, "big")
        if len(digest) * 8 > n.bit_length():
            e >>= len(digest) * 8 - n.bit_length()
        while True:
            k = nonce or curve.random_scalar()
            r = curve.mul(k)[0] % n
            s = pow(k, -1, n) * (e + r * d) % n
            if r and s:
                size = curve.order_size
                return r.to_bytes(size, "big") + s.to_bytes(size, "big")
            nonce = None


def ecdsa_hash_of(security_infos):
    """Hash named by DG14's ActiveAuthenticationInfo, or None."""
    if security_infos is None or security_infos.aa_signature_oid is None:
        return None
    name = ECDSA_HASHES.get(security_infos.aa_signature_oid)
    if name is None:
        raise ValueError("DG14 ActiveAuthenticationInfo names an unknown signature algorithm %s"
                         % security_infos.aa_signature_oid)
    return name


def sign_9796_2_bad_trailer(chip_aa, challenge):
    """--quirk aa-bad-trailer: ISO/IEC 9796-2 as sign_9796_2, but the trailer's last byte is
    wrong (BC -> BD, xx CC -> xx CD); the signature itself is the key's. RSA only."""
    key = chip_aa.private
    if key.kind != "RSA":
        raise ChipError(0x6985, "--quirk aa-bad-trailer needs an RSA key")
    k = (key.n.bit_length() + 7) // 8
    m1 = chip_aa.random(chip_aa.m1_length())
    digest = hash_function(chip_aa.rsa_hash)(m1 + challenge).digest()
    trailer = b"\xBD" if chip_aa.rsa_hash == "sha1" else bytes([TRAILER_IDS[chip_aa.rsa_hash], 0xCD])
    m = b"\x6A" + m1 + digest + trailer
    log.info("--quirk aa-bad-trailer: trailer %s", trailer.hex().upper())
    return pow(int.from_bytes(m, "big"), key.secret, key.n).to_bytes(k, "big")


def ecdsa_hash_or_sha256(security_infos, log_=log):
    """Hash named by DG14's ActiveAuthenticationInfo; an unknown signature algorithm (a DG14
    made wrong on purpose) gives SHA-256 with a warning instead of refusing to start."""
    try:
        return ecdsa_hash_of(security_infos)
    except ValueError as e:
        log_.warning("%s: the chip signs with SHA-256", e)
        return "sha256"
