"""Chip side of PACE (ICAO 9303-11 section 4.4, BSI TR-03110-3), computed by OpenPACE.

Commands: MSE:Set AT (00 22 C1 A4) and the GENERAL AUTHENTICATE chain
(10 86 00 00 ... 00 86 00 00). Status words are listed in README.md.

What OpenPACE computes: the nonce and its encryption with K_pi, the generic
mapping, the ephemeral key pairs, the (EC)DH shared secret, the KDF, both
authentication tokens and all secure messaging after PACE. Every run uses an
OpenPACE context initialised for the *generic mapping* OID of the same
algorithm (e.g. id-PACE-ECDH-GM-AES-CBC-CMAC-128); for the other mappings:

  IM  the mapped generator comes from immap.py (ICAO's R_p and point
      encoding; OpenPACE's own IM is not ICAO's, see immap.py) and is
      installed into the OpenPACE context before the key agreement;
  CAM the mapping is OpenPACE's GM; the chip authentication data
      CA_IC = SK_IC^-1 * SK_Map,IC mod n uses OpenPACE's SK_Map,IC and is
      encrypted by OpenPACE's EAC_encrypt with the SSC set to -1, which makes
      its IV E(KS_enc, -1) as 9303-11 4.4.3.5.4 wants.

For IM and CAM the OID inside the authentication tokens' public key data
objects is switched to the OID of MSE:Set AT (OpenPACE does not know CAM).
"""
import hashlib
import logging

from der import integer, oid_body, oid_text, parse_tlvs, tlv

from . import immap, openpace
from .apdu import ChipError
from .keys import BSI, ID_PK_ECDH
from .sm import PaceSession

log = logging.getLogger("vpassport.pace")

# id-PACE arcs: 1 DH-GM, 2 ECDH-GM, 3 DH-IM, 4 ECDH-IM, 6 ECDH-CAM;
# last arc: 1 3DES-CBC-CBC, 2 AES-CBC-CMAC-128, 3 -192, 4 -256
_KINDS = {1: ("DH", "GM"), 2: ("ECDH", "GM"), 3: ("DH", "IM"), 4: ("ECDH", "IM"),
          6: ("ECDH", "CAM")}
_CIPHERS = {1: "3DES-CBC-CBC", 2: "AES-CBC-CMAC-128", 3: "AES-CBC-CMAC-192",
            4: "AES-CBC-CMAC-256"}
_GM_ARC = {"DH": 1, "ECDH": 2}

PASSWORDS = {1: "MRZ", 2: "CAN"}
MAX_TRIES = 3


class Profile:
    """One PACE protocol OID with its standardized domain parameter id."""

    def __init__(self, oid, parameter_id):
        arcs = oid.split(".")
        if ".".join(arcs[:-2]) != BSI + ".2.2.4" or int(arcs[-2]) not in _KINDS \
                or int(arcs[-1]) not in _CIPHERS:
            raise ValueError("not a PACE protocol OID: %s" % oid)
        self.oid, self.parameter_id = oid, parameter_id
        self.key_agreement, self.mapping = _KINDS[int(arcs[-2])]
        self.cipher = _CIPHERS[int(arcs[-1])]
        if self.mapping == "CAM" and self.cipher.startswith("3DES"):
            raise ValueError("PACE-CAM has no 3DES variant")
        if self.mapping == "IM" and self.cipher != "AES-CBC-CMAC-128":
            # OpenPACE's nonce s is one block; IM with AES-192/256 needs 256 bits
            raise ValueError("only AES-128 is offered with the integrated mapping")
        self.name = "id-PACE-%s-%s-%s" % (self.key_agreement, self.mapping, self.cipher)
        self.gm_oid = ".".join(arcs[:-2] + [str(_GM_ARC[self.key_agreement]), arcs[-1]])

    def __repr__(self):
        return "%s parameter %d" % (self.name, self.parameter_id)

    def pace_info(self):
        """PACEInfo ::= SEQUENCE { protocol, version INTEGER (2), parameterId }"""
        return tlv(0x30, tlv(0x06, oid_body(self.oid)) + integer(2) + integer(self.parameter_id))


