"""EF.SOD and Document Signer certificates built piece by piece, so that a case can change,
leave out or add one element (LDS_H). New TEST-ONLY Document Signers are made at case-build time
under the TEST-ONLY CSCAs of Fixtures/pki (nothing in Fixtures/ is written).

Every element is DER bytes; OMIT leaves it out. Signatures are computed over what is finally
encoded, unless a case replaces them."""
from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import dsa, ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.serialization import load_pem_private_key

import der
from fixturegen import x509
from fixturegen.x509 import utc

from .dataset import PKI, SIGNING_TIME

OMIT = None

OIDS = {
    "sha1": "1.3.14.3.2.26", "sha224": "2.16.840.1.101.3.4.2.4", "sha256": "2.16.840.1.101.3.4.2.1",
    "sha384": "2.16.840.1.101.3.4.2.2", "sha512": "2.16.840.1.101.3.4.2.3", "md5": "1.2.840.113549.2.5",
}
PKCS1 = {"md5": "1.2.840.113549.1.1.4", "sha1": "1.2.840.113549.1.1.5", "sha224": "1.2.840.113549.1.1.14",
         "sha256": "1.2.840.113549.1.1.11", "sha384": "1.2.840.113549.1.1.12", "sha512": "1.2.840.113549.1.1.13"}
ECDSA = {"sha1": "1.2.840.10045.4.1", "sha224": "1.2.840.10045.4.3.1", "sha256": "1.2.840.10045.4.3.2",
         "sha384": "1.2.840.10045.4.3.3", "sha512": "1.2.840.10045.4.3.4"}
ECDSA_PLAIN = {h: "0.4.0.127.0.7.1.1.4.1.%d" % i for i, h in enumerate(["sha1", "sha224", "sha256", "sha384", "sha512"], 1)}
DSA = {"sha1": "1.2.840.10040.4.3", "sha224": "2.16.840.1.101.3.4.3.1", "sha256": "2.16.840.1.101.3.4.3.2"}
RSA_ENCRYPTION = "1.2.840.113549.1.1.1"
RSASSA_PSS = "1.2.840.113549.1.1.10"
MGF1 = "1.2.840.113549.1.1.8"
HASHES = {"md5": hashes.MD5, "sha1": hashes.SHA1, "sha224": hashes.SHA224, "sha256": hashes.SHA256,
          "sha384": hashes.SHA384, "sha512": hashes.SHA512}

ID_DATA = "1.2.840.113549.1.7.1"
ID_SIGNED_DATA = "1.2.840.113549.1.7.2"
ID_LDS_SECURITY_OBJECT = "2.23.136.1.1.1"
ID_CONTENT_TYPE = "1.2.840.113549.1.9.3"
ID_MESSAGE_DIGEST = "1.2.840.113549.1.9.4"
ID_SIGNING_TIME = "1.2.840.113549.1.9.5"


def digest(h, data):
    return hashlib.new(h, data).digest()


def hash_algorithm(h, null=False):
    return der.sequence(der.oid(OIDS[h]), *( [der.null()] if null else []))


class Alg:
    """A signature algorithm: kind pkcs1 | rsa (rsaEncryption OID, PKCS#1 v1.5) | pss | ecdsa |
    plain (BSI ecdsa-plain, r‖s) | dsa, with its hash."""

    def __init__(self, kind, h):
        self.kind, self.hash = kind, h

    def __repr__(self):
        return "%s-%s" % (self.kind, self.hash)

    @property
    def algorithm_identifier(self):
        h = self.hash
        if self.kind == "pkcs1":
            return der.sequence(der.oid(PKCS1[h]), der.null())
        if self.kind == "rsa":
            return der.sequence(der.oid(RSA_ENCRYPTION), der.null())
        if self.kind == "pss":
            salt = HASHES[h].digest_size
            return der.sequence(der.oid(RSASSA_PSS), der.sequence(
                der.explicit(0, hash_algorithm(h, null=True)),
                der.explicit(1, der.sequence(der.oid(MGF1), hash_algorithm(h, null=True))),
                der.explicit(2, der.integer(salt))))
        if self.kind == "ecdsa":
            return der.sequence(der.oid(ECDSA[h]))
        if self.kind == "plain":
            return der.sequence(der.oid(ECDSA_PLAIN[h]))
        if self.kind == "dsa":
            return der.sequence(der.oid(DSA[h]))
        raise ValueError(self.kind)

    def sign(self, key, data):
        hh = HASHES[self.hash]()
        if self.kind in ("pkcs1", "rsa"):
            return key.sign(data, padding.PKCS1v15(), hh)
        if self.kind == "pss":
            return key.sign(data, padding.PSS(mgf=padding.MGF1(HASHES[self.hash]()),
                                              salt_length=HASHES[self.hash].digest_size), hh)
        if self.kind == "ecdsa":
            return key.sign(data, ec.ECDSA(hh))
        if self.kind == "plain":
            r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hh)))
            size = (key.curve.key_size + 7) // 8
            return r.to_bytes(size, "big") + s.to_bytes(size, "big")
        if self.kind == "dsa":
            return key.sign(data, hh)
        raise ValueError(self.kind)


