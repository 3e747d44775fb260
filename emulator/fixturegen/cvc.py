"""Card verifiable certificates (BSI TR-03110-3, appendix C / D) for the TEST-ONLY EAC PKI: parsing,
signature verification with the `cryptography` package, and issuing through OpenPACE's `cvc-create`
(Debian package `openpace`).

A CV certificate as cvc-create writes it (`CHR.cvcert`):

    7F21 { 7F4E { 5F29 01 00                      certificate profile identifier 0
                  42 CAR                          certification authority reference
                  7F49 { 06 OID                   public key: id-TA-ECDSA-SHA-256 / id-TA-RSA-v1-5-SHA-256
                         81 p, 82 a, 83 b, 84 G, 85 n, 86 Y, 87 f    ECDSA (CVCA: all; others: 86 only)
                         81 n, 82 e }                                RSA
                  5F20 CHR                        certificate holder reference
                  7F4C { 06 id-IS, 53 01 rights } certificate holder authorization template
                  5F25 YYMMDD                     effective date, one digit (00-09) per byte
                  5F24 YYMMDD }                   expiration date
           5F37 signature }                       ECDSA: r || s (plain); RSA: PKCS #1 v1.5

CHAT of an inspection system (id-IS 0.4.0.127.0.7.3.1.2.1), one byte: bits 8-7 the role (11 CVCA,
10 DV domestic, 01 DV foreign, 00 inspection system), bit 2 read DG4 (iris), bit 1 read DG3
(fingerprint).
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import tempfile

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa, utils

import der

BSI = "0.4.0.127.0.7"
ID_IS = BSI + ".3.1.2.1"
ID_TA = BSI + ".2.2.2"
TA_ECDSA_SHA256 = BSI + ".2.2.2.2.3"
TA_RSA_V15_SHA256 = BSI + ".2.2.2.1.2"
TA_HASHES = {BSI + ".2.2.2.2.%d" % i: h for i, h in enumerate(("SHA1", "SHA224", "SHA256", "SHA384", "SHA512"), 1)}
TA_HASHES.update({BSI + ".2.2.2.1.1": "SHA1", BSI + ".2.2.2.1.2": "SHA256", BSI + ".2.2.2.1.5": "SHA512"})
SCHEMES = {TA_ECDSA_SHA256: "ECDSA_SHA_256", TA_RSA_V15_SHA256: "RSA_v1_5_SHA_256"}

ROLE_CVCA, ROLE_DV_DOMESTIC, ROLE_DV_FOREIGN, ROLE_IS = 3, 2, 1, 0
ROLE_NAMES = {ROLE_CVCA: "CVCA", ROLE_DV_DOMESTIC: "DV (domestic)", ROLE_DV_FOREIGN: "DV (foreign)",
              ROLE_IS: "inspection system"}
CVC_CREATE_ROLE = {ROLE_CVCA: "cvca", ROLE_DV_DOMESTIC: "dv_domestic", ROLE_DV_FOREIGN: "dv_foreign",
                   ROLE_IS: "terminal"}
READ_DG3, READ_DG4 = 0x01, 0x02

BRAINPOOL_P256R1_P = 0xA9FB57DBA1EEA9BC3E660A909D838D726E3BF623D52620282013481D1F6E5377


class Cvc:
    """The fields of a CV certificate."""

    def __init__(self, data: bytes):
        self.raw = data
        top = der.parse_tlvs(data)
        if len(top) != 1 or top[0][0] != 0x7F21:
            raise ValueError("not a CV certificate (7F21)")
        parts = der.parse_tlvs(top[0][1])
        if [t for t, _, _ in parts] != [0x7F4E, 0x5F37]:
            raise ValueError("7F21 must hold 7F4E and 5F37")
        self.body, self.signature = parts[0][2], parts[1][1]
        self.content = top[0][1]                       # what PSO:Verify Certificate carries
        fields = {t: v for t, v, _ in der.parse_tlvs(parts[0][1])}
        self.car = fields[0x42].decode("latin-1")
        self.chr = fields[0x5F20].decode("latin-1")
        key = der.parse_tlvs(fields[0x7F49])
        self.key_oid = der.oid_text(key[0][1])
        self.key = {t: v for t, v, _ in key[1:]}
        chat = der.parse_tlvs(fields[0x7F4C])
        self.chat_oid = der.oid_text(chat[0][1])
        self.chat = chat[1][1]
        self.role = self.chat[0] >> 6
        self.rights = self.chat[-1] & 0x3F if len(self.chat) == 1 else None
        self.effective = _date(fields[0x5F25])
        self.expiration = _date(fields[0x5F24])

    @property
    def is_rsa(self) -> bool:
        return self.key_oid.startswith(BSI + ".2.2.2.1.")

    def public_key(self, domain: "Cvc | None" = None):
        """The holder's public key; EC keys without domain parameters take the CVCA's (`domain`)."""
        if self.is_rsa:
            return rsa.RSAPublicNumbers(int.from_bytes(self.key[0x82], "big"),
                                        int.from_bytes(self.key[0x81], "big")).public_key()
        params = self if 0x81 in self.key else domain
        if params is None or int.from_bytes(params.key[0x81], "big") != BRAINPOOL_P256R1_P:
            raise ValueError("only brainpoolP256r1 keys are supported here")
        return ec.EllipticCurvePublicKey.from_encoded_point(ec.BrainpoolP256R1(), self.key[0x86])

    def verify(self, signer_key, signer_oid: str) -> bool:
        """Does the signature verify with the signer's key (and the signer's TA OID)?"""
        h = getattr(hashes, TA_HASHES[signer_oid])()
        try:
            if isinstance(signer_key, rsa.RSAPublicKey):
                signer_key.verify(self.signature, self.body, padding.PKCS1v15(), h)
            else:
                half = len(self.signature) // 2
                sig = utils.encode_dss_signature(int.from_bytes(self.signature[:half], "big"),
                                                 int.from_bytes(self.signature[half:], "big"))
                signer_key.verify(sig, self.body, ec.ECDSA(h))
            return True
        except InvalidSignature:
            return False


def _date(digits: bytes) -> dt.date:
    if len(digits) != 6 or any(d > 9 for d in digits):
        raise ValueError("a CV certificate date is six digits 00-09")
    return dt.date(2000 + digits[0] * 10 + digits[1], digits[2] * 10 + digits[3], digits[4] * 10 + digits[5])


def yymmdd(d: dt.date) -> str:
    return d.strftime("%y%m%d")


# ---------------------------------------------------------------------------
# keys (DER PKCS#8, as cvc-create writes them)
# ---------------------------------------------------------------------------

def load_or_create_key(path: str, kind: str, new: bool, log=print):
    """kind 'ec-brainpoolP256r1' or 'rsa-2048'; the key file is DER PKCS#8."""
    if os.path.exists(path) and not new:
        with open(path, "rb") as f:
            key = serialization.load_der_private_key(f.read(), password=None)
        ok = (isinstance(key, rsa.RSAPrivateKey) and kind == "rsa-%d" % key.key_size) or \
            (isinstance(key, ec.EllipticCurvePrivateKey) and kind == "ec-" + key.curve.name)
        if not ok:
            raise SystemExit(f"{path} is not a {kind} key; delete it or run with --new-keys")
        return key
    if kind == "ec-brainpoolP256r1":
        key = ec.generate_private_key(ec.BrainpoolP256R1())
    elif kind.startswith("rsa-"):
        key = rsa.generate_private_key(public_exponent=65537, key_size=int(kind[4:]))
    else:
        raise ValueError(kind)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    log(f"  new key {os.path.basename(path)} ({kind})")
    return key