def profile_from_options(mapping="gm", dh=False):
    arc = {("gm", False): 2, ("gm", True): 1, ("im", False): 4, ("im", True): 3,
           ("cam", False): 6}.get((mapping, dh))
    if arc is None:
        raise ValueError("PACE-CAM exists for ECDH only (no --dh with --mapping cam)")
    return Profile("%s.2.2.4.%d.2" % (BSI, arc), 0 if dh else 13)


def card_access(profiles):
    """EF.CardAccess: SecurityInfos (SET OF, DER order) of the PACEInfos."""
    infos = sorted(p.pace_info() for p in profiles)
    return tlv(0x31, b"".join(infos))


def pace_infos(security_infos):
    """[(oid, parameterId or None)] of the PACEInfos in a SecurityInfos SET."""
    out = []
    for tag, value, _ in parse_tlvs(security_infos):
        if tag != 0x31:
            continue
        for t, info, _ in parse_tlvs(value):
            if t != 0x30:
                continue
            items = parse_tlvs(info)
            if not items or items[0][0] != 0x06:
                continue
            oid = oid_text(items[0][1])
            if not oid.startswith(BSI + ".2.2.4.") or len(oid.split(".")) != 11:
                continue                      # not a PACEInfo (DomainParameterInfo...)
            param = None
            if len(items) > 2 and items[2][0] == 0x02:
                param = int.from_bytes(items[2][1], "big")
            out.append((oid, param))
    return out


def ca_public_key(card_security):
    """The chip's ECDH Chip Authentication public key point from EF.CardSecurity
    (ContentInfo/SignedData whose eContent is SecurityInfos), or None."""
    def children(data):
        return parse_tlvs(data)
    try:
        ci = children(card_security)[0][1]
        signed_data = children(children(ci)[1][1])[0][1]
        encap = children(signed_data)[2][1]
        econtent = children(children(encap)[1][1])[0][1]
        for tag, info, _ in children(children(econtent)[0][1]):
            items = children(info)
            if tag == 0x30 and items and items[0][0] == 0x06 and \
                    oid_text(items[0][1]) == ID_PK_ECDH:
                spki = children(items[1][1])
                return spki[1][1][1:]          # BIT STRING minus unused-bits byte
    except (ValueError, IndexError):
        pass
    return None


def load_ec_private_key(path):
    """The private scalar of an EC key in PEM (SEC 1 or PKCS#8)."""
    import base64
    with open(path) as f:
        text = f.read()
    body = "".join(line for line in text.splitlines() if line and not line.startswith("-----"))
    der = base64.b64decode(body)
    seq = parse_tlvs(parse_tlvs(der)[0][1])
    if seq[1][0] == 0x30:                       # PKCS#8: unwrap the OCTET STRING
        seq = parse_tlvs(parse_tlvs(seq[2][1])[0][1])
    return int.from_bytes(seq[1][1], "big")


