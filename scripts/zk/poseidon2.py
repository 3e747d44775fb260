#!/usr/bin/env python3
"""Poseidon2 over the BN254 scalar field, as Noir and zkPassport's circuits use it.

Permutation: Barretenberg's `Poseidon2Bn254ScalarFieldParams` (t = 4, S-box x^5, 8 full rounds
split 4 + 4 around 56 partial rounds), which is what Noir's `std::hash::poseidon2_permutation`
black box computes. Layout of one permutation:

    M_E · state                                    (initial external linear layer)
    4 x [ add rc[r] (all lanes); x^5 (all lanes); M_E ]
    56 x [ add rc[r][0] (lane 0); x^5 (lane 0); M_I ]
    4 x [ add rc[r] (all lanes); x^5 (all lanes); M_E ]

    M_E = [[5,7,1,3],[4,6,1,1],[1,3,5,7],[1,1,4,6]]   (Poseidon2 paper's M4)
    M_I = 1 + diag(D):  y_i = D_i * x_i + sum(x)

Hash: `Poseidon2::hash(input, message_size)` of noir-lang/poseidon v0.2.6 (src/poseidon2.nr), the
library zkPassport's circuits depend on. A sponge with rate 3 and capacity 1; the capacity lane
starts at IV = message_size * 2^64; the first `message_size` inputs are added to lanes 0..2 three
at a time, each block (the last one zero-padded) followed by one permutation, and at least one
permutation is run (message_size = 0). The output is lane 0. This matches Barretenberg's
`crypto::Poseidon2<...>::hash` (IV = (len << 64) + out_len - 1 with out_len = 1) and acvm's
`poseidon_hash(inputs, false)`.

Constants are read from poseidon2_bn254_t4.json (see gen_constants.py for their origin).
Run this file to execute the self-tests.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

P = 0x30644E72E131A029B85045B68181585D2833E84879B9709143E1F593F0000001
T = 4
RATE = 3

with open(os.path.join(HERE, "poseidon2_bn254_t4.json")) as _f:
    _PARAMS = json.load(_f)
assert int(_PARAMS["modulus"], 16) == P
ROUNDS_F = _PARAMS["rounds_f"]
ROUNDS_P = _PARAMS["rounds_p"]
DIAG = [int(x, 16) for x in _PARAMS["internal_matrix_diagonal"]]
RC = [[int(x, 16) for x in row] for row in _PARAMS["round_constants"]]
assert _PARAMS["t"] == T and _PARAMS["d"] == 5 and len(RC) == ROUNDS_F + ROUNDS_P


def _external(s):
    """M_E · s with M_E = [[5,7,1,3],[4,6,1,1],[1,3,5,7],[1,1,4,6]]."""
    a, b, c, d = s
    return [
        (5 * a + 7 * b + c + 3 * d) % P,
        (4 * a + 6 * b + c + d) % P,
        (a + 3 * b + 5 * c + 7 * d) % P,
        (a + b + 4 * c + 6 * d) % P,
    ]


def _internal(s):
    total = sum(s)
    return [(DIAG[i] * s[i] + total) % P for i in range(T)]


def _sbox(x):
    return pow(x, 5, P)


def permute(state):
    """The Poseidon2 permutation of 4 field elements."""
    if len(state) != T:
        raise ValueError("Poseidon2 BN254 permutation takes exactly 4 field elements")
    s = _external([x % P for x in state])
    half = ROUNDS_F // 2
    for r in range(half):
        s = _external([_sbox((s[i] + RC[r][i]) % P) for i in range(T)])
    for r in range(half, half + ROUNDS_P):
        s[0] = _sbox((s[0] + RC[r][0]) % P)
        s = _internal(s)
    for r in range(half + ROUNDS_P, ROUNDS_F + ROUNDS_P):
        s = _external([_sbox((s[i] + RC[r][i]) % P) for i in range(T)])
    return s


def hash_fields(inputs, message_size=None):
    """Noir `Poseidon2::hash(inputs, message_size)`; by default message_size = len(inputs).

    Only the first `message_size` inputs are absorbed (as in the Noir library, where the array may
    be longer than the message); the length enters the IV, so it is a domain separator.
    """
    n = len(inputs) if message_size is None else message_size
    if n > len(inputs):
        raise ValueError("message_size exceeds the number of inputs")
    msg = [x % P for x in inputs[:n]]
    state = [0, 0, 0, (n << 64) % P]
    blocks = [msg[i:i + RATE] for i in range(0, n, RATE)] or [[]]
    for block in blocks:
        for i, x in enumerate(block):
            state[i] = (state[i] + x) % P
        state = permute(state)
    return state[0]


def _h(x):
    return int(x, 16)


# (description, source, input state, expected output state)
PERMUTATION_VECTORS = [
    (
        "permutation of [0, 0, 0, 0]",
        "noir-lang/noir acvm-repo/bn254_blackbox_solver/src/poseidon2.rs, test smoke_test",
        [0, 0, 0, 0],
        [_h("18DFB8DC9B82229CFF974EFEFC8DF78B1CE96D9D844236B496785C698BC6732E"),
         _h("095C230D1D37A246E8D2D5A63B165FE0FADE040D442F61E25F0590E5FB76F839"),
         _h("0BB9545846E1AFA4FA3C97414A60A20FC4949F537A68CCECA34C5CE71E28AA59"),
         _h("18A4F34C9C6F99335FF7638B82AEED9018026618358873C982BBDDE265B2ED6D")],
    ),
    (
        "permutation of [0, 1, 2, 3]",
        "AztecProtocol/aztec-packages barretenberg/cpp/src/barretenberg/dsl/acir_format/"
        "poseidon2_constraint.test.cpp, TestPoseidon2Permutation",
        [0, 1, 2, 3],
        [_h("01bd538c2ee014ed5141b29e9ae240bf8db3fe5b9a38629a9647cf8d76c01737"),
         _h("239b62e7db98aa3a2a8f6a0d2fa1709e7a35959aa6c7034814d9daa90cbac662"),
         _h("04cbb44c61d928ed06808456bf758cbf0c18d1e15a7b6dbc8245fa7515d5e3cb"),
         _h("2e11c5cff2a22c64d01304b778d78f6998eff1ab73163a35603f54794c30847a")],
    ),
]

# The Barretenberg consistency vectors use a 256-bit constant above the modulus; bb::fr reduces it.
_BB_X = _h("9a807b615c4d3e2fa0b1c2d3e4f56789fedcba9876543210abcdef0123456789") % P
PERMUTATION_VECTORS.append((
    "permutation of 4 x 0x9a807b...89 (mod p)",
    "Barretenberg crypto/poseidon2/poseidon2_permutation.test.cpp ConsistencyCheck, current "
    "revisions (also in Barretenberg's AVM poseidon2 tests). The late-2023 revision "
    "(aztec-packages@86cf0180) expected 0x0514d384..., computed with an earlier parameter set.",
    [_BB_X] * 4,
    [_h("2bf1eaf87f7d27e8dc4056e9af975985bccc89077a21891d6c7b6ccce0631f95"),
     _h("0c01fa1b8d0748becafbe452c0cb0231c38224ea824554c9362518eebdd5701f"),
     _h("018555a8eb50cf07f64b019ebaf3af3c925c93e631f3ecd455db07bbb52bbdd3"),
     _h("0cbea457c91c22c6c31fd89afd2541efc2edf31736b9f721e823b2165c90fd41")],
))

# (description, source, inputs, expected hash)
HASH_VECTORS = [
    ("hash([1000])", "noir-lang/poseidon v0.2.6 src/tests.nr test_poseidon2_1",
     [1000], _h("16433a80e26a23547e25d61dd95fd5793d1ca2dcd78ae64cd146d3b99a35fa7c")),
    ("hash([1000, 2000])", "noir-lang/poseidon v0.2.6 src/tests.nr test_poseidon2_2",
     [1000, 2000], _h("118d5a5ecb25dafe99eb45cb196604a23d0b7c0cbd0c2be29e0787e59b7a1d8a")),
    ("hash([1000, 2000, 3000])", "noir-lang/poseidon v0.2.6 src/tests.nr test_poseidon2_3",
     [1000, 2000, 3000], _h("0f1badcd0d52ced816fb6e6826fdf66ada038135d53cbb993f320ca6529223cd")),
    ("hash([1, 2, 3, 4])", "noir-lang/noir bn254_blackbox_solver/src/poseidon2.rs hash_smoke_test",
     [1, 2, 3, 4], _h("130bf204a32cac1f0ace56c78b731aa3809f06df2731ebcf6b3464a15788b1b9")),
    ("hash(4 x 0x9a807b...89 mod p)",
     "AztecProtocol/aztec-packages barretenberg/.../crypto/poseidon2/poseidon2.test.cpp HashConsistencyCheck",
     [_BB_X] * 4, _h("2f43a0f83b51a6f5fc839dea0ecec74947637802a579fa9841930a25a0bcec11")),
    ("hash([1])", "zkpassport/circuits@41fd4d67 src/noir/lib/commitment/common/src/tests.nr "
     "test_compute_merkle_root2 (e00)",
     [1], _h("168758332d5b3e2d13be8048c8011b454590e06c44bce7f702f09103eef5a373")),
]
_E00 = HASH_VECTORS[-1][3]
HASH_VECTORS += [
    ("hash([e00, e00])", "zkpassport/circuits@41fd4d67 commitment/common/src/tests.nr (e10)",
     [_E00, _E00], _h("113d8ff59c2e15d711241797c380264e39dc1b9e00f2713e707d8d7773b6d912")),
    ("hash([e10, e10])", "zkpassport/circuits@41fd4d67 commitment/common/src/tests.nr (root)",
     [_h("113d8ff59c2e15d711241797c380264e39dc1b9e00f2713e707d8d7773b6d912")] * 2,
     _h("0f4f16b234c1d5054b15d408282cb45ba6c10a629fe068e7f3cc253ceae4f08d")),
]


def self_test(verbose=True):
    failures = 0
    for desc, src, inp, want in PERMUTATION_VECTORS:
        got = permute(inp)
        ok = got == want
        failures += not ok
        if verbose:
            print(f"{'PASS' if ok else 'FAIL'}  {desc}  [{src}]")
        if not ok:
            print("      got ", [hex(x) for x in got])
    for desc, src, inp, want in HASH_VECTORS:
        got = hash_fields(inp)
        ok = got == want
        failures += not ok
        if verbose:
            print(f"{'PASS' if ok else 'FAIL'}  {desc}  [{src}]")
        if not ok:
            print("      got ", hex(got))
    # message_size shorter than the array: trailing elements are ignored, and the IV changes.
    assert hash_fields([1000, 2000, 99], 2) == HASH_VECTORS[1][3]
    return failures


if __name__ == "__main__":
    import sys
    n = self_test()
    print("poseidon2: all vectors pass" if n == 0 else f"poseidon2: {n} FAILED")
    sys.exit(1 if n else 0)
