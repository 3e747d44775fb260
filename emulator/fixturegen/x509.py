"""X.509 certificates, CRLs, SubjectPublicKeyInfo and signature algorithms, written by hand in DER."""

from __future__ import annotations

import datetime as dt
import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

import der

from .curves import EXPLICIT

# --- object identifiers (facts from RFC 5280, RFC 4055, RFC 5480, RFC 5758, RFC 5639, ICAO 9303) ---
OID = {
    "countryName": "2.5.4.6",
    "organizationName": "2.5.4.10",
    "organizationalUnitName": "2.5.4.11",
    "commonName": "2.5.4.3",
    "serialNumber": "2.5.4.5",
    "rsaEncryption": "1.2.840.113549.1.1.1",
    "sha256WithRSAEncryption": "1.2.840.113549.1.1.11",
    "rsassaPss": "1.2.840.113549.1.1.10",
    "mgf1": "1.2.840.113549.1.1.8",
    "ecPublicKey": "1.2.840.10045.2.1",
    "prime-field": "1.2.840.10045.1.1",
    "ecdsa-with-SHA256": "1.2.840.10045.4.3.2",
    "ecdsa-with-SHA384": "1.2.840.10045.4.3.3",
    "ecdsa-with-SHA512": "1.2.840.10045.4.3.4",
    "sha256": "2.16.840.1.101.3.4.2.1",
    "sha384": "2.16.840.1.101.3.4.2.2",
    "sha512": "2.16.840.1.101.3.4.2.3",
    "P-256": "1.2.840.10045.3.1.7",
    "brainpoolP256r1": "1.3.36.3.3.2.8.1.1.7",
    "brainpoolP384r1": "1.3.36.3.3.2.8.1.1.11",
    "subjectKeyIdentifier": "2.5.29.14",
    "keyUsage": "2.5.29.15",
    "basicConstraints": "2.5.29.19",
    "cRLNumber": "2.5.29.20",
    "reasonCode": "2.5.29.21",
    "authorityKeyIdentifier": "2.5.29.35",
}

HASHES = {"sha256": hashes.SHA256, "sha384": hashes.SHA384, "sha512": hashes.SHA512}


def utc(y, m, d, hh=0, mm=0, ss=0) -> dt.datetime:
    return dt.datetime(y, m, d, hh, mm, ss, tzinfo=dt.timezone.utc)


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------

def name(*rdns: tuple[str, str]) -> bytes:
    """Name ::= SEQUENCE OF RDN, one attribute per RDN; countryName as PrintableString, others UTF8String."""
    out = []
    for attr, value in rdns:
        encoded = der.printable(value) if attr == "countryName" else der.utf8(value)
        out.append(der.set_of(der.sequence(der.oid(OID[attr]), encoded)))
    return der.sequence(*out)


# ---------------------------------------------------------------------------
# Algorithm identifiers
# ---------------------------------------------------------------------------

def digest_algorithm(h: str) -> bytes:
    """RFC 5754: SHA-2 AlgorithmIdentifiers are generated with absent parameters."""
    return der.sequence(der.oid(OID[h]))


def _hash_with_null(h: str) -> bytes:
    # RFC 4055 2.1: inside RSASSA-PSS-params the SHA-2 identifiers carry a NULL.
    return der.sequence(der.oid(OID[h]), der.null())


def pss_params(h: str, salt: int) -> bytes:
    return der.sequence(
        der.explicit(0, _hash_with_null(h)),
        der.explicit(1, der.sequence(der.oid(OID["mgf1"]), _hash_with_null(h))),
        der.explicit(2, der.integer(salt)),
    )


