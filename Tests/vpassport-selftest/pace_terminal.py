"""A PACE terminal (inspection system) on OpenPACE, for the self-test and the smoke client.

It sends MSE:Set AT and the GENERAL AUTHENTICATE chain through any
`transmit(apdu) -> response` function, with its own APDU encoding and parsing
(nothing from chip.py / pace.py's command handling). The cryptography is
OpenPACE's terminal side (PACE_STEP2_dec_nonce ...); the Integrated Mapping
generator comes from immap.py (checked against ICAO 9303-11 Appendix H). PACE-CAM
is checked here with pycryptodome (AES-CBC, IV = E(KS_enc, -1)) and an OpenSSL
point multiplication: PK_Map,IC must equal CA_IC * PK_IC.
"""
import hashlib
import os

from Cryptodome.Cipher import AES

import testpaths  # noqa: F401  (puts scripts/ on sys.path)
from der import oid_body
from vpassport import immap, openpace
from vpassport.pace import Profile

MRZ, CAN = 1, 2


class PaceFailed(Exception):
    def __init__(self, step, sw, why=""):
        super().__init__("PACE step %s: SW %04X %s" % (step, sw, why))
        self.step, self.sw = step, sw


def _tlv(tag, value):
    n = len(value)
    length = bytes([n]) if n < 0x80 else (bytes([0x81, n]) if n < 0x100
                                          else bytes([0x82, n >> 8, n & 0xFF]))
    return bytes([tag]) + length + value


def _parse(data):
    """{tag: value} of concatenated single-byte-tag TLVs."""
    out, i = {}, 0
    while i < len(data):
        tag, length = data[i], data[i + 1]
        i += 2
        if length & 0x80:
            count = length & 0x7F
            length = int.from_bytes(data[i:i + count], "big")
            i += count
        out[tag] = data[i:i + length]
        i += length
    return out


def password_secret(ref, value):
    """OpenPACE PACE_RAW secret: SHA-1(MRZ_information) or the CAN itself."""
    if ref == MRZ:
        return hashlib.sha1(value.encode("ascii")).digest()
    return value.encode("ascii")


