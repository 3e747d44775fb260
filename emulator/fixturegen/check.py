"""Independent checks of the generated fixtures: structure, MRZ, hashes, signatures, openssl verification."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile

from cryptography.hazmat.primitives.asymmetric import ec

import der

from . import cardsecurity, mrz, sod
from .curves import EXPLICIT
from .x509 import OID, Scheme, from_pem

SIG_SCHEMES = {
    OID["sha256WithRSAEncryption"]: lambda h: Scheme("rsa-pkcs1", "sha256"),
    OID["ecdsa-with-SHA256"]: lambda h: Scheme("ecdsa", "sha256"),
    OID["ecdsa-with-SHA384"]: lambda h: Scheme("ecdsa", "sha384"),
    OID["rsassaPss"]: lambda h: Scheme("rsa-pss", h, salt=hashlib.new(h).digest_size),
}
DUMP_FILES = {"COM.bin": 0x60, "DG1.bin": 0x61, "DG2.bin": 0x75, "DG11.bin": 0x6B, "DG12.bin": 0x6C,
              "DG14.bin": 0x6E, "DG15.bin": 0x6F, "SOD.bin": 0x77}
DG_BY_TAG = {0x61: 1, 0x75: 2, 0x6B: 11, 0x6C: 12, 0x6E: 14, 0x6F: 15}


class Checker:
    def __init__(self, root: str, verbose: bool):
        self.root = root
        self.fx = os.path.join(root, "Fixtures")
        self.verbose = verbose
        self.failures = 0
        self.tmp = tempfile.mkdtemp(prefix="fixturecheck-")

    def ok(self, cond: bool, what: str) -> bool:
        if not cond:
            self.failures += 1
        print(f"  {'ok  ' if cond else 'FAIL'} {what}")
        return cond

    def read(self, *parts: str) -> bytes:
        with open(os.path.join(self.fx, *parts), "rb") as f:
            return f.read()

    # -- helpers ------------------------------------------------------------
    def walk(self, node: der.Node, depth: int = 0) -> None:
        """Parse every constructed node down to the leaves (raises on malformed TLV)."""
        if node.constructed:
            total = 0
            for child in node.children():
                total += len(child.raw)
                self.walk(child, depth + 1)
            assert total == len(node.value)

    def openssl(self, args: list[str]) -> tuple[int, str]:
        r = subprocess.run(["openssl"] + args, capture_output=True, text=True)
        out = (r.stdout + r.stderr).strip()
        if self.verbose:
            shown = " ".join(os.path.relpath(a, self.root) if a.startswith(self.root) else a for a in args)
            print(f"    $ openssl {shown}\n      -> exit {r.returncode}: " + out.replace("\n", "\n         "))
        return r.returncode, out

    def public_key_from_spki(self, spki: bytes):
        """Public key from an SPKI, including EC keys with explicit (brainpoolP384r1) parameters."""
        node = der.parse_one(spki)
        alg = node.children()[0].children()
        if alg[0].as_oid() == OID["ecPublicKey"] and alg[1].tag == b"\x30":
            params = alg[1].children()
            p = params[1].children()[1].as_int()
            for name, c in EXPLICIT.items():
                if c["p"] == p and params[4].as_int() == c["n"]:
                    curve = {"brainpoolP384r1": ec.BrainpoolP384R1}[name]()
                    point = node.children()[1].value[1:]
                    return ec.EllipticCurvePublicKey.from_encoded_point(curve, point)
            raise ValueError("unknown explicit curve")
        from cryptography.hazmat.primitives.serialization import load_der_public_key
        return load_der_public_key(spki)

    # -- one dump folder ----------------------------------------------------
    def dump(self, rel: str, anchor: str, expect: dict) -> None:
        print(f"{rel}")
        files = {}
        for name, tag in DUMP_FILES.items():
            data = self.read(rel, name)
            node = der.parse_one(data)
            self.walk(node)
            assert node.tag_int == tag, (name, node.tag.hex())
            files[name] = data
        self.ok(True, "every file is one well-formed TLV with the expected tag, parsed to the leaves")

        com = der.parse_one(files["COM.bin"]).children()
        tags = {c.tag_int: c.value for c in com}
        listed = sorted(DG_BY_TAG[t] for t in tags[0x5C])
        self.ok(tags[0x5F01] == b"0107" and tags[0x5F36] == b"040000" and listed == [1, 2, 11, 12, 14, 15],
                f"EF.COM: LDS 0107, Unicode 040000, DGs {listed}")

        line = der.parse_one(files["DG1.bin"]).children()[0].value.decode()
        l1, l2 = line[:44], line[44:]
        cd_ok = (mrz.check_digit(l2[0:9]) == l2[9] and mrz.check_digit(l2[13:19]) == l2[19]
                 and mrz.check_digit(l2[21:27]) == l2[27] and l2[42] in "<0"
                 and mrz.check_digit(l2[0:10] + l2[13:20] + l2[21:43]) == l2[43])
        self.ok(len(line) == 88 and cd_ok, f"DG1 MRZ check digits: {l2}")

        s = sod.parse(files["SOD.bin"])
        h = sod.HASH_NAMES[s["lds_hash_algorithm"]]
        self.ok(s["econtent_type"] == sod.ID_LDS_SECURITY_OBJECT, "eContentType id-icao-mrtd-security-ldsSecurityObject")
        mismatched = []
        for name, data in files.items():
            tag = DUMP_FILES[name]
            if tag in DG_BY_TAG:
                n = DG_BY_TAG[tag]
                if s["dg_hashes"].get(n) != hashlib.new(h, data).digest():
                    mismatched.append(n)
        self.ok(sorted(s["dg_hashes"]) == [1, 2, 11, 12, 14, 15], f"SOD lists DGs {sorted(s['dg_hashes'])} ({h})")
        got = "all match" if not mismatched else " ".join(f"DG{n}" for n in mismatched) + " mismatch"
        self.ok(got == expect["dataGroupHashes"], f"DG hashes: {got} (expected: {expect['dataGroupHashes']})")
        self.ok(s["message_digest"] == hashlib.new(h, s["econtent"]).digest(),
                "messageDigest = hash of the eContent")
        dsc = s["certificates"][0]
        scheme = SIG_SCHEMES[s["signature_algorithm"]](h)
        sig_ok = scheme.verify(self.public_key_from_spki(_spki(dsc)), s["signature"], s["signed_attrs"])
        self.ok(("valid" if sig_ok else "invalid") == expect["signature"],
                f"signature over the signed attributes (SET) with the DSC: {'valid' if sig_ok else 'invalid'}")

        # openssl
        bare = os.path.join(self.tmp, rel.replace("/", "_") + ".cms.der")
        with open(bare, "wb") as f:
            f.write(sod.unwrap(files["SOD.bin"]))
        dsc_pem = os.path.join(self.tmp, rel.replace("/", "_") + ".dsc.pem")
        with open(dsc_pem, "wb") as f:
            f.write(_pem(dsc))
        ca = os.path.join(self.fx, anchor)
        if expect.get("explicitParameters"):
            # OpenSSL 3 refuses certificates whose EC key has explicit parameters while building a
            # chain (X509_V_ERR_EC_KEY_EXPLICIT_PARAMS, error 94). Show that, then check the SOD
            # signature without the chain and each certificate signature with openssl dgst.
            rc, out = self.openssl(["cms", "-verify", "-inform", "DER", "-in", bare, "-CAfile", ca,
                                    "-purpose", "any", "-out", os.devnull])
            self.ok(rc != 0 and "explicit" in out, f"openssl cms -verify refuses explicit parameters: {_last(out)}")
            rc, out = self.openssl(["cms", "-verify", "-inform", "DER", "-in", bare, "-noverify", "-out", os.devnull])
            self.ok(rc == 0, f"openssl cms -verify -noverify (SOD signature with the DSC inside): {_last(out)}")
            anchor_der = from_pem(open(ca, "rb").read())
            for label, cert, issuer in (("DSC", dsc, anchor_der), ("CSCA (self-signed)", anchor_der, anchor_der)):
                self.ok(self.dgst_verify(cert, issuer, rel + label.split()[0]),
                        f"openssl dgst -verify: {label} signature with the CSCA public key (explicit parameters)")
            return files
        rc, out = self.openssl(["cms", "-verify", "-inform", "DER", "-in", bare, "-CAfile", ca,
                                "-purpose", "any", "-out", os.devnull])
        want_cms = expect["signature"] == "valid" and expect["chain"] in ("valid",) or (
            expect["signature"] == "valid" and "revoked" in expect["chain"])  # no CRL given here
        self.ok((rc == 0) == want_cms, f"openssl cms -verify (CA {anchor}): {_last(out)}")
        rc, out = self.openssl(["verify", "-CAfile", ca, "-purpose", "any", "-attime", "1727690400", dsc_pem])
        chain_at_signing = expect["chain"] == "valid" or "revoked" in expect["chain"]
        self.ok((rc == 0) == chain_at_signing, f"openssl verify DSC at signing time: {_last(out)}")

        if "crl" in expect:
            crl_der = os.path.join(self.fx, expect["crl"])
            both = os.path.join(self.tmp, "ca+crl.pem")
            crl_pem = subprocess.run(["openssl", "crl", "-inform", "DER", "-in", crl_der],
                                     capture_output=True, text=True).stdout
            with open(both, "w") as f:
                f.write(open(ca).read() + crl_pem + "\n")
            rc, out = self.openssl(["cms", "-verify", "-inform", "DER", "-in", bare, "-CAfile", both,
                                    "-crl_check", "-purpose", "any", "-out", os.devnull])
            self.ok(rc != 0 and "revoked" in out, f"openssl cms -verify -crl_check with the CRL: {_last(out)}")
        if "validWithTrustAnchor" in expect:
            other = os.path.join(self.fx, expect["validWithTrustAnchor"])
            rc, out = self.openssl(["cms", "-verify", "-inform", "DER", "-in", bare, "-CAfile", other,
                                    "-purpose", "any", "-out", os.devnull])
            self.ok(rc == 0, f"openssl cms -verify (CA {expect['validWithTrustAnchor']}): {_last(out)}")
        return files

    def check_dg2(self, dg2: bytes) -> None:
        import io
        import struct
        from PIL import Image
        bit_group = der.parse_one(dg2).children()[0]
        kids = bit_group.children()
        self.ok(bit_group.tag == b"\x7f\x61" and kids[0].raw == b"\x02\x01\x01" and kids[1].tag == b"\x7f\x60",
                "DG2: 7F61 { 02 01 01, 7F60 { ... } }")
        bht, bdb = kids[1].children()
        self.ok(bht.tag == b"\xa1" and [(c.tag.hex(), c.value.hex()) for c in bht.children()]
                == [("80", "0101"), ("81", "02"), ("87", "0101"), ("88", "0008")], "DG2: biometric header template")
        rec = bdb.value
        magic, version, total, count = rec[0:4], rec[4:8], *struct.unpack(">IH", rec[8:14])
        block, npoints = struct.unpack(">IH", rec[14:20])
        off = 14 + 20 + 8 * npoints
        itype, dtype, w, h = struct.unpack(">BBHH", rec[off:off + 6])
        jpeg = rec[off + 12:]
        img = Image.open(io.BytesIO(jpeg))
        img.load()
        self.ok(bdb.tag == b"\x5f\x2e" and magic == b"FAC\x00" and version == b"010\x00" and total == len(rec)
                and count == 1 and block == len(rec) - 14 and npoints == 2 and dtype == 0
                and img.format == "JPEG" and img.size == (w, h),
                f"DG2: ISO/IEC 19794-5 record ({total} bytes, {npoints} feature points), JPEG {w}x{h}, "
                f"{len(jpeg)} bytes, decodes")

    def dgst_verify(self, cert: bytes, issuer: bytes, tag: str) -> bool:
        """openssl dgst -verify of a certificate signature (TBS bytes, DER ECDSA signature)."""
        parts = der.parse_one(cert).children()
        alg = parts[1].children()[0].as_oid()
        h = {OID["ecdsa-with-SHA256"]: "sha256", OID["ecdsa-with-SHA384"]: "sha384",
             OID["sha256WithRSAEncryption"]: "sha256"}[alg]
        base = os.path.join(self.tmp, tag.replace("/", "_"))
        with open(base + ".tbs", "wb") as f:
            f.write(parts[0].raw)
        with open(base + ".sig", "wb") as f:
            f.write(parts[2].value[1:])
        with open(base + ".issuer.pem", "wb") as f:
            f.write(_pem(issuer))
        pub = subprocess.run(["openssl", "x509", "-in", base + ".issuer.pem", "-noout", "-pubkey"],
                             capture_output=True, text=True).stdout
        with open(base + ".pub.pem", "w") as f:
            f.write(pub)
        rc, out = self.openssl(["dgst", "-" + h, "-verify", base + ".pub.pem", "-signature", base + ".sig",
                                base + ".tbs"])
        return rc == 0 and "Verified OK" in out

    # -- everything ---------------------------------------------------------
    def run(self) -> int:
        print("checks")
        pki = os.path.join(self.fx, "pki")
        csca = os.path.join(pki, "TEST-ONLY-csca-UTO.pem")
        rc, out = self.openssl(["verify", "-CAfile", csca, "-purpose", "any", csca])
        self.ok(rc == 0, f"CSCA self-signed chain: {_last(out)}")
        self.ok(from_pem(self.read("pki", "TEST-ONLY-csca-UTO.pem")) == self.read("pki", "TEST-ONLY-csca-UTO.der"),
                "CSCA .pem and .der hold the same certificate")
        for name in sorted(os.listdir(pki)):
            path = os.path.join(pki, name)
            if name.endswith(".pem") and ".key." not in name:
                rc, out = self.openssl(["x509", "-in", path, "-noout", "-subject"])
                self.ok(rc == 0 and "TEST" in out, f"{name}: {out}")

        main_expect = {"signature": "valid", "dataGroupHashes": "all match", "chain": "valid"}
        files = self.dump("passport", "pki/TEST-ONLY-csca-UTO.pem", main_expect)
        dg2 = len(files["DG2.bin"])
        self.ok(15 * 1024 <= dg2 <= 30 * 1024, f"DG2 is {dg2} bytes ({dg2 / 1024:.1f} KiB)")
        self.check_dg2(files["DG2.bin"])
        for name in ("DG11.bin", "DG12.bin"):
            kids = der.parse_one(files[name]).children()
            listed = [int.from_bytes(kids[0].value[i:i + 2], "big") for i in range(0, len(kids[0].value), 2)]
            self.ok(kids[0].tag == b"\x5c" and listed == [k.tag_int for k in kids[1:]],
                    f"{name}: tag list 5C = " + " ".join(f"{t:04X}" for t in listed))
        exp = json.loads(self.read("passport", "expected.json"))
        same = all(hashlib.sha256(self.read("passport", f)).hexdigest() == v["sha256"] for f, v in exp["files"].items())
        self.ok(same and len(exp["files"]) == 8, "expected.json sha256 values match the files")
        lines = self.read("passport", "mrz.txt").decode().split()
        self.ok(lines == exp["mrz"]["lines"] and "".join(lines).encode() == der.parse_one(files["DG1.bin"]).children()[0].value,
                "mrz.txt = DG1 = expected.json")

        if os.path.isdir(os.path.join(self.fx, "passport-pace")):
            self.check_pace(files, csca)

        if os.path.isdir(os.path.join(self.fx, "passport-eac")):
            self.check_eac(files, csca)

        cases_path = os.path.join(self.fx, "pa", "cases.json")
        if os.path.exists(cases_path):
            cases = json.loads(open(cases_path).read())["cases"]
            crl = os.path.join(pki, "TEST-ONLY-csca-UTO.crl")
            rc, out = self.openssl(["crl", "-inform", "DER", "-in", crl, "-CAfile", csca, "-noout"])
            self.ok(rc == 0 and "verify OK" in out, f"CRL signed by the CSCA: {_last(out)}")
            ref = subprocess.run(["openssl", "ecparam", "-name", "brainpoolP384r1", "-param_enc", "explicit",
                                  "-outform", "DER"], capture_output=True).stdout
            for name in ("TEST-ONLY-csca-UTO-bp384.pem", "TEST-ONLY-dsc-UTO-bp384.pem"):
                spki = der.parse_one(_spki(from_pem(self.read("pki", name))))
                params = spki.children()[0].children()[1].raw
                self.ok(params == ref, f"{name}: explicit ECParameters = openssl's brainpoolP384r1 explicit encoding")
            for case, expect in cases.items():
                self.dump(f"pa/{case}", expect["trustAnchor"], expect)
            same = all(self.read("passport", f) == self.read("pa", "rsa-pkcs1-sha256", f) for f in DUMP_FILES)
            self.ok(same, "pa/rsa-pkcs1-sha256 is byte-identical to passport/")
        import shutil
        shutil.rmtree(self.tmp, ignore_errors=True)
        print(f"{'all checks passed' if not self.failures else f'{self.failures} check(s) FAILED'}")
        return self.failures


def _check_pace(self, files: dict, csca: str) -> None:
    """passport-pace/: same LDS files as passport/, EF.CardSecurity signed by the
    DSC, and its CA public key = DG14's = the chip CA private key's."""
    print("passport-pace")
    same = all(self.read("passport-pace", f) == files[f] for f in DUMP_FILES)
    self.ok(same, "passport-pace/ has the LDS files of passport/")
    data = self.read("passport-pace", "CardSecurity.bin")
    self.walk(der.parse_one(data))
    cs = cardsecurity.parse(data)
    self.ok(cs["econtent_type"] == cardsecurity.ID_SECURITY_OBJECT, "CardSecurity eContentType id-SecurityObject")
    dg14 = der.parse_one(files["DG14.bin"]).children()[0].children()
    dg14_point = [i.children()[1].children()[1].value[1:] for i in dg14
                  if i.children()[0].as_oid() == cardsecurity.ID_PK_ECDH][0]
    self.ok(cs["ca_public_point"] == dg14_point, "CardSecurity CA public key = DG14's")
    from cryptography.hazmat.primitives import serialization
    key = serialization.load_pem_private_key(self.read("pki", "TEST-ONLY-chip-ca-brainpoolP256r1.key.pem"), None)
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    self.ok(point == cs["ca_public_point"], "CardSecurity CA public key = chip CA private key's")
    path = os.path.join(self.fx, "passport-pace", "CardSecurity.bin")
    rc, out = self.openssl(["cms", "-verify", "-inform", "DER", "-in", path, "-CAfile", csca,
                            "-purpose", "any", "-out", os.devnull])
    self.ok(rc == 0, f"openssl cms -verify CardSecurity (CA pki/TEST-ONLY-csca-UTO.pem): {_last(out)}")


Checker.check_pace = _check_pace


def _check_eac(self, files: dict, csca: str) -> None:
    """pki/eac: every CV certificate parses (here and with OpenPACE's cvc-print), verifies with its
    issuer's key, has the CHAT and dates of eac.py, each terminal folder holds exactly its files and
    its key matches its certificate. passport-eac/: the LDS files of passport/ plus DG3, DG4, a DG14
    with TerminalAuthenticationInfo, EF.CVCA, and an EF.SOD over all of them."""
    import io
    from PIL import Image
    from . import biometrics, cvc, eac
    print("pki/eac")
    pki = os.path.join(self.fx, "pki", "eac")
    certs, paths = {}, {}
    for chr, *_ in eac.AUTHORITIES:
        paths[chr] = os.path.join(pki, f"TEST-ONLY-{chr}.cvcert")
    for folder, chr, *_ in eac.TERMINALS:
        paths[chr] = os.path.join(pki, folder, f"{chr}.cvcert")
    for chr, path in paths.items():
        with open(path, "rb") as f:
            certs[chr] = f.read()

    def domain(c):
        while c.role != cvc.ROLE_CVCA:
            c = cvc.Cvc(certs[c.car])
        return c
    specs = {a[0]: (a[1], a[2], a[3], a[4], a[6], a[7] or a[0]) for a in eac.AUTHORITIES}
    specs.update({t[1]: (cvc.ROLE_IS, t[2], t[3], t[4], t[6], t[7][-1]) for t in eac.TERMINALS})
    for chr, data in certs.items():
        c = cvc.Cvc(data)
        role, rights, eff, exp, scheme, issuer = specs[chr]
        signer = cvc.Cvc(certs[issuer])
        ok = c.verify(signer.public_key(domain(signer)), signer.key_oid)
        facts = (c.chr, c.car, c.role, c.rights, c.effective, c.expiration, c.key_oid, c.chat_oid)
        want = (chr, issuer, role, rights, eff, exp, scheme, cvc.ID_IS)
        r = subprocess.run(["cvc-print", "--cvc=" + paths[chr]], capture_output=True)
        printed = r.stdout.decode(errors="replace")
        self.ok(ok and facts == want and f"CHR: {chr}" in printed,
                f"{chr}: {cvc.ROLE_NAMES[c.role]}, CAR {c.car}, rights {c.rights:02X}, {c.effective} .. "
                f"{c.expiration}, signature verifies with {issuer}'s key, cvc-print reads it")
    for folder, chr, rights, eff, exp, kind, scheme, chain in eac.TERMINALS:
        names = sorted(os.listdir(os.path.join(pki, folder)))
        want = sorted([f"{c}.cvcert" for c in chain] + [f"{chr}.cvcert", f"{chr}.pkcs8"])
        same = all(self.read("pki", "eac", folder, f"{c}.cvcert") == self.read("pki", "eac", f"TEST-ONLY-{c}.cvcert")
                   for c in chain)
        from cryptography.hazmat.primitives import serialization
        key = serialization.load_der_private_key(self.read("pki", "eac", folder, f"{chr}.pkcs8"), None)
        self.ok(names == want and same and cvc.public_matches(cvc.Cvc(certs[chr]), key, None),
                f"pki/eac/{folder}/: {' '.join(names)}; copies = pki/eac's; the key is {chr}'s")

    print("passport-eac")
    eac_files = {}
    for name in eac.PASSPORT_EAC_FILES:
        data = self.read("passport-eac", name)
        if name != "CVCA.bin":
            self.walk(der.parse_one(data))
        eac_files[name] = data
    self.ok(all(eac_files[f] == files[f] for f in ("DG1.bin", "DG2.bin", "DG11.bin", "DG12.bin", "DG15.bin")),
            "DG1, DG2, DG11, DG12, DG15 = passport/'s")
    com = {c.tag_int: c.value for c in der.parse_one(eac_files["COM.bin"]).children()}
    self.ok(com[0x5C] == bytes([0x61, 0x75, 0x63, 0x76, 0x6B, 0x6C, 0x6E, 0x6F]),
            "EF.COM lists DG1 DG2 DG3 DG4 DG11 DG12 DG14 DG15")
    infos = der.parse_one(eac_files["DG14.bin"]).children()[0].children()
    main_infos = der.parse_one(files["DG14.bin"]).children()[0].children()
    ta = [i for i in infos if i.children()[0].as_oid() == eac.ID_TA]
    self.ok(len(infos) == 3 and all(m.raw in [i.raw for i in infos] for m in main_infos) and len(ta) == 1
            and ta[0].children()[1].as_int() == 1,
            "DG14: passport/'s SecurityInfos plus TerminalAuthenticationInfo (id-TA, version 1)")
    s = sod.parse(eac_files["SOD.bin"])
    dg_numbers = {"DG1.bin": 1, "DG2.bin": 2, "DG3.bin": 3, "DG4.bin": 4, "DG11.bin": 11, "DG12.bin": 12,
                  "DG14.bin": 14, "DG15.bin": 15}
    hashes_ok = all(s["dg_hashes"].get(n) == hashlib.sha256(eac_files[f]).digest() for f, n in dg_numbers.items())
    self.ok(sorted(s["dg_hashes"]) == sorted(dg_numbers.values()) and hashes_ok
            and s["message_digest"] == hashlib.sha256(s["econtent"]).digest() and s["signing_time"] == "240930100000Z",
            "EF.SOD: SHA-256 of DG1-4, 11, 12, 14, 15 match, messageDigest, signingTime 2024-09-30")
    bare = os.path.join(self.tmp, "passport-eac.cms.der")
    with open(bare, "wb") as f:
        f.write(sod.unwrap(eac_files["SOD.bin"]))
    rc, out = self.openssl(["cms", "-verify", "-inform", "DER", "-in", bare, "-CAfile", csca,
                            "-purpose", "any", "-out", os.devnull])
    self.ok(rc == 0 and s["certificates"][0] == from_pem(self.read("pki", "TEST-ONLY-dsc-UTO.pem")),
            f"openssl cms -verify EF.SOD (DSC 01, CA pki/TEST-ONLY-csca-UTO.pem): {_last(out)}")
    cvca = eac_files["CVCA.bin"]
    self.ok(len(cvca) == eac.EF_CVCA_SIZE and cvca.startswith(b"\x42\x0bUTCVCA00001") and not any(cvca[13:]),
            "EF.CVCA: 42 0B UTCVCA00001, 00 padding to 36 bytes")

    def decodes(data, fmt):
        if fmt == "WSQ":                       # NBIS codestream: SOI FFA0 ... SOF FFA2 ... EOI FFA1
            return data[:2] == b"\xff\xa0" and data[-2:] == b"\xff\xa1" and b"\xff\xa2" in data
        img = Image.open(io.BytesIO(data))
        img.load()
        return img.format == fmt and img.mode == "L"
    names = {5: "PNG", 3: "JPEG", 2: "WSQ", 4: "JPEG2000"}
    dg3 = eac_files["DG3.bin"]
    seen = []
    for header, record, offset in biometrics.templates(dg3):
        rec = biometrics.parse_finger_record(record)
        fmt = names[rec["compression"]]
        ok = (header[0x81] == b"\x08" and header[0x87] == b"\x01\x01" and header[0x88] == b"\x00\x07"
              and header[0x82][0] == biometrics.FINGER_SUBTYPE[rec["position"]] and rec["total"] == len(record)
              and rec["length"] == len(record) - 32 and rec["resolution"] == (500,) * 4 and rec["depth"] == 8
              and decodes(rec["image"], fmt))
        seen.append(f"{biometrics.FINGER_POSITIONS[rec['position']]} {fmt}")
        self.ok(ok, f"DG3 template: 19794-4 record, {biometrics.FINGER_POSITIONS[rec['position']]}, {fmt} "
                    f"{rec['width']}x{rec['height']} at 500 ppi, {len(rec['image'])} bytes, decodes")
    self.ok(len(seen) >= 2 and len(dg3) < 65533, f"DG3: {len(seen)} fingers, {len(dg3)} bytes (one extended read)")
    (header, record, offset), = biometrics.templates(eac_files["DG4.bin"])
    rec = biometrics.parse_iris_record(record)
    ok = (header[0x81] == b"\x10" and header[0x88] == b"\x00\x09" and rec["total"] == len(record) == rec["end"]
          and rec["headerLength"] == 45 and [e["subtype"] for e in rec["eyes"]] == [1, 2]
          and all(decodes(e["image"], "JPEG2000") and Image.open(io.BytesIO(e["image"])).size == (640, 480)
                  for e in rec["eyes"]))
    self.ok(ok, f"DG4: 19794-6 record, right and left eye, mono JPEG 2000 640x480, {len(record)} bytes, decode")
    exp = json.loads(self.read("passport-eac", "expected.json"))
    same = all(hashlib.sha256(eac_files[f]).hexdigest() == v["sha256"] for f, v in exp["files"].items())
    images = all(hashlib.sha256(dg3[r["imageOffsetInFile"]:r["imageOffsetInFile"] + r["imageLength"]]).hexdigest()
                 == r["imageSha256"] for r in exp["dg3"]["records"])
    images = images and all(hashlib.sha256(eac_files["DG4.bin"][e["imageOffsetInFile"]:e["imageOffsetInFile"]
                                                                 + e["imageLength"]]).hexdigest() == e["imageSha256"]
                            for e in exp["dg4"]["eyes"])
    self.ok(same and images and len(exp["files"]) == len(eac.PASSPORT_EAC_FILES),
            "expected.json: file and image sha256 values match")


Checker.check_eac = _check_eac


def _spki(cert: bytes) -> bytes:
    tbs = der.parse_one(cert).children()[0].children()
    return tbs[6].raw if tbs[0].tag == b"\xa0" else tbs[5].raw


def _pem(cert: bytes) -> bytes:
    from .x509 import pem
    return pem(cert)


def _last(out: str) -> str:
    lines = [l for l in out.splitlines() if l.strip()]
    if not lines:
        return "(no output)"
    # OpenSSL 3 error lines: pid:error:code:library:function:reason:file:line:data
    errors = [l.split(":") for l in lines if ":error:" in l]
    if errors:
        e = errors[-1]
        data = ":".join(e[8:]).strip()
        return data or e[5].strip()
    for l in lines:
        if l.startswith("error ") and "lookup" in l:
            return l.strip()
    return lines[-1].strip()


def run(root: str, verbose: bool = False) -> int:
    return Checker(root, verbose).run()