class Scheme:
    """A signature scheme: how to sign, verify, and which AlgorithmIdentifier names it."""

    def __init__(self, kind: str, h: str, salt: int | None = None):
        self.kind, self.hash, self.salt = kind, h, salt

    @property
    def algorithm_identifier(self) -> bytes:
        if self.kind == "rsa-pkcs1":
            assert self.hash == "sha256"
            return der.sequence(der.oid(OID["sha256WithRSAEncryption"]), der.null())
        if self.kind == "rsa-pss":
            return der.sequence(der.oid(OID["rsassaPss"]), pss_params(self.hash, self.salt))
        if self.kind == "ecdsa":
            # RFC 5758 3.2: parameters absent
            return der.sequence(der.oid(OID["ecdsa-with-" + self.hash.upper()]))
        raise ValueError(self.kind)

    def _pad(self):
        if self.kind == "rsa-pkcs1":
            return padding.PKCS1v15()
        return padding.PSS(mgf=padding.MGF1(HASHES[self.hash]()), salt_length=self.salt)

    def sign(self, key, data: bytes) -> bytes:
        if self.kind == "ecdsa":
            return key.sign(data, ec.ECDSA(HASHES[self.hash]()))
        return key.sign(data, self._pad(), HASHES[self.hash]())

    def verify(self, public_key, signature: bytes, data: bytes) -> bool:
        try:
            if self.kind == "ecdsa":
                public_key.verify(signature, data, ec.ECDSA(HASHES[self.hash]()))
            else:
                public_key.verify(signature, data, self._pad(), HASHES[self.hash]())
            return True
        except InvalidSignature:
            return False

    def sign_stable(self, key, data: bytes, previous: bytes | None) -> bytes:
        """Sign, but keep `previous` when it is still a valid signature of `data` under `key`.

        RSA-PSS and ECDSA signatures are randomised; reusing a still-valid one keeps the
        fixture files byte-for-byte stable across regenerations.
        """
        if previous is not None and self.verify(key.public_key(), previous, data):
            return previous
        return self.sign(key, data)


RSA_SHA256 = Scheme("rsa-pkcs1", "sha256")


# ---------------------------------------------------------------------------
# SubjectPublicKeyInfo
# ---------------------------------------------------------------------------

def spki_rsa(public_key: rsa.RSAPublicKey) -> bytes:
    n = public_key.public_numbers()
    rsa_key = der.sequence(der.integer(n.n), der.integer(n.e))
    return der.sequence(der.sequence(der.oid(OID["rsaEncryption"]), der.null()), der.bit_string(rsa_key))


def ec_point(public_key: ec.EllipticCurvePublicKey) -> bytes:
    return public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def spki_ec_named(public_key: ec.EllipticCurvePublicKey, curve: str) -> bytes:
    return der.sequence(der.sequence(der.oid(OID["ecPublicKey"]), der.oid(OID[curve])),
                        der.bit_string(ec_point(public_key)))


def ec_explicit_parameters(curve: str) -> bytes:
    """SEC 1 / RFC 3279 ECParameters (version 1, prime field, no seed)."""
    c = EXPLICIT[curve]
    size = (c["p"].bit_length() + 7) // 8
    base = b"\x04" + c["gx"].to_bytes(size, "big") + c["gy"].to_bytes(size, "big")
    return der.sequence(
        der.integer(1),
        der.sequence(der.oid(OID["prime-field"]), der.integer(c["p"])),
        der.sequence(der.octet_string(c["a"].to_bytes(size, "big")), der.octet_string(c["b"].to_bytes(size, "big"))),
        der.octet_string(base),
        der.integer(c["n"]),
        der.integer(c["h"]),
    )


def spki_ec_explicit(public_key: ec.EllipticCurvePublicKey, curve: str) -> bytes:
    return der.sequence(der.sequence(der.oid(OID["ecPublicKey"]), ec_explicit_parameters(curve)),
                        der.bit_string(ec_point(public_key)))


def spki_for(public_key, explicit_curve: str | None = None) -> bytes:
    if isinstance(public_key, rsa.RSAPublicKey):
        return spki_rsa(public_key)
    curve = {"secp256r1": "P-256", "brainpoolP256r1": "brainpoolP256r1",
             "brainpoolP384r1": "brainpoolP384r1"}[public_key.curve.name]
    if explicit_curve:
        assert explicit_curve == curve
        return spki_ec_explicit(public_key, curve)
    return spki_ec_named(public_key, curve)


def key_identifier(spki: bytes) -> bytes:
    """RFC 5280 4.2.1.2 method (1): SHA-1 of the subjectPublicKey BIT STRING value (without unused-bits octet)."""
    node = der.parse_one(spki)
    bits = node.children()[1]
    return hashlib.sha1(bits.value[1:]).digest()


