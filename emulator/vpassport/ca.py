"""Chip Authentication, chip side (ICAO 9303-11 section 6.2, BSI TR-03110-3).

Under the current secure messaging (BAC or PACE) the terminal sends its
ephemeral public key, either

  3DES protocols (id-CA-*-3DES-CBC-CBC):  MSE:Set KAT  0C 22 41 A6 {91 PK [84 keyId]}
  AES protocols (…-AES-CBC-CMAC-*):       MSE:Set AT   0C 22 41 A4 {80 OID [84 keyId]}
                                          then GENERAL AUTHENTICATE 0C 86 00 00
                                          {7C {80 PK}} -> 7C 00

The answer to the command carrying the key is still wrapped with the old
session keys; from the next command on the chip uses KS_enc = KDF(K, 1),
KS_mac = KDF(K, 2) of the shared secret K (ECDH: x coordinate; DH: the shared
value, both padded to the field size) and an SSC of 0. KDF(K, c) is
SHA-1(K || c) (3DES: first 16 bytes, DES parity; AES-128: first 16 bytes) or
SHA-256(K || c) (AES-192: first 24 bytes; AES-256: all 32).
Status words are listed in README.md.
"""
import hashlib
import logging

from der import oid_text, parse_tlvs

from . import bac, ecc
from .apdu import ChipError
from .keys import ID_CA, ID_PK_DH
from .sm import AesSession, BacSession

log = logging.getLogger("vpassport.ca")

CIPHERS = {1: "3DES-CBC-CBC", 2: "AES-CBC-CMAC-128", 3: "AES-CBC-CMAC-192",
           4: "AES-CBC-CMAC-256"}


def protocol_name(oid):
    arcs = oid.split(".")
    return "id-CA-%s-%s" % ("DH" if arcs[-2] == "1" else "ECDH", CIPHERS.get(int(arcs[-1]), "?"))


def session_keys(secret, cipher_arc):
    """(KS_enc, KS_mac) for the last arc of the CA protocol OID."""
    def kdf(counter):
        data = secret + counter.to_bytes(4, "big")
        if cipher_arc == 1:
            return bac.derive_key(secret, counter)
        if cipher_arc == 2:
            return hashlib.sha1(data).digest()[:16]
        return hashlib.sha256(data).digest()[:24 if cipher_arc == 3 else 32]
    return kdf(1), kdf(2)


