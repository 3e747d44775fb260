"""Keys of the chip: public keys of DG14/DG15, private keys from PEM or DER
files, and the SecurityInfos of DG14 (ICAO 9303-10/-11, BSI TR-03110-3).

Only DER parsing on top of the shared der.parse_tlvs; the arithmetic is ecc.py's (EC,
DH) or Python's pow (RSA).

  PublicKey   kind "RSA" (n, e), "EC" (curve, point) or "DH" (group, y)
  PrivateKey  kind "RSA" (n, e, d), "EC" (d, curve or None), "DH" (x, group or None)
"""
import base64
import hashlib

from der import integer_value, oid_text, parse_tlvs

from . import ecc

RSA_ENCRYPTION = "1.2.840.113549.1.1.1"
EC_PUBLIC_KEY = "1.2.840.10045.2.1"
PRIME_FIELD = "1.2.840.10045.1.1"
DH_PUBLIC_NUMBER = "1.2.840.10046.2.1"         # X9.42 DomainParameters (p, g, q)
DH_KEY_AGREEMENT = "1.2.840.113549.1.3.1"      # PKCS #3 DHParameter (p, g)
STANDARDIZED_DOMAIN_PARAMETERS = "0.4.0.127.0.7.1.2"
BSI = "0.4.0.127.0.7"
ID_PK_DH, ID_PK_ECDH = BSI + ".2.2.1.1", BSI + ".2.2.1.2"
ID_CA = BSI + ".2.2.3"                          # .1 DH / .2 ECDH, then the cipher
ID_AA = "2.23.136.1.1.5"                        # ActiveAuthenticationInfo

# signature algorithm OID of ActiveAuthenticationInfo -> hash (ECDSA)
ECDSA_HASHES = {
    "1.2.840.10045.4.1": "sha1", "1.2.840.10045.4.3.1": "sha224",
    "1.2.840.10045.4.3.2": "sha256", "1.2.840.10045.4.3.3": "sha384",
    "1.2.840.10045.4.3.4": "sha512",
    BSI + ".1.1.4.1.1": "sha1", BSI + ".1.1.4.1.2": "sha224", BSI + ".1.1.4.1.3": "sha256",
    BSI + ".1.1.4.1.4": "sha384", BSI + ".1.1.4.1.5": "sha512",
}


# --- DER --------------------------------------------------------------------------------
def items(data):
    """[(tag, value)] of the TLVs in data."""
    return [(t, v) for t, v, _ in parse_tlvs(data)]


def seq(data, tag=0x30):
    """The children of a single constructed TLV with this tag."""
    top = items(data)
    if not top or top[0][0] != tag:
        raise ValueError("expected tag %02X, found %s" % (tag, "%02X" % top[0][0] if top else "nothing"))
    return items(top[0][1])


def _expect(item, tag, what):
    if item[0] != tag:
        raise ValueError("%s: expected tag %02X, found %02X" % (what, tag, item[0]))
    return item[1]


# --- domain parameters ---------------------------------------------------------------------
def ec_parameters(tag, value):
    """Curve from ECParameters (a named-curve OID or the explicit SEQUENCE)."""
    if tag == 0x06:
        return ecc.named_curve(oid_text(value))
    if tag != 0x30:
        raise ValueError("implicitlyCA or unknown EC parameters (tag %02X)" % tag)
    fields = items(value)
    field = items(_expect(fields[1], 0x30, "fieldID"))
    if oid_text(_expect(field[0], 0x06, "fieldType")) != PRIME_FIELD:
        raise ValueError("only prime-field curves are supported")
    p = integer_value(_expect(field[1], 0x02, "prime"))
    curve = items(_expect(fields[2], 0x30, "curve"))
    a = int.from_bytes(_expect(curve[0], 0x04, "a"), "big")
    b = int.from_bytes(_expect(curve[1], 0x04, "b"), "big")
    base = _expect(fields[3], 0x04, "base")
    n = integer_value(_expect(fields[4], 0x02, "order"))
    h = integer_value(_expect(fields[5], 0x02, "cofactor")) if len(fields) > 5 else 1
    size = (p.bit_length() + 7) // 8
    if len(base) != 1 + 2 * size or base[0] != 4:
        raise ValueError("the base point must be uncompressed")
    gx, gy = int.from_bytes(base[1:1 + size], "big"), int.from_bytes(base[1 + size:], "big")
    explicit = ecc.Curve(p, a, b, gx, gy, n, h)
    for oid in ecc.CURVE_NAMES:                     # name it when it is a known curve
        try:
            if ecc.named_curve(oid) == explicit:
                explicit.name = "%s (explicit parameters)" % ecc.CURVE_NAMES[oid]
                break
        except (OSError, ValueError):
            break
    return explicit