# ---------------------------------------------------------------------------
# Extensions
# ---------------------------------------------------------------------------

def extension(oid_name: str, value: bytes, critical: bool = False) -> bytes:
    parts = [der.oid(OID[oid_name])]
    if critical:
        parts.append(der.boolean(True))
    parts.append(der.octet_string(value))
    return der.sequence(*parts)


KU_DIGITAL_SIGNATURE, KU_KEY_CERT_SIGN, KU_CRL_SIGN = 0, 5, 6


def ext_key_usage(bits: list[int]) -> bytes:
    return extension("keyUsage", der.named_bits(bits), critical=True)


def ext_basic_constraints_ca(pathlen: int) -> bytes:
    return extension("basicConstraints", der.sequence(der.boolean(True), der.integer(pathlen)), critical=True)


def ext_ski(kid: bytes) -> bytes:
    return extension("subjectKeyIdentifier", der.octet_string(kid))


def ext_aki(kid: bytes) -> bytes:
    return extension("authorityKeyIdentifier", der.sequence(der.implicit_primitive(0, kid)))


# ---------------------------------------------------------------------------
# Certificates and CRLs
# ---------------------------------------------------------------------------

def certificate(*, serial: int, issuer: bytes, subject: bytes, not_before: dt.datetime, not_after: dt.datetime,
                spki: bytes, extensions: list[bytes], scheme: Scheme, issuer_key, previous: bytes | None = None) -> bytes:
    tbs = der.sequence(
        der.explicit(0, der.integer(2)),  # v3
        der.integer(serial),
        scheme.algorithm_identifier,
        issuer,
        der.sequence(der.time(not_before), der.time(not_after)),
        subject,
        spki,
        der.explicit(3, der.sequence(*extensions)),
    )
    old_sig = None
    if previous:
        old = der.parse_one(previous)
        old_sig = old.children()[2].value[1:]
    sig = scheme.sign_stable(issuer_key, tbs, old_sig)
    return der.sequence(tbs, scheme.algorithm_identifier, der.bit_string(sig))


def crl(*, issuer: bytes, issuer_kid: bytes, this_update: dt.datetime, next_update: dt.datetime,
        revoked: list[tuple[int, dt.datetime, int]], crl_number: int, scheme: Scheme, issuer_key,
        previous: bytes | None = None) -> bytes:
    """X.509 v2 CRL. revoked: (serial, revocation date, CRLReason)."""
    entries = [der.sequence(der.integer(s), der.time(when),
                            der.sequence(extension("reasonCode", der.enumerated(reason))))
               for s, when, reason in revoked]
    tbs = der.sequence(
        der.integer(1),  # v2
        scheme.algorithm_identifier,
        issuer,
        der.time(this_update),
        der.time(next_update),
        der.sequence(*entries),
        der.explicit(0, der.sequence(ext_aki(issuer_kid), extension("cRLNumber", der.integer(crl_number)))),
    )
    old_sig = der.parse_one(previous).children()[2].value[1:] if previous else None
    sig = scheme.sign_stable(issuer_key, tbs, old_sig)
    return der.sequence(tbs, scheme.algorithm_identifier, der.bit_string(sig))


def pem(der_bytes: bytes, label: str = "CERTIFICATE") -> bytes:
    import base64
    b64 = base64.b64encode(der_bytes).decode()
    lines = [b64[i:i + 64] for i in range(0, len(b64), 64)]
    return (f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----\n").encode()


def from_pem(data: bytes) -> bytes:
    import base64
    text = data.decode()
    body = text.split("-----", 2)[2].split("-----END", 1)[0]
    return base64.b64decode("".join(body.split()))


def cert_parts(cert: bytes) -> dict:
    """Issuer Name, serial, subject Name and SPKI of a certificate (raw DER)."""
    tbs = der.parse_one(cert).children()[0].children()
    i = 1 if tbs[0].tag == b"\xa0" else 0
    return {"serial": tbs[i].as_int(), "issuer": tbs[i + 2].raw, "subject": tbs[i + 4].raw, "spki": tbs[i + 5].raw}