def public_matches(cert: Cvc, key, domain: Cvc | None) -> bool:
    pub = key.public_key()
    if isinstance(pub, rsa.RSAPublicKey):
        n = pub.public_numbers()
        return cert.is_rsa and (n.n, n.e) == (int.from_bytes(cert.key[0x81], "big"), int.from_bytes(cert.key[0x82], "big"))
    point = pub.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return not cert.is_rsa and cert.key.get(0x86) == point


# ---------------------------------------------------------------------------
# issuing with cvc-create
# ---------------------------------------------------------------------------

def cvc_create_available() -> bool:
    return shutil.which("cvc-create") is not None


def issue(*, chr: str, role: int, rights: int, effective: dt.date, expiration: dt.date, key_file: str,
          scheme_oid: str, signer_key_file: str, signer_cert: bytes | None, verbose=False, log=print) -> bytes:
    """A new CV certificate from cvc-create (signer_cert None: self-signed CVCA)."""
    with tempfile.TemporaryDirectory(prefix="cvc-create-") as tmp:
        args = ["cvc-create", "--role=" + CVC_CREATE_ROLE[role], "--type=is", "--chr=" + chr,
                "--issued=" + yymmdd(effective), "--expires=" + yymmdd(expiration),
                "--sign-with=" + signer_key_file, "--key=" + key_file, "--scheme=" + SCHEMES[scheme_oid],
                "--out-cert=" + os.path.join(tmp, "cert.cvcert"), "--out-key=" + os.path.join(tmp, "key.pkcs8")]
        if rights & READ_DG3:
            args.append("--read-finger")
        if rights & READ_DG4:
            args.append("--read-iris")
        if signer_cert is not None:
            signer_path = os.path.join(tmp, "signer.cvcert")
            with open(signer_path, "wb") as f:
                f.write(signer_cert)
            args.append("--sign-as=" + signer_path)
        if verbose:
            log("    $ " + " ".join(args))
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"cvc-create failed for {chr}: {(r.stdout + r.stderr).strip()}")
        with open(os.path.join(tmp, "cert.cvcert"), "rb") as f:
            return f.read()
