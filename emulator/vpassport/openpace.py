"""ctypes binding to OpenPACE (Debian libeac3) and the few libcrypto calls around it.

Only what the virtual chip (and the test terminals) need. The struct layouts
below follow /usr/include/eac/eac.h of libeac-dev 1.1.2 (EAC_CTX, PACE_CTX,
CA_CTX, KA_CTX); the code reaches into them for four things OpenPACE has no
function for: the chip's mapping private key (PACE-CAM), the session keys
(logging, the test terminal's own secure messaging, the self-test's comparison
of Chip Authentication keys), replacing the protocol NID (IM and CAM, see
pace.py) and installing an ICAO Integrated Mapping generator.

Everything is loaded lazily; `available()` says whether libeac3 is installed.
"""
import contextlib
import ctypes
import os
from ctypes import (POINTER, Structure, c_char_p, c_int, c_size_t, c_ubyte, c_ulong,
                    c_void_p)

LIBEAC = "libeac.so.3"
LIBCRYPTO = "libcrypto.so.3"

# enum s_type (pace.h)
PACE_MRZ, PACE_CAN, PACE_PIN, PACE_PUK, PACE_RAW = 1, 2, 3, 4, 5
# EAC_CTX_set_encryption_ctx ids (eac.h)
EAC_ID_PACE, EAC_ID_CA = 0, 1
EAC_TR_VERSION_2_02 = 2
POINT_CONVERSION_UNCOMPRESSED = 4


class OpenPaceError(Exception):
    pass


class BUF_MEM(Structure):
    _fields_ = [("length", c_size_t), ("data", c_void_p), ("max", c_size_t),
                ("flags", c_ulong)]


class KA_CTX(Structure):
    _fields_ = [("md", c_void_p), ("md_engine", c_void_p), ("cmac_ctx", c_void_p),
                ("cipher", c_void_p), ("cipher_engine", c_void_p), ("iv", c_void_p),
                ("mac_keylen", c_int), ("enc_keylen", c_int),
                ("generate_key", c_void_p), ("compute_key", c_void_p),
                ("key", c_void_p), ("shared_secret", POINTER(BUF_MEM)),
                ("k_enc", POINTER(BUF_MEM)), ("k_mac", POINTER(BUF_MEM))]


class PACE_CTX(Structure):
    _fields_ = [("protocol", c_int), ("version", c_ubyte), ("id", c_int),
                ("map_generate_key", c_void_p), ("map_compute_key", c_void_p),
                ("static_key", c_void_p), ("ka_ctx", POINTER(KA_CTX)),
                ("nonce", POINTER(BUF_MEM)), ("my_eph_pubkey", POINTER(BUF_MEM))]


class CA_CTX(Structure):
    # version: "(currently unused)" in 1.1.2; OpenPACE implements version 2 only
    _fields_ = [("version", c_ubyte), ("protocol", c_int), ("id", c_int), ("flags", c_int),
                ("ka_ctx", POINTER(KA_CTX)), ("lookup_csca_cert", c_void_p)]


class EAC_CTX(Structure):
    _fields_ = [("tr_version", c_int), ("bn_ctx", c_void_p), ("md_ctx", c_void_p),
                ("cipher_ctx", c_void_p), ("pace_ctx", POINTER(PACE_CTX)),
                ("pace_ctxs", c_void_p), ("ri_ctx", c_void_p), ("ri_ctxs", c_void_p),
                ("ta_ctx", c_void_p), ("ca_ctx", POINTER(CA_CTX)), ("ca_ctxs", c_void_p),
                ("key_ctx", POINTER(KA_CTX)), ("ssc", c_void_p)]


# RAND_METHOD (openssl/rand.h), used by the self-test to choose the chip's nonce
RAND_BYTES_FN = ctypes.CFUNCTYPE(c_int, POINTER(c_ubyte), c_int)


class RAND_METHOD(Structure):
    _fields_ = [("seed", c_void_p), ("bytes", RAND_BYTES_FN), ("cleanup", c_void_p),
                ("add", c_void_p), ("pseudorand", RAND_BYTES_FN), ("status", c_void_p)]


_eac = None
_crypto = None