class ChipAuthentication:
    """The chip's CA key pair (from DG14) and the protocols it offers with it."""

    def __init__(self, private, public, key_id, protocols, wrong_key=False):
        self.private, self.public, self.key_id = private, public, key_id
        self.protocols = list(protocols)            # OIDs (dotted) offered with this key
        self.domain = public.domain
        self.secret = private.secret
        if wrong_key:                               # --ca-wrong-key: what a clone would do
            if isinstance(self.domain, ecc.Curve):
                self.secret = self.domain.random_scalar()
            else:
                self.secret = self.domain.random_exponent()
        self.reset()

    def describe(self):
        return "%s on %s%s" % (", ".join(protocol_name(p) for p in self.protocols), self.domain,
                               "" if self.key_id is None else ", keyId %d" % self.key_id)

    def reset(self):
        self.pending = None                         # protocol of an accepted MSE:Set AT

    # --- commands ------------------------------------------------------------------------------------
    def mse(self, cmd, session):
        """MSE:Set KAT (41A6) or MSE:Set AT (41A4) -> (sw, data, new session or None)."""
        self.reset()
        if session is None:
            raise ChipError(0x6982, "Chip Authentication needs secure messaging")
        if (cmd.p1, cmd.p2) not in ((0x41, 0xA6), (0x41, 0xA4)):
            raise ChipError(0x6A86, "MSE %02X%02X not supported" % (cmd.p1, cmd.p2))
        if getattr(session, "chip_authenticated", False):
            raise ChipError(0x6985, "Chip Authentication was done already in this session")
        try:
            dos = {}
            for tag, value, _ in parse_tlvs(cmd.data):
                if tag in dos:
                    raise ValueError("DO'%02X' twice" % tag)
                dos[tag] = value
        except ValueError as e:
            raise ChipError(0x6A80, "MSE data: %s" % e)
        if 0x84 in dos:
            wanted = int.from_bytes(dos[0x84], "big")
            if self.key_id is None or wanted != self.key_id:
                raise ChipError(0x6A88, "no Chip Authentication key with keyId %d" % wanted)
        if cmd.p2 == 0xA6:                          # Set KAT: 3DES, key in DO'91'
            if set(dos) - {0x91, 0x84} or 0x91 not in dos:
                raise ChipError(0x6A80, "MSE:Set KAT needs DO'91' (and optionally DO'84') only")
            tdes = [p for p in self.protocols if p.endswith(".1")]
            if not tdes:
                raise ChipError(0x6A80, "MSE:Set KAT but no 3DES Chip Authentication is offered")
            return self._agree(tdes[0], dos[0x91], session)
        if set(dos) - {0x80, 0x84} or 0x80 not in dos:
            raise ChipError(0x6A80, "MSE:Set AT for CA needs DO'80' (and optionally DO'84') only")
        oid = oid_text(dos[0x80]) if dos[0x80] else ""
        if oid not in self.protocols:
            raise ChipError(0x6A80, "Chip Authentication protocol %s not offered" % oid)
        self.pending = oid
        log.info("MSE:Set AT %s", protocol_name(oid))
        return 0x9000, b"", None

    def general_authenticate(self, cmd, session):
        if session is None:
            raise ChipError(0x6982, "Chip Authentication needs secure messaging")
        protocol, self.pending = self.pending, None
        if cmd.p1 or cmd.p2:
            raise ChipError(0x6A86, "P1-P2 must be 0000")
        if protocol is None:
            raise ChipError(0x6985, "GENERAL AUTHENTICATE without MSE:Set AT for CA")
        if cmd.ne is None:
            raise ChipError(0x6700, "GENERAL AUTHENTICATE without Le")
        try:
            outer = parse_tlvs(cmd.data)
            if len(outer) != 1 or outer[0][0] != 0x7C:
                raise ValueError("one DO'7C' expected")
            inner = parse_tlvs(outer[0][1])
            if len(inner) != 1 or inner[0][0] != 0x80:
                raise ValueError("DO'7C' must hold exactly DO'80'")
        except ValueError as e:
            raise ChipError(0x6A80, "dynamic authentication data: %s" % e)
        sw, _, new = self._agree(protocol, inner[0][1], session)
        return sw, b"\x7C\x00", new

    # --- key agreement -------------------------------------------------------------------------------
    def shared_secret(self, public_value):
        """K from the terminal's ephemeral public key; ValueError if it is invalid."""
        dom = self.domain
        if isinstance(dom, ecc.Curve):
            point = dom.mul(self.secret, dom.decode(public_value))
            if point is None:
                raise ValueError("shared point at infinity")
            return point[0].to_bytes(dom.size, "big")
        y = dom.decode(public_value)
        return dom.encode(pow(y, self.secret, dom.p))

    def _agree(self, protocol, public_value, session):
        try:
            secret = self.shared_secret(public_value)
        except ValueError as e:
            raise ChipError(0x6A80, "terminal's ephemeral public key: %s" % e)
        arc = int(protocol.split(".")[-1])
        ks_enc, ks_mac = session_keys(secret, arc)
        new = BacSession(ks_enc, ks_mac, 0) if arc == 1 else AesSession(ks_enc, ks_mac, 0)
        new.kind = session.kind                 # what opened the session (BAC / PACE)
        new.chip_authenticated = True
        # For Terminal Authentication (ta.py): ~PK_PCD, and what PACE left for ID_PICC.
        new.ca_terminal_key = bytes(public_value)
        new.ca_key_kind = "EC" if isinstance(self.domain, ecc.Curve) else "DH"
        for name in ("pace_chip_key", "pace_terminal_key", "pace_key_kind", "pace_mapping"):
            if hasattr(session, name):
                setattr(new, name, getattr(session, name))
        log.info("Chip Authentication (%s) done; secure messaging restarts with its keys",
                 protocol_name(protocol))
        return 0x9000, b"", new


def offered_protocols(security_infos, pk_oid, key_id):
    """CA protocol OIDs of DG14 usable with the key (same DH/ECDH kind and
    keyId). Without any ChipAuthenticationInfo, 3DES (ICAO 9303-11: a DG14
    with only the public key means id-CA-*-3DES-CBC-CBC)."""
    kind_arc = "1" if pk_oid == ID_PK_DH else "2"
    out = []
    for oid, _version, info_key_id in security_infos.ca_infos:
        arcs = oid.split(".")
        if arcs[-2] == kind_arc and int(arcs[-1]) in CIPHERS and \
                (info_key_id is None or key_id is None or info_key_id == key_id):
            out.append(oid)
    if not security_infos.ca_infos:
        out.append("%s.%s.1" % (ID_CA, kind_arc))
    return out


class KeyChoice:
    """Several Chip Authentication key pairs of one DG14 (--ca-extra-key), as a chip holding a
    private key for each keyId: MSE:Set KAT / Set AT's DO'84' picks the key (no DO'84': the
    first); the rest is that key's ChipAuthentication."""

    def __init__(self, chips):
        self.chips = list(chips)
        self.current = self.chips[0]

    def describe(self):
        return "; ".join(c.describe() for c in self.chips)

    def reset(self):
        for chip in self.chips:
            chip.reset()

    def mse(self, cmd, session):
        try:
            dos = {tag: value for tag, value, _ in parse_tlvs(cmd.data)}
        except ValueError:
            dos = {}
        self.current = self.chips[0]
        if 0x84 in dos:
            wanted = int.from_bytes(dos[0x84], "big")
            self.current = next((c for c in self.chips if c.key_id == wanted), self.chips[0])
        self.reset()
        return self.current.mse(cmd, session)

    def general_authenticate(self, cmd, session):
        return self.current.general_authenticate(cmd, session)