def dh_parameters(algorithm, value):
    fields = items(value)
    p = integer_value(_expect(fields[0], 0x02, "p"))
    g = integer_value(_expect(fields[1], 0x02, "g"))
    q = None
    if algorithm == DH_PUBLIC_NUMBER and len(fields) > 2:   # X9.42: p, g, q, ...
        q = integer_value(_expect(fields[2], 0x02, "q"))
    return ecc.DhGroup(p, g, q)


def domain(algorithm_identifier):
    """(kind, curve or group) of an AlgorithmIdentifier's children; kind is
    "RSA", "EC" or "DH"."""
    oid = oid_text(_expect(algorithm_identifier[0], 0x06, "algorithm"))
    params = algorithm_identifier[1] if len(algorithm_identifier) > 1 else (0x05, b"")
    if oid == RSA_ENCRYPTION:
        return "RSA", None
    if oid == EC_PUBLIC_KEY:
        return "EC", ec_parameters(*params)
    if oid in (DH_PUBLIC_NUMBER, DH_KEY_AGREEMENT):
        return "DH", dh_parameters(oid, params[1])
    if oid == STANDARDIZED_DOMAIN_PARAMETERS:
        group = ecc.standardized(integer_value(_expect(params, 0x02, "parameter id")))
        return ("DH" if isinstance(group, ecc.DhGroup) else "EC"), group
    raise ValueError("unsupported key algorithm %s" % oid)


# --- public keys ------------------------------------------------------------------------------
class PublicKey:
    def __init__(self, kind, domain=None, point=None, n=None, e=None, y=None):
        self.kind, self.domain = kind, domain
        self.point, self.n, self.e, self.y = point, n, e, y

    def __repr__(self):
        if self.kind == "RSA":
            return "RSA %d-bit" % self.n.bit_length()
        return "%s on %s" % (self.kind, self.domain)


def public_key(spki):
    """PublicKey from a DER SubjectPublicKeyInfo."""
    alg, bits = seq(spki)[:2]
    kind, dom = domain(items(_expect(alg, 0x30, "AlgorithmIdentifier")))
    raw = _expect(bits, 0x03, "subjectPublicKey")
    if not raw or raw[0] != 0:
        raise ValueError("subjectPublicKey has unused bits")
    raw = raw[1:]
    if kind == "RSA":
        n, e = (integer_value(v) for _, v in seq(raw)[:2])
        return PublicKey("RSA", n=n, e=e)
    if kind == "EC":
        return PublicKey("EC", dom, point=dom.decode(raw))
    # DH: the BIT STRING holds an INTEGER (X9.42); accept the bare value too
    try:
        y = integer_value(_expect(items(raw)[0], 0x02, "y"))
    except (ValueError, IndexError):
        y = int.from_bytes(raw, "big")
    return PublicKey("DH", dom, y=y)


def dg15_public_key(dg15):
    """DG15 (tag 6F) holds the Active Authentication SubjectPublicKeyInfo."""
    top = items(dg15)
    if not top or top[0][0] != 0x6F:
        raise ValueError("DG15 does not start with tag 6F")
    return public_key(top[0][1])


# --- private keys --------------------------------------------------------------------------------
class PrivateKey:
    def __init__(self, kind, secret=None, domain=None, n=None, e=None):
        self.kind, self.secret, self.domain, self.n, self.e = kind, secret, domain, n, e

    def matches(self, public):
        """Is `public` the public key of this private key (on public's domain)?"""
        if public.kind != self.kind:
            return False
        if self.kind == "RSA":
            return (self.n, self.e) == (public.n, public.e)
        if self.kind == "EC":
            return public.domain.mul(self.secret) == public.point
        return pow(public.domain.g, self.secret, public.domain.p) == public.y

    def __repr__(self):
        return "RSA %d-bit" % self.n.bit_length() if self.kind == "RSA" else self.kind