# (library, name, restype, argtypes)
_SIGNATURES = [
    ("eac", "EAC_init", None, []),
    ("eac", "EAC_CTX_new", POINTER(EAC_CTX), []),
    ("eac", "EAC_CTX_clear_free", None, [POINTER(EAC_CTX)]),
    ("eac", "EAC_CTX_init_pace", c_int, [POINTER(EAC_CTX), c_int, c_int]),
    ("eac", "EAC_CTX_init_ef_cardaccess", c_int, [c_char_p, c_size_t, POINTER(EAC_CTX)]),
    ("eac", "EAC_CTX_set_encryption_ctx", c_int, [POINTER(EAC_CTX), c_int]),
    ("eac", "EAC_OBJ_txt2nid", c_int, [c_char_p]),
    ("eac", "PACE_SEC_new", c_void_p, [c_char_p, c_size_t, c_int]),
    ("eac", "PACE_SEC_clear_free", None, [c_void_p]),
    ("eac", "PACE_STEP1_enc_nonce", POINTER(BUF_MEM), [POINTER(EAC_CTX), c_void_p]),
    ("eac", "PACE_STEP2_dec_nonce", c_int, [POINTER(EAC_CTX), c_void_p, POINTER(BUF_MEM)]),
    ("eac", "PACE_STEP3A_generate_mapping_data", POINTER(BUF_MEM), [POINTER(EAC_CTX)]),
    ("eac", "PACE_STEP3A_map_generator", c_int, [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "PACE_STEP3B_generate_ephemeral_key", POINTER(BUF_MEM), [POINTER(EAC_CTX)]),
    ("eac", "PACE_STEP3B_compute_shared_secret", c_int, [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "PACE_STEP3C_derive_keys", c_int, [POINTER(EAC_CTX)]),
    ("eac", "PACE_STEP3D_compute_authentication_token", POINTER(BUF_MEM),
     [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "PACE_STEP3D_verify_authentication_token", c_int,
     [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "EAC_encrypt", POINTER(BUF_MEM), [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "EAC_decrypt", POINTER(BUF_MEM), [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "EAC_authenticate", POINTER(BUF_MEM), [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "EAC_add_iso_pad", POINTER(BUF_MEM), [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "EAC_remove_iso_pad", POINTER(BUF_MEM), [POINTER(BUF_MEM)]),
    ("eac", "EAC_increment_ssc", c_int, [POINTER(EAC_CTX)]),
    ("eac", "EAC_reset_ssc", c_int, [POINTER(EAC_CTX)]),
    ("eac", "EAC_set_ssc", c_int, [POINTER(EAC_CTX), c_ulong]),
    ("eac", "BUF_MEM_create_init", POINTER(BUF_MEM), [c_char_p, c_size_t]),
    ("eac", "BUF_MEM_clear_free", None, [POINTER(BUF_MEM)]),
    # Terminal Authentication (eac/ta.h, eac/eac.h)
    ("eac", "EAC_CTX_init_ta", c_int, [POINTER(EAC_CTX), c_char_p, c_size_t, c_char_p, c_size_t]),
    ("eac", "TA_disable_checks", None, [POINTER(EAC_CTX)]),
    ("eac", "TA_STEP2_import_certificate", c_int, [POINTER(EAC_CTX), c_char_p, c_size_t]),
    ("eac", "TA_STEP4_set_nonce", c_int, [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "TA_STEP5_sign", POINTER(BUF_MEM),
     [POINTER(EAC_CTX), POINTER(BUF_MEM), POINTER(BUF_MEM), POINTER(BUF_MEM)]),
    ("eac", "TA_STEP6_verify", c_int,
     [POINTER(EAC_CTX), POINTER(BUF_MEM), POINTER(BUF_MEM), POINTER(BUF_MEM), POINTER(BUF_MEM)]),
    # Chip Authentication version 2 (eac/ca.h, eac/eac.h)
    ("eac", "EAC_CTX_init_ca", c_int, [POINTER(EAC_CTX), c_int, c_int]),
    ("eac", "CA_set_key", c_int, [POINTER(EAC_CTX), c_char_p, c_size_t, c_char_p, c_size_t]),
    ("eac", "CA_disable_passive_authentication", None, [POINTER(EAC_CTX)]),
    ("eac", "CA_get_pubkey", POINTER(BUF_MEM), [POINTER(EAC_CTX), c_char_p, c_size_t]),
    ("eac", "CA_STEP4_compute_shared_secret", c_int, [POINTER(EAC_CTX), POINTER(BUF_MEM)]),
    ("eac", "CA_STEP5_derive_keys", c_int,
     [POINTER(EAC_CTX), POINTER(BUF_MEM), POINTER(POINTER(BUF_MEM)), POINTER(POINTER(BUF_MEM))]),
    ("eac", "CA_STEP6_derive_keys", c_int, [POINTER(EAC_CTX), POINTER(BUF_MEM), POINTER(BUF_MEM)]),
    # not in the public headers, but exported: the self-test compares K_pi
    ("eac", "kdf_pi", POINTER(BUF_MEM), [c_void_p, c_void_p, POINTER(KA_CTX), c_void_p]),

    ("crypto", "OBJ_create", c_int, [c_char_p, c_char_p, c_char_p]),
    ("crypto", "OBJ_txt2nid", c_int, [c_char_p]),
    ("crypto", "ERR_get_error", c_ulong, []),
    ("crypto", "ERR_clear_error", None, []),
    ("crypto", "ERR_error_string_n", None, [c_ulong, c_char_p, c_size_t]),
    ("crypto", "BN_new", c_void_p, []),
    ("crypto", "BN_free", None, [c_void_p]),
    ("crypto", "BN_bin2bn", c_void_p, [c_char_p, c_int, c_void_p]),
    ("crypto", "BN_bn2bin", c_int, [c_void_p, c_char_p]),
    ("crypto", "BN_num_bits", c_int, [c_void_p]),
    ("crypto", "BN_dup", c_void_p, [c_void_p]),
    ("crypto", "EVP_PKEY_get1_EC_KEY", c_void_p, [c_void_p]),
    ("crypto", "EVP_PKEY_set1_EC_KEY", c_int, [c_void_p, c_void_p]),
    ("crypto", "EVP_PKEY_get1_DH", c_void_p, [c_void_p]),
    ("crypto", "EVP_PKEY_get_base_id", c_int, [c_void_p]),
    ("crypto", "EC_KEY_free", None, [c_void_p]),
    ("crypto", "EC_KEY_get0_group", c_void_p, [c_void_p]),
    ("crypto", "EC_KEY_get0_private_key", c_void_p, [c_void_p]),
    ("crypto", "EC_KEY_set_private_key", c_int, [c_void_p, c_void_p]),
    ("crypto", "EC_KEY_set_public_key", c_int, [c_void_p, c_void_p]),
    ("crypto", "EC_KEY_set_group", c_int, [c_void_p, c_void_p]),
    ("crypto", "EC_GROUP_dup", c_void_p, [c_void_p]),
    ("crypto", "EC_GROUP_free", None, [c_void_p]),
    ("crypto", "EC_GROUP_get_curve", c_int, [c_void_p, c_void_p, c_void_p, c_void_p, c_void_p]),
    ("crypto", "EC_GROUP_get_order", c_int, [c_void_p, c_void_p, c_void_p]),
    ("crypto", "EC_GROUP_get_cofactor", c_int, [c_void_p, c_void_p, c_void_p]),
    ("crypto", "EC_GROUP_get0_generator", c_void_p, [c_void_p]),
    ("crypto", "EC_GROUP_set_generator", c_int, [c_void_p, c_void_p, c_void_p, c_void_p]),
    ("crypto", "EC_POINT_new", c_void_p, [c_void_p]),
    ("crypto", "EC_POINT_free", None, [c_void_p]),
    ("crypto", "EC_POINT_oct2point", c_int, [c_void_p, c_void_p, c_char_p, c_size_t, c_void_p]),
    ("crypto", "EC_POINT_point2oct", c_size_t,
     [c_void_p, c_void_p, c_int, c_char_p, c_size_t, c_void_p]),
    ("crypto", "EC_POINT_mul", c_int, [c_void_p, c_void_p, c_void_p, c_void_p, c_void_p, c_void_p]),
    ("crypto", "DH_free", None, [c_void_p]),
    ("crypto", "DH_get0_pqg", None, [c_void_p, POINTER(c_void_p), POINTER(c_void_p),
                                     POINTER(c_void_p)]),
    ("crypto", "DH_set0_pqg", c_int, [c_void_p, c_void_p, c_void_p, c_void_p]),
    ("crypto", "DH_set0_key", c_int, [c_void_p, c_void_p, c_void_p]),
    ("crypto", "EVP_CIPHER_get_block_size", c_int, [c_void_p]),
    ("crypto", "RAND_set_rand_method", c_int, [c_void_p]),
    ("crypto", "RAND_OpenSSL", c_void_p, []),
]


class _Lib:
    pass


lib = _Lib()


def _load():
    global _eac, _crypto
    if _eac is not None:
        return
    eac = ctypes.CDLL(LIBEAC)
    crypto = ctypes.CDLL(LIBCRYPTO)
    for which, name, restype, argtypes in _SIGNATURES:
        f = getattr(eac if which == "eac" else crypto, name)
        f.restype, f.argtypes = restype, argtypes
        setattr(lib, name, f)
    lib.EAC_init()
    _eac, _crypto = eac, crypto


def available():
    """True when libeac3 (and libcrypto 3) can be loaded."""
    try:
        _load()
        return True
    except (OSError, AttributeError):
        return False


def nid(name):
    """OpenPACE/OpenSSL NID of an object given by short name or dotted OID."""
    _load()
    n = lib.EAC_OBJ_txt2nid(name.encode())
    if n <= 0:
        n = lib.OBJ_txt2nid(name.encode())
    return n


def register_oid(dotted, short_name):
    """NID for an OID that neither OpenSSL nor OpenPACE knows (PACE-CAM)."""
    _load()
    n = lib.OBJ_txt2nid(dotted.encode())
    if n <= 0:
        n = lib.OBJ_create(dotted.encode(), short_name.encode(), short_name.encode())
    if n <= 0:
        raise OpenPaceError("cannot register OID %s" % dotted)
    return n


def ssl_errors():
    out = []
    while True:
        e = lib.ERR_get_error()
        if not e:
            return "; ".join(out) or "no OpenSSL error queued"
        buf = ctypes.create_string_buffer(256)
        lib.ERR_error_string_n(e, buf, 256)
        out.append(buf.value.decode(errors="replace"))


# --- BUF_MEM / BIGNUM helpers ---------------------------------------------------
def buf(data):
    """A new BUF_MEM holding data (free it with free_buf)."""
    b = lib.BUF_MEM_create_init(bytes(data), len(data))
    if not b:
        raise OpenPaceError("BUF_MEM_create_init failed")
    return b


def read_buf(b):
    if not b:
        return None
    return ctypes.string_at(b.contents.data, b.contents.length)


def take_buf(b):
    """Bytes of a BUF_MEM returned by OpenPACE, which is then freed."""
    data = read_buf(b)
    if b:
        lib.BUF_MEM_clear_free(b)
    return data


def free_buf(b):
    if b:
        lib.BUF_MEM_clear_free(b)


def bn_to_int(bn):
    n = (lib.BN_num_bits(bn) + 7) // 8
    out = ctypes.create_string_buffer(max(n, 1))
    lib.BN_bn2bin(bn, out)
    return int.from_bytes(out.raw[:n], "big")


def bn_from_int(value, size=None):
    size = size or max(1, (value.bit_length() + 7) // 8)
    raw = value.to_bytes(size, "big")
    bn = lib.BN_bin2bn(raw, len(raw), None)
    if not bn:
        raise OpenPaceError("BN_bin2bn failed")
    return bn


@contextlib.contextmanager
def fixed_random(values):
    """Make OpenSSL's RAND_bytes return the given byte strings, in order
    (each request must match the next value's length). Self-test only: the
    chip's PACE nonce comes from a single RAND_bytes call in OpenPACE."""
    _load()
    queue = list(values)

    def take(ptr, num):
        if not queue or len(queue[0]) != num:
            data = os.urandom(num)          # not what the test planned for
        else:
            data = queue.pop(0)
        ctypes.memmove(ptr, data, num)
        return 1

    fn = RAND_BYTES_FN(take)
    method = RAND_METHOD(None, fn, None, None, fn, None)
    lib.RAND_set_rand_method(ctypes.byref(method))
    try:
        yield queue
    finally:
        lib.RAND_set_rand_method(lib.RAND_OpenSSL())


# --- domain parameters and keys inside an EAC context ---------------------------------
class EcParams:
    """Curve y^2 = x^3 + ax + b over GF(p), order n and cofactor of <G>."""

    def __init__(self, p, a, b, order, cofactor, gx, gy):
        self.p, self.a, self.b, self.order, self.cofactor = p, a, b, order, cofactor
        self.gx, self.gy = gx, gy
        self.size = (p.bit_length() + 7) // 8


class DhParams:
    def __init__(self, p, q, g):
        self.p, self.q, self.g = p, q, g
        self.size = (p.bit_length() + 7) // 8


def _point_bytes(group, point):
    n = lib.EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, None, 0, None)
    out = ctypes.create_string_buffer(n)
    lib.EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, out, n, None)
    return out.raw


def _ec_params(group):
    p, a, b, order, cof = (lib.BN_new() for _ in range(5))
    try:
        if not (lib.EC_GROUP_get_curve(group, p, a, b, None)
                and lib.EC_GROUP_get_order(group, order, None)
                and lib.EC_GROUP_get_cofactor(group, cof, None)):
            raise OpenPaceError("cannot read curve parameters: " + ssl_errors())
        gen = _point_bytes(group, lib.EC_GROUP_get0_generator(group))
        size = (len(gen) - 1) // 2
        return EcParams(bn_to_int(p), bn_to_int(a), bn_to_int(b), bn_to_int(order),
                        bn_to_int(cof), int.from_bytes(gen[1:1 + size], "big"),
                        int.from_bytes(gen[1 + size:], "big"))
    finally:
        for bn in (p, a, b, order, cof):
            lib.BN_free(bn)


def _dh_params(dh):
    p, q, g = c_void_p(), c_void_p(), c_void_p()
    lib.DH_get0_pqg(dh, ctypes.byref(p), ctypes.byref(q), ctypes.byref(g))
    return DhParams(bn_to_int(p), bn_to_int(q) if q.value else None, bn_to_int(g))


def is_ec(pkey):
    return lib.EVP_PKEY_get_base_id(pkey) == 408           # EVP_PKEY_EC = NID_X9_62_id_ecPublicKey


class _EacContext:
    """An OpenPACE EAC_CTX held in `self.ctx`, freed once, at the latest when collected."""

    def free(self):
        if self.ctx:
            lib.EAC_CTX_clear_free(self.ctx)
            self.ctx = None

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


class _SecureMessaging(_EacContext):
    """Secure messaging through OpenPACE's EAC_* calls on `self.ctx`, with whatever keys its
    encryption context holds (PACE's, or chip authentication's)."""

    def _data_call(self, fn, data):
        b = buf(data)
        try:
            out = fn(self.ctx, b)
            if not out:
                raise OpenPaceError("%s failed: %s" % (fn.__name__, ssl_errors()))
            return take_buf(out)
        finally:
            free_buf(b)

    def increment_ssc(self):
        if lib.EAC_increment_ssc(self.ctx) != 1:
            raise OpenPaceError("EAC_increment_ssc failed: " + ssl_errors())

    def pad(self, data):
        return self._data_call(lib.EAC_add_iso_pad, data)

    def encrypt(self, padded):
        return self._data_call(lib.EAC_encrypt, padded)

    def decrypt(self, crypt):
        return self._data_call(lib.EAC_decrypt, crypt)

    def mac(self, padded):
        """MAC over SSC || padded (EAC_authenticate prepends the SSC)."""
        return self._data_call(lib.EAC_authenticate, padded)

    def unpad(self, data):
        b = buf(data)
        try:
            out = lib.EAC_remove_iso_pad(b)
            if not out:
                raise ValueError("bad ISO 9797-1 padding")
            return take_buf(out)
        finally:
            free_buf(b)


class Pace(_SecureMessaging):
    """One PACE run inside an OpenPACE EAC context (chip or terminal side)."""

    def __init__(self, protocol_nid, parameter_id, token_nid=None):
        _load()
        self.secret = None
        self.ctx = lib.EAC_CTX_new()
        if not self.ctx:
            raise OpenPaceError("EAC_CTX_new failed")
        if not lib.EAC_CTX_init_pace(self.ctx, protocol_nid, parameter_id):
            self.free()
            raise OpenPaceError("EAC_CTX_init_pace(%d, %d) failed: %s" %
                                (protocol_nid, parameter_id, ssl_errors()))
        if token_nid is not None:
            # The OID in the authentication tokens' public key data objects is
            # the only thing PACE_CTX.protocol still decides after the init.
            self.pace.protocol = token_nid

    @property
    def pace(self):
        return self.ctx.contents.pace_ctx.contents

    @property
    def ka(self):
        return self.pace.ka_ctx.contents

    def free(self):
        if self.secret:
            lib.PACE_SEC_clear_free(self.secret)
            self.secret = None
        super().free()

    def set_password(self, data, kind):
        """kind PACE_RAW for an already encoded MRZ (SHA-1 of MRZ_information),
        PACE_CAN for the CAN digits."""
        self.secret = lib.PACE_SEC_new(bytes(data), len(data), kind)
        if not self.secret:
            raise OpenPaceError("PACE_SEC_new failed")

    def k_pi(self):
        return take_buf(lib.kdf_pi(self.secret, None, self.pace.ka_ctx,
                                   self.ctx.contents.md_ctx))

    # protocol steps: each returns bytes, or raises OpenPaceError
    def _check(self, ok, what):
        if ok != 1:
            raise OpenPaceError("%s failed: %s" % (what, ssl_errors()))

    def _call_buf(self, fn, *args):
        b = fn(self.ctx, *args)
        if not b:
            raise OpenPaceError("%s failed: %s" % (fn.__name__, ssl_errors()))
        return take_buf(b)

    def _with_buf(self, fn, data):
        b = buf(data)
        try:
            return fn(self.ctx, b)
        finally:
            free_buf(b)

    def encrypted_nonce(self):                   # chip, step 1
        return self._call_buf(lib.PACE_STEP1_enc_nonce, self.secret)

    def decrypt_nonce(self, z):                  # terminal, step 1
        b = buf(z)
        try:
            self._check(lib.PACE_STEP2_dec_nonce(self.ctx, self.secret, b), "PACE_STEP2_dec_nonce")
        finally:
            free_buf(b)

    @property
    def nonce(self):
        return read_buf(self.pace.nonce)

    def mapping_data(self):                      # GM: own mapping public key
        return self._call_buf(lib.PACE_STEP3A_generate_mapping_data)

    def map_generator(self, other_mapping_data):
        self._check(self._with_buf(lib.PACE_STEP3A_map_generator, other_mapping_data),
                    "PACE_STEP3A_map_generator")

    def ephemeral_key(self):
        return self._call_buf(lib.PACE_STEP3B_generate_ephemeral_key)

    def shared_secret(self, other_public_key):
        self._check(self._with_buf(lib.PACE_STEP3B_compute_shared_secret, other_public_key),
                    "PACE_STEP3B_compute_shared_secret")
        self._pad_dh_shared_secret()
        self._check(lib.PACE_STEP3C_derive_keys(self.ctx), "PACE_STEP3C_derive_keys")

    def _pad_dh_shared_secret(self):
        """OpenPACE takes the DH secret from DH_compute_key, which drops leading zero bytes;
        the key derivation needs K as an octet string as long as p (as JCE/BouncyCastle
        terminals such as JMRTD produce it), so one exchange in 256 would otherwise fail."""
        if is_ec(self.ka.key):
            return
        size = self.ephemeral_params().size
        secret = read_buf(self.ka.shared_secret)
        if secret is not None and len(secret) < size:
            free_buf(self.ka.shared_secret)
            self.ka.shared_secret = buf(bytes(size - len(secret)) + secret)

    def token(self, other_public_key):
        b = buf(other_public_key)
        try:
            return self._call_buf(lib.PACE_STEP3D_compute_authentication_token, b)
        finally:
            free_buf(b)

    def verify_token(self, token):
        """1 = valid, 0 = wrong, -1 = error."""
        return self._with_buf(lib.PACE_STEP3D_verify_authentication_token, token)

    def set_session_keys(self, k_enc, k_mac):
        """Self-test: secure messaging with given keys instead of derived ones."""
        ka = self.ka
        free_buf(ka.k_enc)
        free_buf(ka.k_mac)
        ka.k_enc, ka.k_mac = buf(k_enc), buf(k_mac)

    def block_size(self):
        return lib.EVP_CIPHER_get_block_size(self.ka.cipher)

    def session_keys(self):
        return read_buf(self.ka.k_enc), read_buf(self.ka.k_mac)

    def start_secure_messaging(self):
        self._check(lib.EAC_CTX_set_encryption_ctx(self.ctx, EAC_ID_PACE),
                    "EAC_CTX_set_encryption_ctx")

    # --- domain parameters and raw keys (mapping, CAM, self-test) ------------------
    def static_params(self):
        pkey = self.pace.static_key
        if is_ec(pkey):
            ec = lib.EVP_PKEY_get1_EC_KEY(pkey)
            try:
                return _ec_params(lib.EC_KEY_get0_group(ec))
            finally:
                lib.EC_KEY_free(ec)
        dh = lib.EVP_PKEY_get1_DH(pkey)
        try:
            return _dh_params(dh)
        finally:
            lib.DH_free(dh)

    def ephemeral_params(self):
        """Domain parameters of the key agreement (after the mapping)."""
        pkey = self.ka.key
        if is_ec(pkey):
            ec = lib.EVP_PKEY_get1_EC_KEY(pkey)
            try:
                return _ec_params(lib.EC_KEY_get0_group(ec))
            finally:
                lib.EC_KEY_free(ec)
        dh = lib.EVP_PKEY_get1_DH(pkey)
        try:
            return _dh_params(dh)
        finally:
            lib.DH_free(dh)

    def mapping_private_key(self):
        """SK_Map of this side (after mapping_data()), for PACE-CAM."""
        ec = lib.EVP_PKEY_get1_EC_KEY(self.pace.static_key)
        try:
            bn = lib.EC_KEY_get0_private_key(ec)
            if not bn:
                raise OpenPaceError("no mapping private key")
            return bn_to_int(bn)
        finally:
            lib.EC_KEY_free(ec)

    def install_generator(self, generator):
        """Use `generator` (EC: (x, y); DH: an int) as the ephemeral domain
        parameters' generator, as the mapping step would (static parameters
        otherwise unchanged)."""
        pkey = self.pace.static_key
        if is_ec(pkey):
            static = lib.EVP_PKEY_get1_EC_KEY(pkey)
            eph = group = point = None
            order, cof = lib.BN_new(), lib.BN_new()
            try:
                group = lib.EC_GROUP_dup(lib.EC_KEY_get0_group(static))
                size = (_ec_params(group).p.bit_length() + 7) // 8
                raw = b"\x04" + generator[0].to_bytes(size, "big") + \
                    generator[1].to_bytes(size, "big")
                point = lib.EC_POINT_new(group)
                ok = (lib.EC_POINT_oct2point(group, point, raw, len(raw), None)
                      and lib.EC_GROUP_get_order(group, order, None)
                      and lib.EC_GROUP_get_cofactor(group, cof, None)
                      and lib.EC_GROUP_set_generator(group, point, order, cof))
                if not ok:
                    raise OpenPaceError("mapped generator rejected: " + ssl_errors())
                # a copy of the static key moved onto the new group, as
                # OpenPACE's own generic mapping does
                eph = _ec_key_dup(static)
                if not (lib.EC_KEY_set_group(eph, group) and
                        lib.EVP_PKEY_set1_EC_KEY(self.ka.key, eph)):
                    raise OpenPaceError("cannot install the mapped generator: " + ssl_errors())
            finally:
                for f, o in ((lib.EC_POINT_free, point), (lib.EC_GROUP_free, group),
                             (lib.EC_KEY_free, eph), (lib.EC_KEY_free, static),
                             (lib.BN_free, order), (lib.BN_free, cof)):
                    if o:
                        f(o)
        else:
            params = self.static_params()
            eph = _dh_new_params(params.p, params.q, generator)
            try:
                if not _evp_set1_dh(self.ka.key, eph):
                    raise OpenPaceError("cannot install the mapped generator: " + ssl_errors())
            finally:
                lib.DH_free(eph)

    def force_key(self, which, private):
        """Self-test: replace a freshly generated key pair by a known one.
        which = "mapping" (after mapping_data()) or "ephemeral" (after
        ephemeral_key()); returns the new encoded public key."""
        pkey = self.pace.static_key if which == "mapping" else self.ka.key
        if is_ec(pkey):
            ec = lib.EVP_PKEY_get1_EC_KEY(pkey)
            group = lib.EC_KEY_get0_group(ec)
            bn = bn_from_int(private)
            point = lib.EC_POINT_new(group)
            try:
                if not (lib.EC_POINT_mul(group, point, bn, None, None, None)
                        and lib.EC_KEY_set_private_key(ec, bn)
                        and lib.EC_KEY_set_public_key(ec, point)):
                    raise OpenPaceError("cannot set key: " + ssl_errors())
                public = _point_bytes(group, point)
            finally:
                lib.EC_POINT_free(point)
                lib.BN_free(bn)
                lib.EC_KEY_free(ec)
        else:
            dh = lib.EVP_PKEY_get1_DH(pkey)
            try:
                params = _dh_params(dh)
                y = pow(params.g, private, params.p)
                public = y.to_bytes(params.size, "big")
                if not lib.DH_set0_key(dh, bn_from_int(y), bn_from_int(private)):
                    raise OpenPaceError("cannot set key: " + ssl_errors())
            finally:
                lib.DH_free(dh)
        if which == "ephemeral":
            free_buf(self.pace.my_eph_pubkey)
            self.pace.my_eph_pubkey = buf(public)
        return public

    # --- secure messaging with the PACE keys (EAC_ID_PACE context) --------------------
    def set_ssc(self, value):
        if value < 1 << 63:
            self._check(lib.EAC_set_ssc(self.ctx, value), "EAC_set_ssc")
        else:                                     # e.g. -1 = all ones (PACE-CAM IV)
            raw = value.to_bytes(16, "big")
            if not lib.BN_bin2bn(raw, len(raw), self.ctx.contents.ssc):
                raise OpenPaceError("BN_bin2bn failed")




def _ec_key_dup(ec):
    f = _crypto.EC_KEY_dup
    f.restype, f.argtypes = c_void_p, [c_void_p]
    out = f(ec)
    if not out:
        raise OpenPaceError("EC_KEY_dup failed")
    return out


def _dh_new_params(p, q, g):
    new = _crypto.DH_new
    new.restype, new.argtypes = c_void_p, []
    dh = new()
    if not dh or not lib.DH_set0_pqg(dh, bn_from_int(p), bn_from_int(q) if q else None,
                                     bn_from_int(g)):
        raise OpenPaceError("DH parameters: " + ssl_errors())
    return dh


def _evp_set1_dh(pkey, dh):
    f = _crypto.EVP_PKEY_set1_DH
    f.restype, f.argtypes = c_int, [c_void_p, c_void_p]
    return f(pkey, dh)


def ec_multiply(params_source, scalar, point_bytes):
    """scalar * point on the static curve of a Pace object (PACE-CAM check)."""
    pkey = params_source.pace.static_key
    ec = lib.EVP_PKEY_get1_EC_KEY(pkey)
    group = lib.EC_KEY_get0_group(ec)
    p, r = lib.EC_POINT_new(group), lib.EC_POINT_new(group)
    bn = bn_from_int(scalar)
    try:
        if not (lib.EC_POINT_oct2point(group, p, bytes(point_bytes), len(point_bytes), None)
                and lib.EC_POINT_mul(group, r, None, p, bn, None)):
            raise OpenPaceError("EC multiplication failed: " + ssl_errors())
        return _point_bytes(group, r)
    finally:
        lib.BN_free(bn)
        lib.EC_POINT_free(p)
        lib.EC_POINT_free(r)
        lib.EC_KEY_free(ec)


# --- Terminal Authentication (TR-03110-3 version 1 as eMRTDs use it) ------------------------
class TaContext(_EacContext):
    """An OpenPACE EAC context for Terminal Authentication.

    Chip side: TaContext(trust_point) then import_certificate() for each certificate of a chain
    (OpenPACE checks CAR = CHR of the previous one and the signature with its key; its own date check
    is switched off with TA_disable_checks, the chip checks dates itself), then verify() of the
    terminal's signature with the key of the last certificate.
    Terminal side: TaContext(is_certificate, private_key=PKCS#8 DER) then sign(); OpenPACE takes the
    signature scheme from the certificate's public key OID.
    """

    def __init__(self, certificate, private_key=None):
        _load()
        self.ctx = lib.EAC_CTX_new()
        if not self.ctx:
            raise OpenPaceError("EAC_CTX_new failed")
        key = bytes(private_key) if private_key else None
        ok = lib.EAC_CTX_init_ta(self.ctx, key, len(key) if key else 0, bytes(certificate),
                                 len(certificate))
        if ok != 1:
            error = ssl_errors()
            self.free()
            raise OpenPaceError("EAC_CTX_init_ta failed: " + error)
        lib.TA_disable_checks(self.ctx)

    def import_certificate(self, certificate):
        """True when the certificate (complete 7F21 TLV) verifies with the current key."""
        ok = lib.TA_STEP2_import_certificate(self.ctx, bytes(certificate), len(certificate)) == 1
        if not ok:
            lib.ERR_clear_error()
        return ok

    def set_nonce(self, nonce):
        b = buf(nonce)
        try:
            if lib.TA_STEP4_set_nonce(self.ctx, b) != 1:
                raise OpenPaceError("TA_STEP4_set_nonce failed: " + ssl_errors())
        finally:
            free_buf(b)

    def sign(self, nonce, comp_pcd_key, id_picc):
        """Terminal: signature over ID_PICC || r_PICC || Comp(~PK_PCD) (TA_STEP5_sign)."""
        self.set_nonce(nonce)
        a, b = buf(comp_pcd_key), buf(id_picc)
        try:
            out = lib.TA_STEP5_sign(self.ctx, a, b, None)
            if not out:
                raise OpenPaceError("TA_STEP5_sign failed: " + ssl_errors())
            return take_buf(out)
        finally:
            free_buf(a)
            free_buf(b)

    def verify(self, nonce, comp_pcd_key, id_picc, signature):
        """Chip: 1 when the signature verifies (TA_STEP6_verify), 0 when not, -1 on an error."""
        self.set_nonce(nonce)
        bufs = [buf(comp_pcd_key), buf(id_picc), buf(signature or b"\x00")]
        try:
            r = lib.TA_STEP6_verify(self.ctx, bufs[0], bufs[1], None, bufs[2])
            if r != 1:
                lib.ERR_clear_error()
            return r
        finally:
            for b in bufs:
                free_buf(b)


# --- Chip Authentication version 2 (TR-03110-2 3.4, -3 A.2.3/A.2.4) ------------------------
class CaContext(_SecureMessaging):
    """An OpenPACE EAC context for Chip Authentication (the self-test's independent peer).

    OpenPACE implements version 2 only (CA_CTX.version is unused): CA_STEP5 always makes an
    8-byte nonce and an authentication token. The context's TR version (EAC_TR_VERSION_2_02, set
    by EAC_CTX_new) makes the token's public key data object 7F49 {06 OID, 86 point}; 2.01 would
    put the domain parameters in it too.

    Chip: CaContext(protocol, curve, chip private, chip public), chip_derive(~PK_PCD) -> (nonce,
    token). Terminal: CaContext(protocol, curve, ephemeral private, ~PK_PCD),
    terminal_derive(chip public, nonce, token) -> 1 (the token verifies), 0 (it does not), -1.
    Private keys are raw big-endian scalars, public keys encoded points (04 || x || y).
    session_keys() and the secure messaging helpers work on the keys of the last derivation."""

    def __init__(self, protocol_nid, parameter_id, private, public):
        _load()
        self.ctx = lib.EAC_CTX_new()
        if not self.ctx:
            raise OpenPaceError("EAC_CTX_new failed")
        if lib.EAC_CTX_init_ca(self.ctx, protocol_nid, parameter_id) != 1:
            error = ssl_errors()
            self.free()
            raise OpenPaceError("EAC_CTX_init_ca(%d, %d) failed: %s" % (protocol_nid, parameter_id, error))
        private, public = bytes(private), bytes(public)
        if lib.CA_set_key(self.ctx, private, len(private), public, len(public)) != 1:
            error = ssl_errors()
            self.free()
            raise OpenPaceError("CA_set_key failed: " + error)

    @property
    def ka(self):
        return self.ctx.contents.ca_ctx.contents.ka_ctx.contents

    @property
    def tr_version(self):
        return self.ctx.contents.tr_version

    def shared_secret(self, other_public_key):
        """CA_STEP4: K with the other side's public key (chip: ~PK_PCD; terminal: PK_PICC)."""
        b = buf(other_public_key)
        try:
            if lib.CA_STEP4_compute_shared_secret(self.ctx, b) != 1:
                raise OpenPaceError("CA_STEP4_compute_shared_secret failed: " + ssl_errors())
        finally:
            free_buf(b)
        return read_buf(self.ka.shared_secret)

    def chip_derive(self, terminal_public_key):
        """Chip: CA_STEP4 and CA_STEP5; (r_PICC, T_PICC), KS_enc/KS_mac in the context."""
        self.shared_secret(terminal_public_key)
        b = buf(terminal_public_key)
        nonce, token = POINTER(BUF_MEM)(), POINTER(BUF_MEM)()
        try:
            if lib.CA_STEP5_derive_keys(self.ctx, b, ctypes.byref(nonce), ctypes.byref(token)) != 1:
                raise OpenPaceError("CA_STEP5_derive_keys failed: " + ssl_errors())
        finally:
            free_buf(b)
        return take_buf(nonce), take_buf(token)

    def terminal_derive(self, chip_public_key, nonce, token):
        """Terminal: CA_STEP4 with PK_PICC, then CA_STEP6 (keys from r_PICC, T_PICC checked)."""
        self.shared_secret(chip_public_key)
        n, t = buf(nonce), buf(token)
        try:
            r = lib.CA_STEP6_derive_keys(self.ctx, n, t)
            if r != 1:
                lib.ERR_clear_error()
            return r
        finally:
            free_buf(n)
            free_buf(t)

    def start_secure_messaging(self):
        """EAC_CTX_set_encryption_ctx(EAC_ID_CA): key_ctx = the CA keys, SSC 0."""
        if lib.EAC_CTX_set_encryption_ctx(self.ctx, EAC_ID_CA) != 1:
            raise OpenPaceError("EAC_CTX_set_encryption_ctx(EAC_ID_CA) failed: " + ssl_errors())

    def session_keys(self):
        """(KS_enc, KS_mac) of the secure messaging context (key_ctx) after start_secure_messaging()."""
        key = self.ctx.contents.key_ctx.contents
        return read_buf(key.k_enc), read_buf(key.k_mac)


def ca_public_key(card_security, protocol_nid, parameter_id):
    """PK_PICC of EF.CardSecurity as OpenPACE reads it (CA_get_pubkey; its passive authentication
    is switched off: the self-test's signer is not one of OpenPACE's CSCAs)."""
    _load()
    ctx = lib.EAC_CTX_new()
    try:
        if lib.EAC_CTX_init_ca(ctx, protocol_nid, parameter_id) != 1:
            raise OpenPaceError("EAC_CTX_init_ca failed: " + ssl_errors())
        lib.CA_disable_passive_authentication(ctx)
        data = bytes(card_security)
        out = lib.CA_get_pubkey(ctx, data, len(data))
        if not out:
            raise OpenPaceError("CA_get_pubkey failed: " + ssl_errors())
        return take_buf(out)
    finally:
        lib.EAC_CTX_clear_free(ctx)