# --- the chip ---------------------------------------------------------------------------
class PaceChip:
    """PACE state of the chip: offered profiles, passwords, retry counters and
    the run in progress."""

    def __init__(self, profiles, mrz_info, can, ca_private_key=None, verbose=False):
        if not openpace.available():
            raise RuntimeError("OpenPACE (Debian libeac3) is not installed")
        self.profiles = list(profiles)
        self.passwords = {1: hashlib.sha1(mrz_info.encode("ascii")).digest(),
                          2: can.encode("ascii")}
        self.tries = {1: MAX_TRIES, 2: MAX_TRIES}
        self.ca_private_key = ca_private_key
        self.verbose = verbose
        self.cam_nids = {}
        self.test_values = None        # self-test: fixed nonce and keys (see selftest)
        self.refuse = None             # --pace-refuse: a status for every GENERAL AUTHENTICATE
        self.reset()

    def reset(self):
        self.run = None
        self.step = 0

    # MSE:Set AT --------------------------------------------------------------------
    def mse_set_at(self, cmd):
        self.reset()
        if (cmd.p1, cmd.p2) != (0xC1, 0xA4):
            raise ChipError(0x6A86, "MSE variant %02X%02X not supported" % (cmd.p1, cmd.p2))
        try:
            dos = {t: v for t, v, _ in parse_tlvs(cmd.data)}   # unknown tags ignored
        except ValueError as e:
            raise ChipError(0x6A80, "MSE data: %s" % e)
        if 0x80 not in dos or 0x83 not in dos:
            raise ChipError(0x6A80, "MSE:Set AT needs DO'80' and DO'83'")
        oid = oid_text(dos[0x80]) if dos[0x80] else ""
        ref = int.from_bytes(dos[0x83], "big") if len(dos[0x83]) == 1 else -1
        wanted = [p for p in self.profiles if p.oid == oid]
        if not wanted:
            raise ChipError(0x6A80, "protocol %s not offered" % oid)
        if 0x84 in dos:
            param = int.from_bytes(dos[0x84], "big")
            wanted = [p for p in wanted if p.parameter_id == param]
            if not wanted:
                raise ChipError(0x6A88, "domain parameters %d not offered for %s" % (param, oid))
        if ref not in PASSWORDS:
            raise ChipError(0x6A88, "password reference %s not available" % dos[0x83].hex())
        if self.tries[ref] == 0:
            raise ChipError(0x6983, "%s blocked after %d wrong tries" % (PASSWORDS[ref], MAX_TRIES))
        profile = wanted[0]
        if profile.mapping == "CAM" and self.ca_private_key is None:
            raise ChipError(0x6A80, "no Chip Authentication key for PACE-CAM")
        try:
            token_nid = None
            if profile.mapping == "IM":
                token_nid = openpace.nid(profile.oid)
            elif profile.mapping == "CAM":
                token_nid = openpace.register_oid(profile.oid, profile.name)
            run = openpace.Pace(openpace.nid(profile.gm_oid), profile.parameter_id, token_nid)
            run.set_password(self.passwords[ref], openpace.PACE_RAW)
        except openpace.OpenPaceError as e:
            raise ChipError(0x6A80, "OpenPACE: %s" % e)
        self.run, self.profile, self.password_ref, self.step = run, profile, ref, 1
        log.info("MSE:Set AT %s, password %s", profile, PASSWORDS[ref])
        return 0x9000, b""

    # GENERAL AUTHENTICATE ------------------------------------------------------------------
    def general_authenticate(self, cmd):
        """(sw, data, session or None)."""
        if cmd.p1 or cmd.p2:
            self.reset()
            raise ChipError(0x6A86, "P1-P2 must be 0000")
        if self.refuse is not None:
            self.reset()
            raise ChipError(self.refuse, "PACE refused (--pace-refuse)")
        if self.run is None:
            raise ChipError(0x6985, "no PACE run (MSE:Set AT first)")
        if cmd.ne is None:
            self.reset()
            raise ChipError(0x6700, "GENERAL AUTHENTICATE without Le")
        chained = bool(cmd.cla & 0x10)
        if chained != (self.step < 4):
            step = self.step
            self.reset()
            raise ChipError(0x6985, "step %d must be sent with CLA %s" %
                            (step, "10 (chaining)" if step < 4 else "00 (last of the chain)"))
        try:
            outer = parse_tlvs(cmd.data)
            if len(outer) != 1 or outer[0][0] != 0x7C:
                raise ValueError("one DO'7C' expected")
            inner = parse_tlvs(outer[0][1])
        except ValueError as e:
            self.reset()
            raise ChipError(0x6A80, "dynamic authentication data: %s" % e)
        step = self.step
        expected = {1: None, 2: 0x81, 3: 0x83, 4: 0x85}[step]
        if (expected is None and inner) or \
                (expected is not None and (len(inner) != 1 or inner[0][0] != expected)):
            self.reset()
            raise ChipError(0x6A80, "step %d: expected %s in DO'7C'" %
                            (step, "nothing" if expected is None else "DO'%02X'" % expected))
        value = inner[0][1] if inner else b""
        try:
            handler = {1: self._nonce, 2: self._map, 3: self._key_agreement,
                       4: self._mutual_authentication}[step]
            result = handler(value)
        except openpace.OpenPaceError as e:
            self.reset()
            raise ChipError(0x6A80, "step %d failed: %s" % (step, e))
        except ChipError:
            self.reset()
            raise
        self.step += 1
        if step == 4:
            body, session = result
            self.reset()
            return 0x9000, tlv(0x7C, body), session
        return 0x9000, tlv(0x7C, result), None

    def _nonce(self, _):
        fixed = self.test_values or {}
        if "nonce" in fixed:
            with openpace.fixed_random([fixed["nonce"]]):
                z = self.run.encrypted_nonce()
        else:
            z = self.run.encrypted_nonce()
        return tlv(0x80, z)

    def _map(self, data):
        run, fixed = self.run, self.test_values or {}
        if self.profile.mapping == "IM":
            key_len = {"AES-CBC-CMAC-128": 16}[self.profile.cipher]
            if len(data) != key_len:
                raise ChipError(0x6A80, "IM nonce t must be %d bytes" % key_len)
            params = run.static_params()
            s = run.nonce
            if isinstance(params, openpace.EcParams):
                generator = immap.map_ecdh(s, data, params)
            else:
                generator = immap.map_dh(s, data, params)
            run.install_generator(generator)
            return tlv(0x82, b"")
        mine = run.mapping_data()
        if "mapping_key" in fixed:
            mine = run.force_key("mapping", fixed["mapping_key"])
        if data == mine:
            raise ChipError(0x6A80, "terminal echoed the chip's mapping key")
        self.terminal_mapping_key = data            # for --quirk pace-answer:2/echo
        run.map_generator(data)
        return tlv(0x82, mine)

    def _key_agreement(self, data):
        run, fixed = self.run, self.test_values or {}
        mine = run.ephemeral_key()
        if "ephemeral_key" in fixed:
            mine = run.force_key("ephemeral", fixed["ephemeral_key"])
        run.shared_secret(data)             # also refuses data == mine
        self.terminal_key, self.chip_key = data, mine
        return tlv(0x84, mine)

    def _mutual_authentication(self, token):
        run, ref = self.run, self.password_ref
        ok = run.verify_token(token)
        if ok != 1:
            self.tries[ref] = max(0, self.tries[ref] - 1)
            raise ChipError(0x63C0 | self.tries[ref],
                            "terminal token does not verify (wrong %s?), %d tries left" %
                            (PASSWORDS[ref], self.tries[ref]))
        self.tries[ref] = MAX_TRIES
        body = tlv(0x86, run.token(self.terminal_key))
        cam = None
        if self.profile.mapping == "CAM":
            cam = self._chip_authentication_data()
        self.last_run, self.cam_value = run, cam    # for --quirk pace-answer:4/…
        run.start_secure_messaging()
        if cam is not None:
            run.set_ssc((1 << 128) - 1)       # IV = E(KS_enc, -1)
            body += tlv(0x8A, run.encrypt(run.pad(cam)))
            run.set_ssc(0)
        ks_enc, ks_mac = run.session_keys()
        log.info("PACE completed (%s, %s), secure messaging on", self.profile,
                 PASSWORDS[ref])
        if self.verbose:
            log.info("KS_enc %s KS_mac %s", ks_enc.hex(), ks_mac.hex())
        session = PaceSession(run)
        # What Terminal Authentication needs (ta.py): ID_PICC = Comp(the chip's ephemeral key),
        # and after PACE-CAM ~PK_PCD = the terminal's ephemeral key.
        session.pace_chip_key, session.pace_terminal_key = self.chip_key, self.terminal_key
        session.pace_key_kind = "EC" if self.profile.key_agreement == "ECDH" else "DH"
        session.pace_mapping = self.profile.mapping
        return body, session

    def _chip_authentication_data(self):
        """CA_IC = SK_IC^-1 * SK_Map,IC mod n, as FE2OS of the order's length."""
        n = self.run.static_params().order
        ca = pow(self.ca_private_key, -1, n) * self.run.mapping_private_key() % n
        return ca.to_bytes((n.bit_length() + 7) // 8, "big")


def check_card_access(data):
    """True when OpenPACE accepts EF.CardAccess (EAC_CTX_init_ef_cardaccess)."""
    openpace.available()
    ctx = openpace.lib.EAC_CTX_new()
    try:
        return openpace.lib.EAC_CTX_init_ef_cardaccess(data, len(data), ctx) == 1
    finally:
        openpace.lib.EAC_CTX_clear_free(ctx)


def ca_key_matches(profile, private_key, public_point):
    """Does SK_IC * G equal the CardSecurity public key (on the profile's curve)?"""
    run = openpace.Pace(openpace.nid(profile.gm_oid), profile.parameter_id)
    try:
        params = run.static_params()
        g = b"\x04" + params.gx.to_bytes(params.size, "big") + params.gy.to_bytes(params.size, "big")
        return openpace.ec_multiply(run, private_key, g) == bytes(public_point)
    finally:
        run.free()