class PaceTerminal:
    def __init__(self, transmit):
        self.transmit = transmit
        self.apdus = []                       # (command, response) for debugging

    def _send(self, apdu):
        resp = self.transmit(apdu)
        self.apdus.append((apdu, resp))
        return resp[:-2], int.from_bytes(resp[-2:], "big")

    def general_authenticate(self, step, inner, last=False):
        data = _tlv(0x7C, inner)
        apdu = bytes([0x00 if last else 0x10, 0x86, 0, 0, len(data)]) + data + b"\x00"
        body, sw = self._send(apdu)
        if sw != 0x9000:
            raise PaceFailed(step, sw)
        outer = _parse(body)
        if 0x7C not in outer:
            raise PaceFailed(step, sw, "no DO'7C' in the response")
        return _parse(outer[0x7C])

    def mse_set_at(self, profile, ref, send_parameter_id=True):
        data = _tlv(0x80, oid_body(profile.oid)) + _tlv(0x83, bytes([ref]))
        if send_parameter_id:
            data += _tlv(0x84, bytes([profile.parameter_id]))
        _, sw = self._send(bytes([0x00, 0x22, 0xC1, 0xA4, len(data)]) + data)
        return sw

    def run(self, profile, ref, password, ca_public_key=None, send_parameter_id=True,
            fixed=None):
        """PACE with `profile` (pace.Profile or OID) and the MRZ information
        (ref MRZ) or the CAN (ref CAN). Returns a dict with the session keys
        (ks_enc, ks_mac), the cipher, and for CAM 'ca_ic'/'cam_verified'.
        Raises PaceFailed with the failing step and SW.
        fixed (self-test): terminal private keys 'mapping_key', 'ephemeral_key'
        and the IM nonce 't'."""
        if isinstance(profile, str):
            profile = Profile(profile, 13)
        fixed = fixed or {}
        sw = self.mse_set_at(profile, ref, send_parameter_id)
        if sw != 0x9000:
            raise PaceFailed("MSE:Set AT", sw)
        token_nid = None
        if profile.mapping == "IM":
            token_nid = openpace.nid(profile.oid)
        elif profile.mapping == "CAM":
            token_nid = openpace.register_oid(profile.oid, profile.name)
        run = openpace.Pace(openpace.nid(profile.gm_oid), profile.parameter_id, token_nid)
        try:
            run.set_password(password_secret(ref, password), openpace.PACE_RAW)
            z = self.general_authenticate(1, b"").get(0x80)
            if z is None:
                raise PaceFailed(1, 0x9000, "no encrypted nonce")
            run.decrypt_nonce(z)
            if profile.mapping == "IM":
                t = fixed.get("t") or os.urandom(16)
                reply = self.general_authenticate(2, _tlv(0x81, t))
                if reply.get(0x82, None) != b"":
                    raise PaceFailed(2, 0x9000, "IM: DO'82' must be present and empty")
                params = run.static_params()
                mapper = immap.map_ecdh if isinstance(params, openpace.EcParams) else immap.map_dh
                run.install_generator(mapper(run.nonce, t, params))
                chip_mapping = None
            else:
                mine = run.mapping_data()
                if "mapping_key" in fixed:
                    mine = run.force_key("mapping", fixed["mapping_key"])
                chip_mapping = self.general_authenticate(2, _tlv(0x81, mine)).get(0x82)
                run.map_generator(chip_mapping)
            mine = run.ephemeral_key()
            if "ephemeral_key" in fixed:
                mine = run.force_key("ephemeral", fixed["ephemeral_key"])
            chip_key = self.general_authenticate(3, _tlv(0x83, mine)).get(0x84)
            if chip_key is None or chip_key == mine:
                raise PaceFailed(3, 0x9000, "bad chip ephemeral key")
            run.shared_secret(chip_key)
            token = run.token(chip_key)
            reply = self.general_authenticate(4, _tlv(0x85, token), last=True)
            if run.verify_token(reply.get(0x86, b"")) != 1:
                raise PaceFailed(4, 0x9000, "chip token does not verify")
            ks_enc, ks_mac = run.session_keys()
            result = {"ks_enc": ks_enc, "ks_mac": ks_mac, "profile": profile,
                      "cipher": "3DES" if profile.cipher.startswith("3DES") else "AES",
                      "terminal_token": token, "chip_token": reply[0x86],
                      # for Terminal Authentication: ID_PICC = Comp(chip's key), PACE-CAM's ~PK_PCD
                      "chip_ephemeral_key": chip_key, "terminal_ephemeral_key": mine}
            if profile.mapping == "CAM":
                if 0x8A not in reply:
                    raise PaceFailed(4, 0x9000, "no DO'8A' (PACE-CAM)")
                result["ca_ic"] = decrypt_cam(ks_enc, reply[0x8A])
                if ca_public_key is not None:
                    result["cam_verified"] = openpace.ec_multiply(
                        run, int.from_bytes(result["ca_ic"], "big"), ca_public_key) == chip_mapping
            elif 0x8A in reply:
                raise PaceFailed(4, 0x9000, "DO'8A' outside PACE-CAM")
            return result
        except openpace.OpenPaceError as e:
            raise PaceFailed("crypto", 0, str(e))
        finally:
            run.free()


def decrypt_cam(ks_enc, data):
    """A_IC -> CA_IC: AES-CBC with IV = E(KS_enc, -1), padding method 2."""
    iv = AES.new(ks_enc, AES.MODE_ECB).encrypt(b"\xff" * 16)
    plain = AES.new(ks_enc, AES.MODE_CBC, iv=iv).decrypt(data)
    stripped = plain.rstrip(b"\x00")
    if not stripped.endswith(b"\x80"):
        raise PaceFailed(4, 0x9000, "bad padding in the chip authentication data")
    return stripped[:-1]