# --- keys (made once a run: RSA and DSA key generation is slow) ------------------------------

_KEYS = {}
CURVES = {"secp224r1": ec.SECP224R1, "P-256": ec.SECP256R1, "brainpoolP256r1": ec.BrainpoolP256R1,
          "brainpoolP384r1": ec.BrainpoolP384R1, "brainpoolP512r1": ec.BrainpoolP512R1}


def new_key(kind, slot=0):
    """A fresh TEST-ONLY key: "rsa-2048", "dsa-2048", or an EC curve name (CURVES)."""
    if (kind, slot) not in _KEYS:
        if kind.startswith("rsa-"):
            k = rsa.generate_private_key(65537, int(kind[4:]))
        elif kind.startswith("dsa-"):
            k = dsa.generate_private_key(int(kind[4:]))
        else:
            k = ec.generate_private_key(CURVES[kind]())
        _KEYS[(kind, slot)] = k
    return _KEYS[(kind, slot)]


def spki(public_key):
    return public_key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


# --- the TEST-ONLY CSCAs (Fixtures/pki, read only) ------------------------------------------

CSCAS = {"uto": "TEST-ONLY-csca-UTO", "bp384": "TEST-ONLY-csca-UTO-bp384"}


def csca(which="uto"):
    """(certificate DER, private key, PEM path) of a TEST-ONLY CSCA."""
    base = "%s/%s" % (PKI, CSCAS[which])
    with open(base + ".pem", "rb") as f:
        cert = x509.from_pem(f.read())
    with open(base + ".key.pem", "rb") as f:
        key = load_pem_private_key(f.read(), password=None)
    return cert, key, base + ".pem"


def dsc_name(cn="DS UTO TR-03105 TEST"):
    return x509.name(("countryName", "UTO"), ("organizationName", "Utopia Passport Office TEST ONLY"),
                     ("commonName", cn))


def key_usage(bits, critical=True):
    return x509.extension("keyUsage", der.named_bits(bits), critical=critical)


class CertBuilder:
    """A Document Signer certificate under a TEST-ONLY CSCA. `tbs` and `outer` hold the elements
    in order; a case replaces one (bytes) or leaves it out (OMIT) before `build()`."""

    def __init__(self, key, alg, ca="uto", serial=0x7E0001, cn="DS UTO TR-03105 TEST",
                 not_before=utc(2024, 1, 1), not_after=utc(2035, 1, 1)):
        self.key, self.alg = key, alg
        self.ca_cert, self.ca_key, self.ca_pem = csca(ca)
        ca_parts = x509.cert_parts(self.ca_cert)
        own = spki(key.public_key())
        self.serial = serial
        self.extensions = {
            "aki": x509.ext_aki(x509.key_identifier(ca_parts["spki"])),
            "ski": x509.ext_ski(x509.key_identifier(own)),
            "ku": key_usage([x509.KU_DIGITAL_SIGNATURE]),
        }
        self.tbs = {
            "version": der.explicit(0, der.integer(2)),
            "serial": der.integer(serial),
            "signature": alg.algorithm_identifier,
            "issuer": ca_parts["subject"],
            "validity": der.sequence(der.time(not_before), der.time(not_after)),
            "subject": dsc_name(cn),
            "spki": own,
            "extensions": None,             # filled from self.extensions unless set
        }
        self.outer_alg = alg.algorithm_identifier
        self.signature = None               # bytes: used as the signatureValue BIT STRING content
        self.omit_signature = False

    def tbs_der(self):
        parts = dict(self.tbs)
        if parts["extensions"] is None:
            exts = [e for e in self.extensions.values() if e is not OMIT]
            parts["extensions"] = der.explicit(3, der.sequence(*exts)) if exts else OMIT
        return der.sequence(*[v for v in parts.values() if v is not OMIT])

    def build(self):
        tbs = self.tbs_der()
        sig = self.signature if self.signature is not None else self.alg.sign(self.ca_key, tbs)
        items = [tbs]
        if self.outer_alg is not OMIT:
            items.append(self.outer_alg)
        if not self.omit_signature:
            items.append(der.bit_string(sig))
        return der.sequence(*items)


