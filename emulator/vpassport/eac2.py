"""EAC version 2's order on the chip side (--quirk eac2; BSI TR-03110-2/-3), as eID-style documents
run it: PACE, then Terminal Authentication version 2, then EF.CardSecurity (withheld until then),
then Chip Authentication version 2 with the key EF.CardSecurity holds; no DG14.

  EF.CardAccess   PACEInfo, TerminalAuthenticationInfo (version 2), ChipAuthenticationInfo
                  (version 2, with the key's keyId) and ChipAuthenticationDomainParameterInfo
                  (standardized domain parameters), also signed into EF.CardSecurity
  TA version 2    MSE:Set AT carries DO'91', Comp(~PK_PCD) of the ephemeral key Chip
                  Authentication will use; the terminal signs ID_PICC || r_PICC || Comp(~PK_PCD)
                  with ID_PICC = Comp(the chip's ephemeral PACE key)
  CA version 2    MSE:Set AT {80 OID [84 keyId]}, GENERAL AUTHENTICATE {7C {80 ~PK_PCD}} after TA
                  only, with the key whose compressed form TA signed; the chip answers
                  7C {81 r_PICC, 82 T_PICC}: a nonce of 8 bytes and the authentication token
                  T_PICC = MAC(KS_mac, ~PK_PCD as a public key data object 7F49 {06 OID, 86 key}),
                  with KS_enc = KDF(K, r_PICC, 1) and KS_mac = KDF(K, r_PICC, 2), KDF(K, r, c) =
                  SHA-1(K || r || c) for AES-128 (TR-03110-3 A.2.3). Secure messaging restarts with
                  those keys; Terminal Authentication's rights carry over.
"""
import hashlib
import logging
import os

from Cryptodome.Cipher import AES
from Cryptodome.Hash import CMAC

from der import integer, oid, oid_text, parse_tlvs, sequence, tlv

from . import ca, ecc
from .apdu import ChipError
from .sm import AesSession

log = logging.getLogger("vpassport.eac2")

ID_TA = "0.4.0.127.0.7.2.2.2"
ID_CA_ECDH = "0.4.0.127.0.7.2.2.3.2"
ID_CA_ECDH_AES128 = ID_CA_ECDH + ".2"
STANDARDIZED_DOMAIN_PARAMETERS = "0.4.0.127.0.7.1.2"
NONCE_LENGTH = 8


class ChipAuthenticationV2(ca.ChipAuthentication):
    """Chip Authentication version 2 (AES-128, ECDH) with EF.CardSecurity's key, after TA."""

    def __init__(self, private, public, key_id, wrong_key=False):
        super().__init__(private, public, key_id, [ID_CA_ECDH_AES128], wrong_key=wrong_key)
        self.ta = None                              # ta.TerminalAuthentication, set by the caller

    def describe(self):
        return "version 2 (after Terminal Authentication): " + super().describe()

    def general_authenticate(self, cmd, session):
        protocol = self.pending
        if self.ta is None or not self.ta.done:
            self.reset()
            raise ChipError(0x6985, "Chip Authentication version 2 comes after Terminal Authentication")
        public_value = self._terminal_key(cmd)
        if ta_compressed(public_value) != self.ta.at_ephemeral:
            self.reset()
            raise ChipError(0x6A80, "the ephemeral key is not the one Terminal Authentication signed (DO'91')")
        sw, _, new = super().general_authenticate(cmd, session)   # checks the protocol, derives v1 keys
        nonce = os.urandom(NONCE_LENGTH)
        secret = self.shared_secret(public_value)
        ks_enc, ks_mac = session_keys(secret, nonce)
        token = authentication_token(ks_mac, protocol, public_value)
        v2 = AesSession(ks_enc, ks_mac, 0)
        for name, value in vars(new).items():
            if name not in ("ks_enc", "ks_mac", "ssc"):
                setattr(v2, name, value)
        log.info("Chip Authentication version 2 done: nonce %s, token %s", nonce.hex(), token.hex())
        return sw, tlv(0x7C, tlv(0x81, nonce) + tlv(0x82, token)), v2

    @staticmethod
    def _terminal_key(cmd):
        try:
            (tag, value, _), = parse_tlvs(cmd.data)
            (inner_tag, key, _), = parse_tlvs(value)
        except ValueError as e:
            raise ChipError(0x6A80, "dynamic authentication data: %s" % e)
        if tag != 0x7C or inner_tag != 0x80:
            raise ChipError(0x6A80, "DO'7C' must hold exactly DO'80'")
        return key


