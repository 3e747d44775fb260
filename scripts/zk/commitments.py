#!/usr/bin/env python3
"""The Poseidon2 values that chain zkPassport's circuits (zkpassport/circuits v0.17.0 = 41fd4d67).

Reference implementation, written from the Noir sources (src/noir/lib/commitment/*, utils) and
checked against the values zkPassport publishes in its tests. See README.md for the recipe and the
file/commit each fact comes from. Run this file to execute the self-tests.

Chain, for a `compare_age` proof:

    private_nullifier = H(be31(dg1|95) ++ be31(eContent|700) ++ be31(sod_signature))
    comm_out(ID data) = H(salt, be31(country), be31(signedAttrs|256), len(signedAttrs),
                          be31(dg1|95), be31(eContent|700), private_nullifier)
                        = comm_in of the integrity circuit
    comm_out(integrity) = H(H(s1, be31(dg1|95)), H(s2, be31(expiry YYMMDD)),
                            H(s3, dg2_norm), H(s3, dg2_hash_type), H(s4, private_nullifier))
                        = comm_in of compare_age (and of every disclosure circuit)
    dg2_norm          = H(le31(dg2_hash))
    nullifier         = H(private_nullifier, service_scope, service_subscope[, nullifier_secret])

H = Noir Poseidon2::hash over all the listed fields (message_size = count), be31/le31 = the byte
packings below, x|N = x right-padded with zeros to N bytes.
"""
import hashlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from poseidon2 import P, hash_fields  # noqa: E402

DG1_LENGTH = 95          # utils/src/constants.nr
ECONTENT_LENGTH = 700
SIGNED_ATTRS_LENGTH = 256
TBS_MAX_SIZES = (700, 1000, 1200, 1600)

# utils/src/constants.nr: DG2 hash type identifiers, keyed by digest length
HASH_TYPE_BY_LENGTH = {20: 1, 28: 2, 32: 3, 48: 4, 64: 5}   # SHA1, SHA224, SHA256, SHA384, SHA512
PROOF_TYPE_AGE = 1
# nullifier types (utils/src/constants.nr)
NON_SALTED_NULLIFIER, SALTED_NULLIFIER, NON_SALTED_MOCK_NULLIFIER, SALTED_MOCK_NULLIFIER = 0, 1, 2, 3


# ---------------------------------------------------------------------------------------------
# Byte packing (utils/src/lib.nr)

def pack_be(data, chunk=31):
    """pack_be_bytes_into_fields::<N, ceil(N/31), 31>: the whole byte string read as one big-endian
    integer and cut into 31-byte limbs, least significant limb first. So the *last* 31 bytes are
    field 0, and the first field read (the short one when N % 31 != 0) is the last field."""
    data = bytes(data)
    n = (len(data) + chunk - 1) // chunk
    value = int.from_bytes(data, "big")
    mask = (1 << (8 * chunk)) - 1
    return [(value >> (8 * chunk * i)) & mask for i in range(n)]


def pack_le(data, chunk=31):
    """pack_le_bytes_into_fields::<31, N>: consecutive 31-byte chunks from the start, each chunk
    read little-endian; field i holds bytes [31 i, 31 i + 31)."""
    data = bytes(data)
    return [int.from_bytes(data[i:i + chunk], "little") for i in range(0, len(data), chunk)]


def pad(data, size):
    data = bytes(data)
    if len(data) > size:
        raise ValueError(f"{len(data)} bytes do not fit in {size}")
    return data + bytes(size - len(data))