class SODBuilder:
    """EF.SOD over `dgs` signed by `cert`/`key` with `alg`. The LDSSecurityObject hash `lso_hash`,
    the SignerInfo digest `signer_hash` (default: lso_hash). Elements as in ICAO 9303-10 / RFC 5652;
    change them before `build()`."""

    def __init__(self, dgs, cert, key, alg, lso_hash=None, signer_hash=None):
        self.dgs = dict(dgs)
        self.cert, self.key, self.alg = cert, key, alg
        self.lso_hash = lso_hash or alg.hash
        self.signer_hash = signer_hash or self.lso_hash
        parts = x509.cert_parts(cert)
        # LDSSecurityObject
        self.lso_version = der.integer(0)
        self.lso_alg = hash_algorithm(self.lso_hash)
        self.dg_entries = None              # list of DataGroupHash DER; default from dgs
        self.dg_hash_overrides = {}         # n -> hash bytes
        self.lds_version_info = OMIT
        self.econtent = None                # bytes: replaces the whole LDSSecurityObject
        # SignedData
        self.sd_version = der.integer(3)
        self.sd_digest_algorithms = der.set_of(hash_algorithm(self.signer_hash))
        self.econtent_type = der.oid(ID_LDS_SECURITY_OBJECT)
        self.certificates = [cert]          # [] : no certificates element
        # SignerInfo
        self.si_version = der.integer(1)
        self.sid = der.sequence(parts["issuer"], der.integer(parts["serial"]))
        self.si_digest_alg = hash_algorithm(self.signer_hash)
        self.attributes = None              # list of Attribute DER; default contentType, signingTime, messageDigest
        self.message_digest = None          # bytes override
        self.si_signature_alg = alg.algorithm_identifier
        self.signature = None               # bytes override
        self.omit_signature = False
        self.outer_tag = 0x77
        self.outer_length_delta = 0

    @staticmethod
    def attribute(oid, value):
        return der.sequence(der.oid(oid), der.set_of(value))

    def ski(self):
        """The DSC's subject key identifier (for sid [0])."""
        return x509.key_identifier(spki(self.key.public_key()))

    def lso(self):
        if self.econtent is not None:
            return self.econtent
        entries = self.dg_entries
        if entries is None:
            entries = [der.sequence(der.integer(n), der.octet_string(
                self.dg_hash_overrides.get(n) or digest(self.lso_hash, self.dgs[n]))) for n in sorted(self.dgs)]
        items = [self.lso_version, self.lso_alg, der.sequence(*entries), self.lds_version_info]
        return der.sequence(*[i for i in items if i is not OMIT])

    def default_attributes(self, econtent):
        md = self.message_digest if self.message_digest is not None else digest(self.signer_hash, econtent)
        return [self.attribute(ID_CONTENT_TYPE, der.oid(ID_LDS_SECURITY_OBJECT)),
                self.attribute(ID_SIGNING_TIME, der.utc_time(SIGNING_TIME)),
                self.attribute(ID_MESSAGE_DIGEST, der.octet_string(md))]

    def build(self):
        econtent = self.lso()
        attrs = self.attributes if self.attributes is not None else self.default_attributes(econtent)
        signed = der.set_of(*attrs)
        signature = self.signature if self.signature is not None else self.alg.sign(self.key, signed)
        si = [self.si_version, self.sid, self.si_digest_alg,
              der.implicit_constructed(0, der.parse_one(signed).value), self.si_signature_alg,
              OMIT if self.omit_signature else der.octet_string(signature)]
        eci = [self.econtent_type, der.explicit(0, der.octet_string(econtent))]
        sd = [self.sd_version, self.sd_digest_algorithms, der.sequence(*[e for e in eci if e is not OMIT]),
              der.implicit_constructed(0, b"".join(self.certificates)) if self.certificates else OMIT,
              der.set_of(der.sequence(*[e for e in si if e is not OMIT]))]
        content_info = der.sequence(der.oid(ID_SIGNED_DATA),
                                    der.explicit(0, der.sequence(*[e for e in sd if e is not OMIT])))
        if not self.outer_length_delta:
            return der.tlv(self.outer_tag, content_info)
        n = len(content_info) + self.outer_length_delta
        return bytes([self.outer_tag]) + der.length(n) + content_info