def _der_of(data):
    """DER bytes of a PEM (any label, unencrypted) or DER file's contents."""
    if data.lstrip()[:5] == b"-----":
        text = data.decode("ascii", "replace")
        if "ENCRYPTED" in text:
            raise ValueError("encrypted private keys are not supported")
        lines = text.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("-----BEGIN"))
        end = next(i for i, line in enumerate(lines) if i > start and line.startswith("-----END"))
        body = [line for line in lines[start + 1:end] if line.strip() and ":" not in line]
        return base64.b64decode("".join(body))
    return data


def _ec_private(value, dom=None):
    """ECPrivateKey (SEC 1): version 1, OCTET STRING d, [0] parameters, [1] public."""
    fields = items(value)
    d = int.from_bytes(_expect(fields[1], 0x04, "privateKey"), "big")
    for tag, v in fields[2:]:
        if tag == 0xA0 and dom is None:
            dom = ec_parameters(*items(v)[0])
    return PrivateKey("EC", d, dom)


def private_key(data):
    """PrivateKey from PEM or DER: PKCS#8 (RSA, EC, DH, standardized domain
    parameters), SEC 1 EC PRIVATE KEY or PKCS#1 RSA PRIVATE KEY."""
    der = _der_of(data)
    top = items(der)
    if not top or top[0][0] != 0x30:
        raise ValueError("not a DER private key")
    fields = items(top[0][1])
    if len(fields) >= 3 and fields[1][0] == 0x30 and fields[2][0] == 0x04:    # PKCS#8
        kind, dom = domain(items(fields[1][1]))
        inner = fields[2][1]
        if kind == "RSA":
            return _rsa_private(items(inner)[0][1])
        if kind == "EC":
            return _ec_private(items(inner)[0][1], dom)
        return PrivateKey("DH", integer_value(_expect(items(inner)[0], 0x02, "x")), dom)
    if len(fields) >= 2 and fields[1][0] == 0x04:                             # SEC 1
        return _ec_private(top[0][1])
    if len(fields) >= 4 and all(t == 0x02 for t, _ in fields[:4]):           # PKCS#1
        return _rsa_private(top[0][1])
    raise ValueError("unrecognised private key format")


def _rsa_private(value):
    fields = items(value)
    n, e, d = (integer_value(fields[i][1]) for i in (1, 2, 3))
    return PrivateKey("RSA", d, n=n, e=e)


def load_private_key(path):
    with open(path, "rb") as f:
        return private_key(f.read())


# --- DG14 SecurityInfos ----------------------------------------------------------------------------
class SecurityInfos:
    """What a DG14 (or any SecurityInfos SET) says about CA and AA."""

    def __init__(self, data):
        top = items(data)
        if top and top[0][0] == 0x6E:                  # DG14 wrapper
            top = items(top[0][1])
        if not top or top[0][0] != 0x31:
            raise ValueError("no SecurityInfos SET")
        self.ca_infos = []          # [(protocol OID, version, keyId or None)]
        self.ca_keys = []           # [(PublicKey, keyId or None, id-PK OID)]
        self.aa_signature_oid = None
        self.problems = []
        for tag, info in items(top[0][1]):
            if tag != 0x30:
                continue
            fields = items(info)
            if not fields or fields[0][0] != 0x06:
                continue
            oid = oid_text(fields[0][1])
            try:
                if oid.startswith(ID_CA + ".") and len(oid.split(".")) == 11:
                    key_id = integer_value(fields[2][1]) if len(fields) > 2 else None
                    self.ca_infos.append((oid, integer_value(fields[1][1]), key_id))
                elif oid in (ID_PK_DH, ID_PK_ECDH):
                    key_id = integer_value(fields[2][1]) if len(fields) > 2 else None
                    self.ca_keys.append((public_key(_raw_tlv(info, 1)), key_id, oid))
                elif oid == ID_AA:
                    if len(fields) > 2:
                        self.aa_signature_oid = oid_text(fields[2][1])
            except (ValueError, IndexError) as e:
                self.problems.append("%s: %s" % (oid, e))


def _raw_tlv(data, index):
    """The complete encoding (tag, length, value) of the index-th TLV in data."""
    return parse_tlvs(data)[index][2]


def hash_function(name):
    return getattr(hashlib, name)