def poseidon2_hash_packed(data, length=None):
    """utils::poseidon2_hash_packed: Poseidon2 over le31 packing, message_size = ceil(len / 31)."""
    fields = pack_le(data)
    n = (len(data) if length is None else length)
    return hash_fields(fields, (n + 30) // 31)


# ---------------------------------------------------------------------------------------------
# DG1 / MRZ helpers (utils/src/lib.nr)

def is_id_card(dg1):
    dg1 = pad(dg1, DG1_LENGTH)
    return dg1[93] != 0 and dg1[94] != 0


def expiry_date_from_dg1(dg1):
    """YYMMDD bytes: MRZ (= DG1 from offset 5) index 65 for a TD3 passport, 38 for a TD1 card."""
    dg1 = pad(dg1, DG1_LENGTH)
    mrz = dg1[5:]
    start = 38 if is_id_card(dg1) else 65
    return mrz[start:start + 6]


def issuing_country_from_dg1(dg1):
    """MRZ index 2..5 for both layouts; Germany's 'D<<' becomes 'DEU'."""
    dg1 = pad(dg1, DG1_LENGTH)
    country = dg1[5 + 2:5 + 5]
    return b"DEU" if country == b"D<<" else country


# ---------------------------------------------------------------------------------------------
# SaltedValue<T>::get_hash (utils/src/types.nr)

def salted_hash(salt, value):
    """H(salt, value) for Field/u32 values; H(salt, be31(value)...) for byte arrays.

    The circuit asserts salt != 0 and value != 0 (non-zero array) when it hashes a clear value."""
    if salt % P == 0:
        raise ValueError("salt must be non-zero")
    if isinstance(value, (bytes, bytearray, list, tuple)):
        data = bytes(value)
        if not any(data):
            raise ValueError("value must not be all zeros")
        return hash_fields([salt] + pack_be(data))
    if value % P == 0:
        raise ValueError("value must be non-zero")
    return hash_fields([salt, value])


# ---------------------------------------------------------------------------------------------
# commitment/common/src/lib.nr

def normalize_dg2_hash(dg2_hash):
    """normalize_dg2_hash: H(le31(dg2_hash)), message_size = ceil(len / 31)."""
    return poseidon2_hash_packed(bytes(dg2_hash))


def dg2_hash_type(dg2_hash):
    return HASH_TYPE_BY_LENGTH[len(dg2_hash)]


def private_nullifier(dg1, e_content, sod_signature):
    """calculate_private_nullifier(dg1, e_content, sod_sig): computed in the ID-data circuit.

    dg1 padded to 95 bytes, eContent padded to 700 bytes, the signature as the circuit takes it
    (RSA: the raw signature, as long as the modulus; ECDSA: r || s, each left-padded to the curve
    size, s normalised to the low half, see ecdsa_signature_to_rs)."""
    fields = pack_be(pad(dg1, DG1_LENGTH)) + pack_be(pad(e_content, ECONTENT_LENGTH)) \
        + pack_be(bytes(sod_signature))
    return hash_fields(fields)


def hash_salt_country_tbs(salt, country, tbs, tbs_max_size=None):
    """DSC circuit comm_out = ID-data circuit comm_in: H(salt, be31(country), be31(tbs|max))."""
    tbs = bytes(tbs)
    if tbs_max_size is None:
        tbs_max_size = next(s for s in TBS_MAX_SIZES if len(tbs) <= s)
    return hash_fields([salt] + pack_be(country) + pack_be(pad(tbs, tbs_max_size)))


def hash_salt_country_signed_attr_dg1_e_content_private_nullifier(
        salt, country, signed_attrs, dg1, e_content, priv_nullifier, signed_attrs_size=None):
    """ID-data circuit comm_out = integrity circuit comm_in (1 + 1 + 9 + 1 + 4 + 23 + 1 = 40 fields)."""
    signed_attrs = bytes(signed_attrs)
    size = len(signed_attrs) if signed_attrs_size is None else signed_attrs_size
    fields = [salt] + pack_be(country) + pack_be(pad(signed_attrs, SIGNED_ATTRS_LENGTH)) + [size] \
        + pack_be(pad(dg1, DG1_LENGTH)) + pack_be(pad(e_content, ECONTENT_LENGTH)) + [priv_nullifier]
    return hash_fields(fields)


def salted_disclosure_hashes(salts, dg1, expiry_yymmdd, dg2_hash_normalized, dg2_type, priv_nullifier):
    """The five SaltedValue hashes (dg1, expiry, dg2 hash, dg2 hash type, private nullifier).

    salts: dict with dg1_salt, expiry_date_salt, dg2_hash_salt (used for both DG2 values),
    private_nullifier_salt."""
    if isinstance(expiry_yymmdd, str):
        expiry_yymmdd = expiry_yymmdd.encode("ascii")
    return [
        salted_hash(salts["dg1_salt"], pad(dg1, DG1_LENGTH)),
        salted_hash(salts["expiry_date_salt"], bytes(expiry_yymmdd)),
        salted_hash(salts["dg2_hash_salt"], dg2_hash_normalized),
        salted_hash(salts["dg2_hash_salt"], dg2_type),
        salted_hash(salts["private_nullifier_salt"], priv_nullifier),
    ]


def hash_salt_dg1_dg2_hash_private_nullifier(salts, dg1, expiry_yymmdd, dg2_hash_normalized,
                                             dg2_type, priv_nullifier):
    """Integrity circuit comm_out = comm_in of compare_age: H of the five salted hashes."""
    return hash_fields(salted_disclosure_hashes(salts, dg1, expiry_yymmdd, dg2_hash_normalized,
                                                dg2_type, priv_nullifier))


def scoped_nullifier(priv_nullifier, service_scope, service_subscope, nullifier_secret=0):
    """calculate_scoped_nullifier: 0 if the private nullifier is hidden (value 0), else
    H(pn, scope, subscope) or, with a non-zero secret, H(pn, scope, subscope, secret)."""
    if priv_nullifier == 0:
        return 0
    if nullifier_secret:
        return hash_fields([priv_nullifier, service_scope, service_subscope, nullifier_secret])
    return hash_fields([priv_nullifier, service_scope, service_subscope])


def nullifier_type(dg1, nullifier_secret=0):
    mock = issuing_country_from_dg1(dg1) == b"ZKR"
    if nullifier_secret:
        return SALTED_MOCK_NULLIFIER if mock else SALTED_NULLIFIER
    return NON_SALTED_MOCK_NULLIFIER if mock else NON_SALTED_NULLIFIER


def scope_hash(value):
    """zkpassport-utils getScopeHash: the first 31 bytes of SHA-256(utf-8 value), big-endian; 0 for
    an empty value. service_scope = scope_hash(domain), service_subscope = scope_hash(purpose)."""
    if not value:
        return 0
    return int.from_bytes(hashlib.sha256(value.encode("utf-8")).digest()[:31], "big")


def age_param_commitment(min_age, max_age):
    """compare_age's calculate_param_commitment: H(PROOF_TYPE_AGE = 1, 2, min, max)."""
    return hash_fields([PROOF_TYPE_AGE, 2, min_age, max_age])


def age_param_commitment_evm(min_age, max_age):
    """compare_age_evm: first 31 bytes (big-endian) of SHA-256([1, 0x00, 0x02, min, max])."""
    digest = hashlib.sha256(bytes([PROOF_TYPE_AGE, 0, 2, min_age, max_age])).digest()
    return int.from_bytes(digest[:31], "big")


# ---------------------------------------------------------------------------------------------
# compare_age (bin/compare/age/standard)

def compare_age_public_inputs(comm_in, current_date, service_scope, service_subscope,
                              min_age, max_age, priv_nullifier, dg1, nullifier_secret=0):
    """Public inputs of a compare_age proof in order: the `pub` parameters in declaration order,
    then the returned (param_commitment, nullifier_type, nullifier)."""
    return [comm_in, current_date, service_scope, service_subscope,
            age_param_commitment(min_age, max_age), nullifier_type(dg1, nullifier_secret),
            scoped_nullifier(priv_nullifier, service_scope, service_subscope, nullifier_secret)]


def compare_age_inputs(dg1, dg2_hash, priv_nullifier, salts, current_date, min_age, max_age=0,
                       nullifier_secret=0, service_scope=0, service_subscope=0):
    """The 121 witness fields of compare_age in ABI order (what CircuitInputs.compareAge builds),
    with the real commitment. Returns (fields, comm_in)."""
    dg1 = pad(dg1, DG1_LENGTH)
    expiry = expiry_date_from_dg1(dg1)
    dg2_norm = normalize_dg2_hash(dg2_hash)
    dg2_type = dg2_hash_type(dg2_hash)
    comm_in = hash_salt_dg1_dg2_hash_private_nullifier(salts, dg1, expiry, dg2_norm, dg2_type,
                                                       priv_nullifier)
    fields = [comm_in, current_date]
    fields += [salts["private_nullifier_salt"], priv_nullifier, 0]      # SaltedValue: salt, value, hash
    fields += [salts["expiry_date_salt"], *expiry, 0]
    fields += [salts["dg1_salt"], *dg1, 0]
    fields += [salts["dg2_hash_salt"], dg2_norm, 0]
    fields += [salts["dg2_hash_salt"], dg2_type, 0]
    fields += [min_age, max_age, nullifier_secret, service_scope, service_subscope]
    assert len(fields) == 121
    return fields, comm_in


# ---------------------------------------------------------------------------------------------
# Minimal DER reader, enough to take an EF.SOD apart for the tests

def der_read(buf, pos=0):
    """Returns (tag, header_len, content_start, end) of the TLV at pos."""
    tag = buf[pos]
    length = buf[pos + 1]
    hdr = 2
    if length & 0x80:
        k = length & 0x7F
        length = int.from_bytes(buf[pos + 2:pos + 2 + k], "big")
        hdr += k
    return tag, hdr, pos + hdr, pos + hdr + length


def der_children(buf, start, end):
    out, pos = [], start
    while pos < end:
        tag, hdr, cs, e = der_read(buf, pos)
        out.append((tag, pos, cs, e))
        pos = e
    return out


def _oid(der_content):
    first = der_content[0]
    arcs, v = [first // 40, first % 40], 0
    for b in der_content[1:]:
        v = (v << 7) | (b & 0x7F)
        if not b & 0x80:
            arcs.append(v)
            v = 0
    return ".".join(map(str, arcs))


def parse_sod(sod):
    """EF.SOD (optionally with its 0x77 wrapper) -> dict of the bytes the circuits take."""
    sod = bytes(sod)
    if sod[0] == 0x77:
        _, _, sod_cs, _ = der_read(sod, 0)
        sod = sod[sod_cs:]
    _, _, cs, e = der_read(sod, 0)                              # ContentInfo
    explicit = der_children(sod, cs, e)[1]                    # [0] EXPLICIT content
    _, _, cs, e = der_read(sod, explicit[2])                    # SignedData
    kids = der_children(sod, cs, e)
    encap = kids[2]
    certs = next(k for k in kids if k[0] == 0xA0)
    signer_infos = kids[-1]
    # eContent: encapContentInfo [0] EXPLICIT OCTET STRING
    e_oid, e_exp = der_children(sod, encap[2], encap[3])[:2]
    octet = der_children(sod, e_exp[2], e_exp[3])[0]
    e_content = sod[octet[2]:octet[3]]
    # DSC certificate
    cert = der_children(sod, certs[2], certs[3])[0]
    tbs = der_children(sod, cert[2], cert[3])[0]
    tbs_bytes = sod[tbs[1]:tbs[3]]
    tbs_kids = der_children(sod, tbs[2], tbs[3])
    i = 1 if tbs_kids[0][0] == 0xA0 else 0
    issuer, spki = tbs_kids[i + 2], tbs_kids[i + 5]
    country = None
    for rdn in der_children(sod, issuer[2], issuer[3]):
        for atv in der_children(sod, rdn[2], rdn[3]):
            oid_tlv, val = der_children(sod, atv[2], atv[3])
            if _oid(sod[oid_tlv[2]:oid_tlv[3]]) == "2.5.4.6":
                country = sod[val[2]:val[3]].decode("ascii")
    alg = der_children(sod, spki[2], spki[3])[0]
    alg_kids = der_children(sod, alg[2], alg[3])
    key_alg = _oid(sod[alg_kids[0][2]:alg_kids[0][3]])
    curve = _oid(sod[alg_kids[1][2]:alg_kids[1][3]]) if len(alg_kids) > 1 and alg_kids[1][0] == 0x06 else None
    # SignerInfo: version, sid, digestAlgorithm, [0] signedAttrs, signatureAlgorithm, signature
    si = der_children(sod, signer_infos[2], signer_infos[3])[0]
    si_kids = der_children(sod, si[2], si[3])
    attrs = next(k for k in si_kids if k[0] == 0xA0)
    signed_attrs = b"\x31" + sod[attrs[1] + 1:attrs[3]]      # as signed: SET OF, not [0] IMPLICIT
    sig = si_kids[si_kids.index(attrs) + 2]
    assert sig[0] == 0x04
    return {
        "e_content": e_content,
        "signed_attrs": signed_attrs,
        "signature": sod[sig[2]:sig[3]],
        "tbs": tbs_bytes,
        "dsc_issuer_country": country,
        "dsc_key_algorithm": key_alg,
        "dsc_curve": curve,
    }


# ECDSA curve orders, for the low-s normalisation the prover applies (circuit-matcher.ts
# processECDSASignature). Add others as needed.
CURVE_ORDERS = {
    "1.2.840.10045.3.1.7": (32, 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551),
    "1.3.132.0.34": (48, int("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFC7634D81F4372DDF"
                             "581A0DB248B0A77AECEC196ACCC52973", 16)),
}


def ecdsa_signature_to_rs(signature, byte_size, order):
    """DER ECDSA-Sig-Value (or raw r||s) -> r || s, each left-padded to byte_size, s = min(s, n - s)."""
    signature = bytes(signature)
    if len(signature) == 2 * byte_size:
        r, s = int.from_bytes(signature[:byte_size], "big"), int.from_bytes(signature[byte_size:], "big")
    else:
        _, _, cs, e = der_read(signature, 0)
        (_, _, rs_, re_), (_, _, ss_, se_) = [(t, p, c, x) for t, p, c, x in der_children(signature, cs, e)]
        r, s = int.from_bytes(signature[rs_:re_], "big"), int.from_bytes(signature[ss_:se_], "big")
    if s > order // 2:
        s = order - s
    return r.to_bytes(byte_size, "big") + s.to_bytes(byte_size, "big")


def circuit_signature(parsed):
    if parsed["dsc_key_algorithm"] == "1.2.840.10045.2.1":
        size, order = CURVE_ORDERS[parsed["dsc_curve"]]
        return ecdsa_signature_to_rs(parsed["signature"], size, order)
    return parsed["signature"]


# ---------------------------------------------------------------------------------------------
# Self-tests

def _x(h):
    return int(h, 16)


# circuits@41fd4d67 src/noir/lib/utils/src/constants.nr SAMPLE_DG1 / ID_CARD_SAMPLE_DG1
SAMPLE_MRZ = b"P<AUSSILVERHAND<<JOHNNY<<<<<<<<<<<<<<<<<<<<<PA1234567_AUS881112_M300101_<CYBERCITY<<<<<<"
ID_CARD_SAMPLE_MRZ = b"I<ZKRZID222222<<<<<<<<<<<<<<<<9801157F3001018ZKR<<<<<<<<<<<2DOE<<JANE<<<<<<<<<<<<<<<<<<<<<"
DG1_PREFIX = bytes.fromhex("615B5F1F58")


def _unit_vectors():
    """(description, source, computed, expected)."""
    out = []
    src_common = "circuits@41fd4d67 src/noir/lib/commitment/common/src/tests.nr"
    salts = {"dg1_salt": 1, "expiry_date_salt": 2, "dg2_hash_salt": 3, "private_nullifier_salt": 4}
    out.append(("integrity comm_out, dg1 = [1; 95], expiry '000000', dg2 2/type 3, pn 4",
                src_common + " test_hash_salt_dg1_dg2_hash_private_nullifier; zkpassport-packages "
                "packages/zkpassport-utils/src/circuits/commitments.test.ts",
                hash_salt_dg1_dg2_hash_private_nullifier(salts, bytes([1] * 95), "000000", 2, 3, 4),
                _x("11c79137d08731a5ecf2fa2bd73797a39ff93b0dfcd90c4e93dfd0e27eab73f6")))
    out.append(("scoped nullifier H(1, 2, 3)", src_common + " test_calculate_scoped_nullifier; "
                "scoped-nullifier/src/tests.nr test_nullify",
                scoped_nullifier(1, 2, 3), _x("23864adb160dddf590f1d3303683ebcb914f828e2635f6e85a32f0a1aecd3dd8")))
    out.append(("salted scoped nullifier H(1, 2, 3, 1)", src_common + " test_calculate_scoped_nullifier",
                scoped_nullifier(1, 2, 3, 1), _x("0e51739f6a6687eb1956c4f475b39498e4358763075aa707642c9796d55cee14")))
    out.append(("salted scoped nullifier H(1, 2, 3, 4)", "circuits@41fd4d67 commitment/scoped-nullifier/src/tests.nr test_nullify",
                scoped_nullifier(1, 2, 3, 4), _x("130bf204a32cac1f0ace56c78b731aa3809f06df2731ebcf6b3464a15788b1b9")))
    sample = DG1_PREFIX + SAMPLE_MRZ
    card = DG1_PREFIX + ID_CARD_SAMPLE_MRZ
    out.append(("nullifier type, AUS passport, no secret", "scoped-nullifier/src/tests.nr test_nullify",
                nullifier_type(sample, 0), NON_SALTED_NULLIFIER))
    out.append(("nullifier type, ZKR card, secret", "scoped-nullifier/src/tests.nr test_nullify",
                nullifier_type(card, 4), SALTED_MOCK_NULLIFIER))
    out.append(("expiry date of SAMPLE_DG1 (passport)", "utils constants.nr SAMPLE_DG1 (M300101)",
                expiry_date_from_dg1(sample), b"300101"))
    out.append(("expiry date of ID_CARD_SAMPLE_DG1 (TD1)", "utils constants.nr ID_CARD_SAMPLE_DG1 (F300101)",
                expiry_date_from_dg1(card), b"300101"))
    out.append(("H([0, 0]) = normalised all-zero SHA-256 DG2 hash",
                src_common + " test_compute_merkle_root1 hash_path[1]; circuit-matcher.test.ts dg2 hash",
                normalize_dg2_hash(bytes(32)), _x("0b63a53787021a4a962a452c2921b3663aff1ffd8d5510540f8e659e782956f1")))
    apple_root_key = bytes([
        69, 49, 225, 152, 181, 180, 236, 4, 218, 21, 2, 4, 87, 4, 237, 79, 135, 114, 114, 215, 97,
        53, 178, 97, 22, 207, 200, 139, 97, 93, 10, 0, 7, 25, 186, 105, 133, 141, 254, 119, 202,
        163, 184, 57, 224, 32, 221, 214, 86, 20, 20, 4, 112, 40, 49, 228, 63, 112, 184, 143, 214,
        195, 148, 182, 8, 234, 43, 214, 174, 97, 233, 245, 152, 193, 47, 70, 175, 82, 147, 114, 102,
        229, 127, 20, 235, 97, 254, 197, 48, 247, 20, 79, 83, 129, 46, 53])
    out.append(("attestation registry leaf (Apple root key): poseidon2_hash_packed / le31 packing",
                src_common + " test_calculate_attestation_registry_leaf",
                poseidon2_hash_packed(bytes([1]) + apple_root_key),
                _x("2532418a107c5306fa8308c22255792cf77e4a290cbce8a840a642a3e591340b")))
    out.append(("age EVM param commitment (min 18, max 0) of a real outer proof",
                "circuits@41fd4d67 src/solidity/test/fixtures/all_subproofs_committed_inputs.hex "
                "(segment 01 0002 12 00) -> all_subproofs_public_inputs.json inputs[10]",
                age_param_commitment_evm(18, 0),
                _x("00fbc3519eb56137394d7f0e697ae3c40907d0dd4670d156866cffa07ff49869")))
    out.append(("age param commitment = H(1, 2, min, max)", "compare/age/src/lib.nr (structure only)",
                age_param_commitment(18, 0), hash_fields([1, 2, 18, 0])))
    # DER -> r || s with low-s (self-consistency: the fixtures already carry a raw low-s r || s)
    size, n = CURVE_ORDERS["1.2.840.10045.3.1.7"]
    r, s_low = 0x1234, n // 2 - 5

    def der_int(v):
        b = v.to_bytes((v.bit_length() + 8) // 8, "big")
        return bytes([2, len(b)]) + b
    body = der_int(r) + der_int(n - s_low)
    out.append(("ECDSA DER signature -> r || s, high s flipped", "circuit-matcher.ts processECDSASignature",
                ecdsa_signature_to_rs(bytes([0x30, len(body)]) + body, size, n),
                r.to_bytes(32, "big") + s_low.to_bytes(32, "big")))
    return out


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "testdata", "zkpassport_utils_fixtures.json")


def _fixture_vectors():
    """Real SODs from zkpassport-utils' tests, with the values its circuit-matcher test expects."""
    import base64
    import json
    with open(FIXTURES) as f:
        fx = json.load(f)
    out = []
    for name, case in fx["passports"].items():
        src = f"zkpassport-utils tests, {name}"
        dg1 = DG1_PREFIX + case["mrz"].encode("ascii")
        sod = parse_sod(base64.b64decode(case["sod_base64"]))
        sig = circuit_signature(sod)
        country = issuing_country_from_dg1(dg1)
        pn = private_nullifier(dg1, sod["e_content"], sig)
        exp = case["expected"]
        out.append(("private nullifier", src, pn, _x(exp["private_nullifier"])))
        out.append(("ID-data comm_in = H(salt 1, country, tbs|700)", src,
                    hash_salt_country_tbs(1, country, sod["tbs"]), _x(exp["id_data_comm_in"])))
        out.append(("integrity comm_in = ID-data comm_out (salt 1)", src,
                    hash_salt_country_signed_attr_dg1_e_content_private_nullifier(
                        1, country, sod["signed_attrs"], dg1, sod["e_content"], pn),
                    _x(exp["integrity_comm_in"])))
        salts = dict.fromkeys(("dg1_salt", "expiry_date_salt", "dg2_hash_salt", "private_nullifier_salt"), 1)
        # The fixture's PassportViewModel carries an all-zero SHA-256 DG2 hash (as does its eContent).
        dg2_hash = bytes(32)
        comm = hash_salt_dg1_dg2_hash_private_nullifier(
            salts, dg1, case["passport_expiry"], normalize_dg2_hash(dg2_hash), dg2_hash_type(dg2_hash), pn)
        out.append(("disclosure/compare_age comm_in = integrity comm_out (salts 1)", src, comm,
                    _x(exp["disclosure_comm_in"])))
        fields, comm2 = compare_age_inputs(dg1, dg2_hash, pn, salts, 1767225600, 18)
        out.append(("compare_age_inputs uses the same comm_in", src, (fields[0], comm2), (comm, comm)))
        out.append(("expiry from DG1 matches the passport's", src,
                    expiry_date_from_dg1(dg1).decode(), case["passport_expiry"]))
    return out


def self_test():
    failures = 0
    for desc, src, got, want in _unit_vectors() + _fixture_vectors():
        ok = got == want
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'}  {desc}  [{src}]")
        if not ok:
            print("      got ", hex(got) if isinstance(got, int) else got)
            print("      want", hex(want) if isinstance(want, int) else want)
    return failures


if __name__ == "__main__":
    import poseidon2
    n = poseidon2.self_test(verbose=False) + self_test()
    print("commitments: all vectors pass" if n == 0 else f"commitments: {n} FAILED")
    sys.exit(1 if n else 0)
