#!/usr/bin/env python3
"""Writes testdata/zkpassport_registry_fixture.json from zkpassport-utils 0.35.0's own test data.

Usage: make_registry_fixture.py ZKPASSPORT_PACKAGES_GIT_DIR
(a bare clone of github.com/zkpassport/zkpassport-packages; the commit below must be in it).

Taken from packages/zkpassport-utils/tests/ at 7e774f79 (utils 0.35.0, what zkpassport/circuits
0.17.0 requires): every certificate of fixtures/root-certs.json as [country, key hex, tags]
(RSA modulus, or EC x||y, exactly as the registry leaf hashes it), the registry root its
`serialised` tree ends with, and the values circuit-matcher.test.ts expects for the DSC and
ID-data circuit inputs of the two fixture passports (john: RSA-2048, mary: ECDSA P-256).
"""
import json
import re
import subprocess
import sys

COMMIT = "7e774f79510079e0daff8daf9a3cd9656d83dd8b"
BASE = "packages/zkpassport-utils/tests/"


def show(git_dir, path):
    return subprocess.run(["git", "-C", git_dir, "show", "%s:%s%s" % (COMMIT, BASE, path)],
                          check=True, capture_output=True, text=True).stdout


def main(git_dir):
    certs = json.loads(show(git_dir, "fixtures/root-certs.json"))
    test = show(git_dir, "circuit-matcher.test.ts")

    def key_hex(cert):
        pk = cert["public_key"]
        h = pk["modulus"][2:] if pk["type"] == "RSA" else pk["public_key_x"][2:] + pk["public_key_y"][2:]
        return h if len(h) % 2 == 0 else "0" + h

    def block(section, title):
        """The text of the it("...") block with this title in one describe section."""
        start = section.index(title)
        end = section.find('\n  it("', start + 1)
        return section[start:end if end > 0 else len(section)]

    def byte_array(text, name):
        m = re.search(name + r": \[([0-9,\s]+)\]", text)
        return bytes(int(x) for x in m.group(1).split(",") if x.strip()).hex()

    def hexes(text, name):
        m = re.search(name + r": \[([^\]]+)\]", text)
        return re.findall(r'"(0x[0-9a-f]+)"', m.group(1))

    out = {
        "source": "zkpassport/zkpassport-packages@%s %s (fixtures/root-certs.json, circuit-matcher.test.ts)"
                  % (COMMIT[:8], BASE),
        "registry": {
            "root": certs["serialised"][-1][0],
            "certificates": [[c["country"], key_hex(c), c.get("tags") or []] for c in certs["certificates"]],
        },
    }
    rsa, ecdsa = test.index('describe("Circuit Matcher - RSA"'), test.index('describe("Circuit Matcher - ECDSA"')
    for name, section, fields in (("john_rsa_2048_sha256", test[rsa:ecdsa], ["csc_pubkey", "csc_pubkey_redc_param"]),
                                  ("mary_ecdsa_p256_sha256", test[ecdsa:], ["csc_pubkey_x", "csc_pubkey_y"])):
        dsc = block(section, "should get the correct DSC circuit inputs (version 0)")
        ident = block(section, "should get the correct ID circuit inputs")
        entry = {
            "certificate_registry_root": re.search(r'certificate_registry_root:\s*"(0x[0-9a-f]+)"', dsc).group(1),
            "certificate_registry_index": int(re.search(r"certificate_registry_index: (\d+)", dsc).group(1)),
            "certificate_registry_hash_path": hexes(dsc, "certificate_registry_hash_path"),
            "id_data_comm_in": re.search(r'comm_in: "(0x[0-9a-f]+)"', ident).group(1),
        }
        for field in fields:
            entry[field] = byte_array(dsc, field)
        for field in (["dsc_pubkey", "dsc_pubkey_redc_param"] if "rsa" in name else ["dsc_pubkey_x", "dsc_pubkey_y"]):
            entry[field] = byte_array(ident, field)
        out[name] = entry
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