def ta_compressed(public_value):
    """Comp() of an uncompressed EC point: its x coordinate (TR-03110-3 A.2.2.3)."""
    if public_value[:1] == b"\x04" and len(public_value) % 2 == 1:
        return public_value[1:1 + (len(public_value) - 1) // 2]
    return hashlib.sha1(public_value).digest()


def session_keys(secret, nonce):
    """(KS_enc, KS_mac) = KDF(K, r_PICC, 1), KDF(K, r_PICC, 2) with KDF(K, r, c) = SHA-1(K || r || c)
    truncated to 16 bytes: AES-128 (TR-03110-3 A.2.3)."""
    return tuple(hashlib.sha1(secret + nonce + c.to_bytes(4, "big")).digest()[:16] for c in (1, 2))


def authentication_token(ks_mac, protocol, public_value):
    """T = CMAC(KS_mac, 7F49 {06 OID, 86 point}), its first 8 bytes (TR-03110-3 A.2.4.2)."""
    data = tlv(0x7F49, oid(protocol) + tlv(0x86, public_value))
    mac = CMAC.new(ks_mac, ciphermod=AES)
    mac.update(data)
    return mac.digest()[:8]


def security_infos(key_id, parameter_id):
    """What EF.CardAccess announces besides PACE: TA version 2, CA version 2 and its domain."""
    key = [integer(key_id)] if key_id is not None else []
    return [
        sequence(oid(ID_TA), integer(2)),
        sequence(oid(ID_CA_ECDH_AES128), integer(2), *key),
        sequence(oid(ID_CA_ECDH), sequence(oid(STANDARDIZED_DOMAIN_PARAMETERS), integer(parameter_id)), *key),
    ]


def setup(files, ca_key_file, wrong_key=False, log_=log):
    """Rewrites EF.CardAccess and EF.CardSecurity for EAC version 2 and gives the chip's
    ChipAuthenticationV2. Needs a PACE chip (EF.CardAccess), EF.CVCA, EF.CardSecurity with an
    ECDH ChipAuthenticationPublicKeyInfo, the matching key, and no DG14; `wrong_key`
    (--ca-wrong-key): a clone's, which cannot give a token that verifies. Raises ValueError."""
    from fixturegen import cardsecurity, testsigners
    from .assemble import load_key
    from .keys import SecurityInfos
    for needed in ("CardAccess", "CardSecurity", "CVCA"):
        if needed not in files:
            raise ValueError("--quirk eac2 needs %s (--pace, and a dump with CardSecurity.bin and CVCA.bin)" % needed)
    if "DG14" in files:
        raise ValueError("--quirk eac2: the dump has a DG14; EAC version 2 chips keep their key in EF.CardSecurity only")
    held = cardsecurity.parse(files["CardSecurity"])["security_infos"]
    keys = SecurityInfos(held).ca_keys
    ec_keys = [(public, key_id) for public, key_id, _ in keys if isinstance(public.domain, ecc.Curve)]
    if not ec_keys:
        raise ValueError("--quirk eac2: CardSecurity.bin has no ECDH ChipAuthenticationPublicKeyInfo")
    public, key_id = ec_keys[0]
    path, origin = ca_key_file
    private = load_key(path, origin, "Chip Authentication", log_)
    if private is None or not private.matches(public):
        raise ValueError("--quirk eac2: the Chip Authentication key %s does not match CardSecurity.bin" % path)
    parameter_id = standardized_parameter_id(held)
    (_, offered, _), = parse_tlvs(files["CardAccess"])
    # SecurityInfos is a DER SET OF: its elements in ascending order of their encodings (X.690
    # 11.6). Order-sensitive readers depend on it: OpenPACE 1.1.2 takes the keyId of a
    # ChipAuthenticationPublicKeyInfo from a ChipAuthenticationInfo it must have read before.
    announced = b"".join(sorted([raw for _, _, raw in parse_tlvs(offered)] + security_infos(key_id, parameter_id)))
    files["CardAccess"] = tlv(0x31, announced)
    # EF.CardSecurity repeats EF.CardAccess; its own version 1 ChipAuthenticationInfo goes.
    (_, held_set, _), = parse_tlvs(held)
    kept = [raw for _, value, raw in parse_tlvs(held_set) if not is_ca_info_v1(value)]
    added = [raw for _, _, raw in parse_tlvs(announced) if raw not in kept]
    files["CardSecurity"] = testsigners.sign_card_security(tlv(0x31, b"".join(sorted(kept + added))), "dsc-UTO")
    chip = ChipAuthenticationV2(private, public, key_id, wrong_key=wrong_key)
    log_.info("EAC version 2 (--quirk eac2): Chip Authentication %s", chip.describe())
    return chip


def is_ca_info_v1(value):
    fields = parse_tlvs(value)
    return (fields and fields[0][0] == 0x06 and oid_text(fields[0][1]).startswith(ID_CA_ECDH + ".")
            and len(fields) > 1 and fields[1][1] == b"\x01")


def standardized_parameter_id(security_infos):
    """The standardized domain parameter id of the ECDH ChipAuthenticationPublicKeyInfo."""
    (_, infos, _), = parse_tlvs(security_infos)
    for _, value, _ in parse_tlvs(infos):
        fields = parse_tlvs(value)
        if fields[0][0] == 0x06 and oid_text(fields[0][1]) == "0.4.0.127.0.7.2.2.1.2":
            (_, algorithm, _), _ = parse_tlvs(fields[1][1])
            parts = parse_tlvs(algorithm)
            if oid_text(parts[0][1]) == STANDARDIZED_DOMAIN_PARAMETERS:
                return int.from_bytes(parts[1][1], "big")
    raise ValueError("--quirk eac2: CardSecurity.bin's key has no standardized domain parameters")
