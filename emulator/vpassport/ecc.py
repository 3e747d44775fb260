"""Prime-field elliptic curves and DH groups for Chip and Active Authentication.

Plain Python arithmetic (Jacobian coordinates), so that any curve a DG14 or
DG15 describes works the same way: named by OID, given with explicit
parameters (ECParameters), or one of BSI TR-03110's standardized domain
parameters. The parameters of named and standardized curves and of the
RFC 5114 DH groups are read from the system's OpenSSL (libcrypto, through
ctypes) rather than written out here.
"""
import ctypes
import ctypes.util
import os

# BSI TR-03110-3, table "standardized domain parameters": id -> curve OID, or
# the RFC 5114 DH group (libcrypto function) for ids 0-2.
STANDARDIZED = {
    0: "DH_get_1024_160", 1: "DH_get_2048_224", 2: "DH_get_2048_256",
    8: "1.2.840.10045.3.1.1",        # NIST P-192 (secp192r1)
    9: "1.3.36.3.3.2.8.1.1.3",       # brainpoolP192r1
    10: "1.3.132.0.33",              # NIST P-224 (secp224r1)
    11: "1.3.36.3.3.2.8.1.1.5",      # brainpoolP224r1
    12: "1.2.840.10045.3.1.7",       # NIST P-256 (secp256r1)
    13: "1.3.36.3.3.2.8.1.1.7",      # brainpoolP256r1
    14: "1.3.36.3.3.2.8.1.1.9",      # brainpoolP320r1
    15: "1.3.132.0.34",              # NIST P-384 (secp384r1)
    16: "1.3.36.3.3.2.8.1.1.11",     # brainpoolP384r1
    17: "1.3.36.3.3.2.8.1.1.13",     # brainpoolP512r1
    18: "1.3.132.0.35",              # NIST P-521 (secp521r1)
}
CURVE_NAMES = {
    "1.2.840.10045.3.1.1": "secp192r1", "1.3.36.3.3.2.8.1.1.3": "brainpoolP192r1",
    "1.3.132.0.33": "secp224r1", "1.3.36.3.3.2.8.1.1.5": "brainpoolP224r1",
    "1.2.840.10045.3.1.7": "secp256r1", "1.3.36.3.3.2.8.1.1.7": "brainpoolP256r1",
    "1.3.36.3.3.2.8.1.1.9": "brainpoolP320r1", "1.3.132.0.34": "secp384r1",
    "1.3.36.3.3.2.8.1.1.11": "brainpoolP384r1", "1.3.36.3.3.2.8.1.1.13": "brainpoolP512r1",
    "1.3.132.0.35": "secp521r1",
}


