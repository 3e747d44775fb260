"""Key files: reuse what is on disk unless asked for new ones; deterministic keys for the rogue PKI."""

from __future__ import annotations

import hashlib
import os
import random

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

CURVES = {
    "P-256": ec.SECP256R1,
    "brainpoolP256r1": ec.BrainpoolP256R1,
    "brainpoolP384r1": ec.BrainpoolP384R1,
}


def _write_pem(path: str, key) -> None:
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    with open(path, "wb") as f:
        f.write(pem)


def load_or_create(path: str, kind: str, new: bool, log=print):
    """kind: 'rsa-<bits>' or 'ec-<curve name>'."""
    if os.path.exists(path) and not new:
        with open(path, "rb") as f:
            key = serialization.load_pem_private_key(f.read(), password=None)
        _check_kind(key, kind, path)
        return key
    if kind.startswith("rsa-"):
        key = rsa.generate_private_key(public_exponent=65537, key_size=int(kind[4:]))
    elif kind.startswith("ec-"):
        key = ec.generate_private_key(CURVES[kind[3:]]())
    else:
        raise ValueError(kind)
    _write_pem(path, key)
    log(f"  new key {os.path.basename(path)} ({kind})")
    return key


def _check_kind(key, kind: str, path: str) -> None:
    if kind.startswith("rsa-"):
        ok = isinstance(key, rsa.RSAPrivateKey) and key.key_size == int(kind[4:])
    else:
        ok = isinstance(key, ec.EllipticCurvePrivateKey) and isinstance(key.curve, CURVES[kind[3:]])
    if not ok:
        raise SystemExit(f"{path} is not a {kind} key; delete it or run with --new-keys")


# ---------------------------------------------------------------------------
# Deterministic RSA keys (the rogue PKI's keys are derived, never stored)
# ---------------------------------------------------------------------------

_SMALL_PRIMES = [p for p in range(3, 2000) if all(p % q for q in range(2, int(p ** 0.5) + 1))]


def _probably_prime(n: int, rng: random.Random, rounds: int = 40) -> bool:
    if n < 2:
        return False
    for p in _SMALL_PRIMES:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for _ in range(rounds):
        a = rng.randrange(2, n - 1)
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = pow(x, 2, n)
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(rng: random.Random, bits: int, e: int) -> int:
    while True:
        n = rng.getrandbits(bits) | (0b11 << (bits - 2)) | 1  # top two bits set: |p*q| is exactly 2*bits
        if (n - 1) % e and _probably_prime(n, rng):
            return n


def deterministic_rsa(label: str, bits: int, e: int = 65537) -> rsa.RSAPrivateKey:
    """An RSA key derived from a fixed label, so the same key comes back on every run."""
    rng = random.Random(hashlib.sha256(b"fixturegen deterministic rsa|" + label.encode()).digest())
    while True:
        p = _prime(rng, bits // 2, e)
        q = _prime(rng, bits // 2, e)
        if p == q:
            continue
        if p < q:
            p, q = q, p
        n = p * q
        if n.bit_length() != bits:
            continue
        d = pow(e, -1, (p - 1) * (q - 1))
        numbers = rsa.RSAPrivateNumbers(p=p, q=q, d=d, dmp1=d % (p - 1), dmq1=d % (q - 1),
                                        iqmp=pow(q, -1, p), public_numbers=rsa.RSAPublicNumbers(e, n))
        return numbers.private_key()
