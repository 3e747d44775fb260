#!/usr/bin/env python3
"""Regenerate poseidon2_bn254_t4.json from Barretenberg's poseidon2_params.hpp.

The parameters are the ones of Barretenberg's `Poseidon2Bn254ScalarFieldParams` (t = 4, d = 5,
8 full rounds, 56 partial rounds), which is what Noir's `std::hash::poseidon2_permutation` black box
evaluates (Barretenberg when proving, acvm's bn254_blackbox_solver when executing, both carry the
same table).

Usage:
    python3 gen_constants.py [PATH_TO_poseidon2_params.hpp] [--source "repo@commit:path"]

Without a path it reads the header from the local git mirror of zkmopro/noir-rs, which vendors
Barretenberg's headers under bb/ios/include.
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "poseidon2_bn254_t4.json")
MIRROR = "/work/.mirror/zkmopro+noir-rs/repo"
HEADER = "bb/ios/include/barretenberg/crypto/poseidon2/poseidon2_params.hpp"


def read_header(argv):
    source = None
    if "--source" in argv:
        i = argv.index("--source")
        source = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    if len(argv) > 1:
        with open(argv[1]) as f:
            return f.read(), source or argv[1]
    commit = subprocess.check_output(["git", "-C", MIRROR, "rev-parse", "HEAD"], text=True).strip()
    text = subprocess.check_output(["git", "-C", MIRROR, "show", f"{commit}:{HEADER}"], text=True)
    return text, source or f"zkmopro/noir-rs@{commit}:{HEADER}"


def block(text, name):
    """The text between `name ... = {` and the matching closing brace."""
    start = text.index(name)
    start = text.index("{", start)
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start:i + 1]
    raise ValueError(f"unterminated block {name}")


def hexes(text):
    return re.findall(r'"(0x[0-9a-fA-F]{64})"', text)


def scalar(text, name):
    return int(re.search(rf"\b{name}\s*=\s*(\d+)\s*;", text).group(1))


def main(argv):
    text, source = read_header(argv)
    t, d, rf, rp = (scalar(text, n) for n in ("t", "d", "rounds_f", "rounds_p"))
    diag = hexes(block(text, "internal_matrix_diagonal"))
    rc = hexes(block(text, "round_constants"))
    assert (t, d, rf, rp) == (4, 5, 8, 56), (t, d, rf, rp)
    assert len(diag) == t, len(diag)
    assert len(rc) == t * (rf + rp), len(rc)
    data = {
        "source": source,
        "field": "BN254 scalar field",
        "modulus": "0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
        "t": t, "d": d, "rounds_f": rf, "rounds_p": rp,
        "internal_matrix_diagonal": [h.lower() for h in diag],
        "round_constants": [[h.lower() for h in rc[i * t:(i + 1) * t]] for i in range(rf + rp)],
    }
    with open(OUT, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT} from {source}")


if __name__ == "__main__":
    main(sys.argv)