class Curve:
    """y^2 = x^3 + ax + b over GF(p), base point G of order n, cofactor h.
    Points are affine (x, y) tuples; None is the point at infinity."""

    def __init__(self, p, a, b, gx, gy, n, h=1, name=None):
        self.p, self.a, self.b, self.n, self.h = p, a % p, b % p, n, h
        self.g = (gx, gy)
        self.size = (p.bit_length() + 7) // 8           # field element bytes
        self.order_size = (n.bit_length() + 7) // 8
        self.name = name or "explicit %d-bit curve" % p.bit_length()
        if not self.on_curve(self.g):
            raise ValueError("%s: the base point is not on the curve" % self.name)

    def __repr__(self):
        return self.name

    def __eq__(self, other):
        return isinstance(other, Curve) and (self.p, self.a, self.b, self.g, self.n) == \
            (other.p, other.a, other.b, other.g, other.n)

    def on_curve(self, pt):
        if pt is None:
            return False
        x, y = pt
        p = self.p
        return 0 <= x < p and 0 <= y < p and (y * y - x * x * x - self.a * x - self.b) % p == 0

    def encode(self, pt):
        """Uncompressed point 04 || x || y (each coordinate the field's size)."""
        x, y = pt
        return b"\x04" + x.to_bytes(self.size, "big") + y.to_bytes(self.size, "big")

    def decode(self, raw):
        """A public point, validated: uncompressed encoding of the field's
        size, on the curve, and (cofactor > 1) in the subgroup of order n.
        Raises ValueError otherwise."""
        raw = bytes(raw)
        if len(raw) != 1 + 2 * self.size or raw[0] != 4:
            raise ValueError("not an uncompressed point of %s (%d bytes, first %s)" %
                             (self.name, len(raw), raw[:1].hex() or "none"))
        pt = (int.from_bytes(raw[1:1 + self.size], "big"), int.from_bytes(raw[1 + self.size:], "big"))
        if not self.on_curve(pt):
            raise ValueError("point not on %s" % self.name)
        if self.h != 1 and self.mul(self.n, pt) is not None:
            raise ValueError("point not in the subgroup of order n")
        return pt

    # --- arithmetic ---------------------------------------------------------------
    def _double(self, P):
        X, Y, Z = P
        p = self.p
        if Y == 0 or Z == 0:
            return (1, 1, 0)
        YY = Y * Y % p
        S = 4 * X * YY % p
        ZZ = Z * Z % p
        M = (3 * X * X + self.a * ZZ * ZZ) % p
        X3 = (M * M - 2 * S) % p
        return (X3, (M * (S - X3) - 8 * YY * YY) % p, 2 * Y * Z % p)

    def _add(self, P, Q):
        if P[2] == 0:
            return Q
        if Q[2] == 0:
            return P
        p = self.p
        X1, Y1, Z1 = P
        X2, Y2, Z2 = Q
        Z1Z1, Z2Z2 = Z1 * Z1 % p, Z2 * Z2 % p
        U1, U2 = X1 * Z2Z2 % p, X2 * Z1Z1 % p
        S1, S2 = Y1 * Z2 * Z2Z2 % p, Y2 * Z1 * Z1Z1 % p
        if U1 == U2:
            return self._double(P) if S1 == S2 else (1, 1, 0)
        H, R = (U2 - U1) % p, (S2 - S1) % p
        HH = H * H % p
        HHH = H * HH % p
        V = U1 * HH % p
        X3 = (R * R - HHH - 2 * V) % p
        return (X3, (R * (V - X3) - S1 * HHH) % p, H * Z1 * Z2 % p)

    def mul(self, k, pt=None):
        """k * pt (default the base point), affine result or None (infinity)."""
        x, y = self.g if pt is None else pt
        base, acc = (x, y, 1), (1, 1, 0)
        for bit in bin(k)[2:] if k > 0 else "":
            acc = self._double(acc)
            if bit == "1":
                acc = self._add(acc, base)
        X, Y, Z = acc
        if Z == 0:
            return None
        zi = pow(Z, -1, self.p)
        zi2 = zi * zi % self.p
        return (X * zi2 % self.p, Y * zi2 * zi % self.p)

    def random_scalar(self):
        return int.from_bytes(os.urandom(self.order_size + 8), "big") % (self.n - 1) + 1


