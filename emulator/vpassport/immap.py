"""PACE Integrated Mapping as ICAO 9303-11 section 4.4.3.3.2 and Appendix B define it.

OpenPACE 1.1.2 has no usable Integrated Mapping for ICAO terminals: it only
accepts IM in TR-03110 v2.01 mode (whose authentication tokens carry the whole
domain parameters), maps with a single block E(t, s) and Icart's encoding
instead of R_p and the point encoding below, and its ECDH variant never
installs the point it computes (the key agreement stays on the static
generator). So the chip computes the mapped generator here and hands it to
OpenPACE, which does everything else (nonce, keys, KDF, tokens, SM).

Checked by the self-test against ICAO 9303-11 Appendix H.1 (ECDH) and H.2 (DH).
"""
from Cryptodome.Cipher import AES

# 9303-11 4.4.3.3.2, by the bit length l of the nonce s
C0 = {128: bytes.fromhex("a668892a7c41e3ca739f40b057d85904"),
      256: bytes.fromhex("d463d65234124ef7897054986dca0a174e28df758cbaa03f240616414d5a1676")}
C1 = {128: bytes.fromhex("a4e136ac725f738b01c1f60217c188ad"),
      256: bytes.fromhex("54bd7255f0aaf831bec3423fcf39d69b6cbf066677d0faae5aadd99df8e53517")}


def _encrypt(key, data):
    """The block cipher E() in CBC mode with IV = 0 (AES only: the chip offers
    AES profiles only)."""
    return AES.new(key, AES.MODE_CBC, iv=bytes(16)).encrypt(data)


def pseudo_random(s, t, p):
    """R(s, t): the octet string x1 || ... || xn (before the reduction mod p).

    s: the chip's nonce (l bits), t: the terminal's nonce (k bits, the key
    size). k_0 = E(t, s); for i = 1..n: x_i = E(k_{i-1}, c1), k_i = E(k_{i-1},
    c0), each key truncated to k bits; n is the smallest number with
    n * l >= log2(p) + 64.
    """
    l_bits, key_len = len(s) * 8, len(t)
    c0, c1 = C0[l_bits], C1[l_bits]
    n = 1
    while (1 << (n * l_bits - 64)) < p:         # n*l - 64 >= log2 p
        n += 1
    key = _encrypt(t, s)
    out = b""
    for _ in range(n):
        k = key[:key_len]
        out += _encrypt(k, c1)
        key = _encrypt(k, c0)
    return out


def r_p(s, t, p):
    return int.from_bytes(pseudo_random(s, t, p), "big") % p


def point_encoding(t, p, a, b, cofactor=1, order=None, gx=None, gy=None):
    """f_G(t) of 9303-11 Appendix B.2 (affine coordinates; needs p = 3 mod 4)."""
    if p % 4 != 3:
        raise ValueError("the ICAO point encoding needs p = 3 mod 4")
    alpha = (-t * t) % p
    x2 = (-b * pow(a, -1, p) * (1 + pow(alpha + alpha * alpha, -1, p))) % p
    x3 = (alpha * x2) % p
    h2 = (pow(x2, 3, p) + a * x2 + b) % p
    u = (pow(t, 3, p) * h2) % p
    big_a = pow(h2, p - 1 - (p + 1) // 4, p)
    if (big_a * big_a * h2) % p == 1:
        point = (x2, (big_a * h2) % p)
    else:
        point = (x3, (big_a * u) % p)
    if cofactor != 1:
        point = _scalar_mul(cofactor, point, p, a)
    return point


def _scalar_mul(k, point, p, a):
    """Affine double-and-add (only for a cofactor other than 1)."""
    result = None
    while k:
        if k & 1:
            result = _add(result, point, p, a)
        point = _add(point, point, p, a)
        k >>= 1
    return result


def _add(p1, p2, p, a):
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % p == 0:
        return None
    if p1 == p2:
        lam = (3 * x1 * x1 + a) * pow(2 * y1, -1, p) % p
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, p) % p
    x3 = (lam * lam - x1 - x2) % p
    return x3, (lam * (x1 - x3) - y1) % p


def map_ecdh(s, t, params):
    """Mapped generator (x, y) for ECDH-IM; params: openpace.EcParams."""
    return point_encoding(r_p(s, t, params.p), params.p, params.a, params.b, params.cofactor)


def map_dh(s, t, params):
    """Mapped generator for DH-IM: R_p(s,t)^((p-1)/q) mod p, which must not be 1."""
    g = pow(r_p(s, t, params.p), (params.p - 1) // params.q, params.p)
    if g == 1:
        raise ValueError("DH integrated mapping gave the generator 1")
    return g
