"""BAC and 3DES secure-messaging primitives (ICAO 9303-11 section 4.3 and 9).

Written from the standard's text only; it shares nothing with the Swift reader
on purpose, so that the two implementations check each other.
"""
from Cryptodome.Cipher import DES, DES3
from Cryptodome.Hash import SHA1

ZERO_IV = bytes(8)


def pad(data):
    """ISO/IEC 9797-1 padding method 2: 0x80 then zeros up to a multiple of 8."""
    data = data + b"\x80"
    return data + bytes(-len(data) % 8)


def unpad(data):
    """Inverse of pad(); raises ValueError when the padding is malformed."""
    stripped = data.rstrip(b"\x00")
    if not stripped.endswith(b"\x80") or len(data) - len(stripped) > 7:
        raise ValueError("bad ISO 9797-1 method 2 padding")
    return stripped[:-1]


def adjust_parity(key):
    """Set each byte's least significant bit so the byte has odd parity (DES)."""
    out = bytearray()
    for b in key:
        ones = bin(b >> 1).count("1")
        out.append((b & 0xFE) | (0 if ones % 2 else 1))
    return bytes(out)


def derive_key(seed, counter):
    """9303-11 section 9.7.1: 2-key 3DES key from K_seed and a 32-bit counter."""
    digest = SHA1.new(seed + counter.to_bytes(4, "big")).digest()
    return adjust_parity(digest[:16])


def bac_keys_from_seed(seed):
    """(K_enc, K_mac) for a 16-byte seed; counter 1 = encryption, 2 = MAC."""
    return derive_key(seed, 1), derive_key(seed, 2)


def k_seed(mrz_information):
    """K_seed = first 16 bytes of SHA-1(MRZ_information) (9303-11 section 9.7.2)."""
    return SHA1.new(mrz_information.encode("ascii")).digest()[:16]


def enc(key, data):
    """2-key 3DES in CBC mode with a zero IV (BAC and 3DES SM both use IV = 0)."""
    return DES3.new(key, DES3.MODE_CBC, iv=ZERO_IV).encrypt(data)


def dec(key, data):
    return DES3.new(key, DES3.MODE_CBC, iv=ZERO_IV).decrypt(data)


def retail_mac(key, data):
    """ISO/IEC 9797-1 MAC algorithm 3 (retail MAC) with padding method 2.

    Single-DES CBC with K_a over every block, then the last block gets the
    D(K_b) / E(K_a) finalisation; doing the last block with 3DES EDE is the same.
    """
    data = pad(data)
    ka, kb = key[:8], key[8:16]
    chain = ZERO_IV
    if len(data) > 8:
        chain = DES.new(ka, DES.MODE_CBC, iv=ZERO_IV).encrypt(data[:-8])[-8:]
    last = bytes(a ^ b for a, b in zip(chain, data[-8:]))
    return DES3.new(ka + kb, DES3.MODE_ECB).encrypt(last)


def session_keys(k_ifd, k_icc):
    """KS_enc and KS_mac from K.IFD xor K.ICC (9303-11 section 4.3.3.1)."""
    return bac_keys_from_seed(bytes(a ^ b for a, b in zip(k_ifd, k_icc)))


def initial_ssc(rnd_icc, rnd_ifd):
    """SSC = 4 least significant bytes of RND.ICC || of RND.IFD."""
    return int.from_bytes(rnd_icc[-4:] + rnd_ifd[-4:], "big")