class DhGroup:
    """Finite-field DH group: prime p, generator g, subgroup order q (or None)."""

    def __init__(self, p, g, q=None, name=None):
        self.p, self.g, self.q = p, g, q
        self.size = (p.bit_length() + 7) // 8
        self.name = name or "%d-bit DH group" % p.bit_length()

    def __repr__(self):
        return self.name

    def decode(self, raw):
        """A public value (big-endian, at most |p| bytes), validated: 1 < y < p-1
        and, when q is known, y^q = 1."""
        raw = bytes(raw)
        y = int.from_bytes(raw, "big")
        if not raw or len(raw) > self.size or not 1 < y < self.p - 1:
            raise ValueError("DH public value out of range")
        if self.q and pow(y, self.q, self.p) != 1:
            raise ValueError("DH public value not in the subgroup of order q")
        return y

    def encode(self, y):
        return y.to_bytes(self.size, "big")

    def random_exponent(self):
        bound = self.q or self.p - 1
        return int.from_bytes(os.urandom((bound.bit_length() + 7) // 8 + 8), "big") % (bound - 2) + 2


# --- parameters from libcrypto ------------------------------------------------------
_lib = None


def _crypto():
    global _lib
    if _lib is None:
        name = ctypes.util.find_library("crypto") or "libcrypto.so.3"
        lib = ctypes.CDLL(name)
        vp, ci = ctypes.c_void_p, ctypes.c_int
        for fn, res, args in (
                ("OBJ_txt2nid", ci, [ctypes.c_char_p]),
                ("EC_GROUP_new_by_curve_name", vp, [ci]),
                ("EC_GROUP_free", None, [vp]),
                ("EC_GROUP_get_curve", ci, [vp, vp, vp, vp, vp]),
                ("EC_GROUP_get_order", ci, [vp, vp, vp]),
                ("EC_GROUP_get_cofactor", ci, [vp, vp, vp]),
                ("EC_GROUP_get0_generator", vp, [vp]),
                ("EC_POINT_get_affine_coordinates", ci, [vp, vp, vp, vp, vp]),
                ("BN_new", vp, []), ("BN_free", None, [vp]),
                ("BN_num_bits", ci, [vp]), ("BN_bn2bin", ci, [vp, ctypes.c_char_p]),
                ("DH_get_1024_160", vp, []), ("DH_get_2048_224", vp, []),
                ("DH_get_2048_256", vp, []), ("DH_free", None, [vp]),
                ("DH_get0_pqg", None, [vp, ctypes.POINTER(vp), ctypes.POINTER(vp),
                                       ctypes.POINTER(vp)])):
            f = getattr(lib, fn)
            f.restype, f.argtypes = res, args
        _lib = lib
    return _lib


def _bn(lib, bn):
    n = (lib.BN_num_bits(bn) + 7) // 8
    out = ctypes.create_string_buffer(max(n, 1))
    lib.BN_bn2bin(bn, out)
    return int.from_bytes(out.raw[:n], "big")


_named = {}


def named_curve(oid):
    """The curve with this OID (dotted text) as libcrypto knows it."""
    if oid in _named:
        return _named[oid]
    lib = _crypto()
    nid = lib.OBJ_txt2nid(oid.encode())
    group = lib.EC_GROUP_new_by_curve_name(nid) if nid > 0 else None
    if not group:
        raise ValueError("unknown elliptic curve %s" % oid)
    bns = [lib.BN_new() for _ in range(7)]
    try:
        p, a, b, n, h, x, y = bns
        if not (lib.EC_GROUP_get_curve(group, p, a, b, None)
                and lib.EC_GROUP_get_order(group, n, None)
                and lib.EC_GROUP_get_cofactor(group, h, None)
                and lib.EC_POINT_get_affine_coordinates(
                    group, lib.EC_GROUP_get0_generator(group), x, y, None)):
            raise ValueError("libcrypto cannot describe curve %s" % oid)
        values = [_bn(lib, bn) for bn in bns]
    finally:
        for bn in bns:
            lib.BN_free(bn)
        lib.EC_GROUP_free(group)
    p, a, b, n, h, x, y = values
    curve = Curve(p, a, b, x, y, n, h, CURVE_NAMES.get(oid, oid))
    _named[oid] = curve
    return curve


def dh_group(function):
    lib = _crypto()
    dh = getattr(lib, function)()
    if not dh:
        raise ValueError("libcrypto has no %s" % function)
    try:
        p, q, g = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        lib.DH_get0_pqg(dh, ctypes.byref(p), ctypes.byref(q), ctypes.byref(g))
        return DhGroup(_bn(lib, p), _bn(lib, g), _bn(lib, q) if q else None,
                       "RFC 5114 " + function[7:].replace("_", "/"))
    finally:
        lib.DH_free(dh)


def standardized(parameter_id):
    """Curve or DH group of a TR-03110 standardized domain parameter id."""
    ref = STANDARDIZED.get(parameter_id)
    if ref is None:
        raise ValueError("unknown standardized domain parameters %d" % parameter_id)
    return dh_group(ref) if ref.startswith("DH_") else named_curve(ref)
