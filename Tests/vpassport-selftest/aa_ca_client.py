#!/usr/bin/python3
"""An inspection system for Active and Chip Authentication, run against the
virtual passport through pcscd (default: vpcd slot 1) or in-process (selftest).

  /usr/bin/python3 Tests/vpassport-selftest/aa_ca_client.py [--slot N] [--scenario S ...]

Without --scenario it runs every scenario; each one (re)starts the card with
scripts/virtual-passport on the chosen slot, then does BAC (or PACE), reads
DG14/DG15, performs AA and CA and reads every file of the dump under the
Chip Authentication keys. `--list` names the scenarios.

The terminal side is separate from the chip's code: DG14/DG15 are taken apart
here, AA is verified with the `cryptography` package (RSA public numbers,
ISO/IEC 9796-2 recovery written below; ECDSA verify), and the CA key
agreement is the OpenSSL command line (`openssl genpkey` for the ephemeral
key on DG14's domain parameters, named or explicit, then
`openssl pkeyutl -derive`). Secure messaging is the smoke client's reader.
"""
import argparse
import base64
import hashlib
import os
import subprocess
import sys
import tempfile
import time

from testpaths import LAUNCHER, ROOT  # first: it puts scripts/ on sys.path

from der import oid_body, oid_text, parse_tlvs, tlv
from smoke_client import AID, Checker, PcscTransport, Reader, SwError
from vpassport import bac
from vpassport.dump import FILES, load_dump

BSI_DUMP = os.path.join(ROOT, "..", "shared", "reference", "lds", "bsi-tr03105-5")
FIXTURE = os.path.join(ROOT, "Fixtures", "passport")
FIXTURE_MRZ = "C01X00T47888041233409305"
BSI_MRZ = "C11T002JM496081222310314"

# TR-03110 standardized domain parameter ids -> OpenSSL curve names (the terminal's own table)
OPENSSL_CURVES = {8: "prime192v1", 9: "brainpoolP192r1", 10: "secp224r1", 11: "brainpoolP224r1",
                  12: "prime256v1", 13: "brainpoolP256r1", 14: "brainpoolP320r1",
                  15: "secp384r1", 16: "brainpoolP384r1", 17: "brainpoolP512r1", 18: "secp521r1"}
HASH_IDS = {0x33: "sha1", 0x38: "sha224", 0x34: "sha256", 0x36: "sha384", 0x35: "sha512"}
ECDSA_OIDS = {"0.4.0.127.0.7.1.1.4.1.%d" % i: h for i, h in
              enumerate(("sha1", "sha224", "sha256", "sha384", "sha512"), 1)}
ECDSA_OIDS.update({"1.2.840.10045.4.1": "sha1", "1.2.840.10045.4.3.1": "sha224",
                   "1.2.840.10045.4.3.2": "sha256", "1.2.840.10045.4.3.3": "sha384",
                   "1.2.840.10045.4.3.4": "sha512"})


def pem(label, der):
    body = base64.encodebytes(der).decode().strip()
    return ("-----BEGIN %s-----\n%s\n-----END %s-----\n" % (label, body, label)).encode()


class Dg14:
    """The parts of DG14 this terminal uses."""

    def __init__(self, data):
        self.protocol = self.key_id = self.spki = self.pk_oid = self.aa_oid = None
        outer = parse_tlvs(data)[0][1]                       # 6E
        for tag, info, _ in parse_tlvs(parse_tlvs(outer)[0][1]):   # SET OF SecurityInfo
            parts = parse_tlvs(info)
            oid = oid_text(parts[0][1])
            if oid.startswith("0.4.0.127.0.7.2.2.3.") and self.protocol is None:
                self.protocol = oid
                if len(parts) > 2:
                    self.key_id = int.from_bytes(parts[2][1], "big")
            elif oid in ("0.4.0.127.0.7.2.2.1.1", "0.4.0.127.0.7.2.2.1.2") and self.spki is None:
                self.pk_oid, self.spki = oid, parts[1][2]
            elif oid == "2.23.136.1.1.5" and len(parts) > 2:
                self.aa_oid = oid_text(parts[2][1])
        if self.protocol is None and self.pk_oid:            # no CAInfo: 3DES
            self.protocol = "0.4.0.127.0.7.2.2.3.%s.1" % self.pk_oid[-1]

    @property
    def cipher_arc(self):
        return int(self.protocol.split(".")[-1])


class OpenSslAgreement:
    """Ephemeral key pairs and ECDH with the OpenSSL command line."""

    def __init__(self, spki):
        self._tmp = tempfile.TemporaryDirectory(prefix="aa-ca-terminal-")   # removed with self
        self.dir = self._tmp.name
        alg = parse_tlvs(parse_tlvs(spki)[0][1])[0][1]
        alg_oid_raw, params = parse_tlvs(alg)[0][1], parse_tlvs(alg)[1]
        alg_oid = oid_text(alg_oid_raw)
        if alg_oid == "1.2.840.10045.2.1":                 # id-ecPublicKey: named or explicit
            ec_params, peer = params[2], spki
        elif alg_oid == "0.4.0.127.0.7.1.2":               # standardizedDomainParameters
            name = OPENSSL_CURVES[int.from_bytes(params[1], "big")]
            ec_params = subprocess.run(["openssl", "ecparam", "-name", name, "-outform", "DER"],
                                       capture_output=True, check=True).stdout
            point = parse_tlvs(parse_tlvs(spki)[0][1])[1][1]
            peer = tlv(0x30, tlv(0x30, tlv(0x06, oid_body("1.2.840.10045.2.1")) + ec_params)
                       + tlv(0x03, point))
        else:
            raise ValueError("the test terminal does ECDH only (DG14 key algorithm %s)" % alg_oid)
        self.params, self.peer = self._file("params.pem", pem("EC PARAMETERS", ec_params)), \
            self._file("peer.pem", pem("PUBLIC KEY", peer))
        self.count = 0

    def _file(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def _run(self, *args):
        return subprocess.run(["openssl", *args], capture_output=True, check=True).stdout

    def ephemeral(self, params=None):
        """(public point, shared secret with DG14's key) of a fresh key pair."""
        self.count += 1
        key = os.path.join(self.dir, "eph%d.pem" % self.count)
        self._run("genpkey", "-paramfile", params or self.params, "-out", key)
        spki = self._run("pkey", "-in", key, "-pubout", "-outform", "DER")
        point = parse_tlvs(parse_tlvs(spki)[0][1])[1][1][1:]
        secret = self._run("pkeyutl", "-derive", "-inkey", key, "-peerkey", self.peer) \
            if params is None else None
        return point, secret

    def foreign_point(self):
        """A valid point of another curve of the same size (prime256v1 / P-384 / ...)."""
        size = (len(self.ephemeral()[0]) - 1) // 2
        name = {24: "prime192v1", 28: "secp224r1", 32: "prime256v1", 48: "secp384r1",
                64: "brainpoolP512t1"}.get(size, "prime256v1")
        params = self._file("other.pem", self._run("ecparam", "-name", name))
        return self.ephemeral(params)[0]


def kdf(secret, counter, cipher_arc):
    if cipher_arc == 1:
        return bac.derive_key(secret, counter)              # SHA-1, 16 bytes, DES parity
    data = secret + counter.to_bytes(4, "big")
    if cipher_arc == 2:
        return hashlib.sha1(data).digest()[:16]
    return hashlib.sha256(data).digest()[:24 if cipher_arc == 3 else 32]


def verify_aa(dg15, challenge, signature, ecdsa_hash=None):
    """(ok, detail): the chip's INTERNAL AUTHENTICATE answer checked with DG15."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, rsa, utils
    from cryptography.hazmat.primitives.serialization import load_der_public_key
    key = load_der_public_key(parse_tlvs(dg15)[0][1])
    if isinstance(key, rsa.RSAPublicKey):
        numbers = key.public_numbers()
        k = (numbers.n.bit_length() + 7) // 8
        if len(signature) != k:
            return False, "signature of %d bytes, modulus %d" % (len(signature), k)
        m = pow(int.from_bytes(signature, "big"), numbers.e, numbers.n).to_bytes(k, "big")
        if m[0] != 0x6A:
            return False, "recovered message header %02X, not 6A" % m[0]
        if m[-1] == 0xBC:
            name, t = "sha1", 1
        elif m[-1] == 0xCC and m[-2] in HASH_IDS:
            name, t = HASH_IDS[m[-2]], 2
        else:
            return False, "no ISO/IEC 9796-2 trailer (%s)" % m[-2:].hex()
        h = hashlib.new(name)
        m1, digest = m[1:k - h.digest_size - t], m[k - h.digest_size - t:k - t]
        h.update(m1 + challenge)
        return h.digest() == digest, "RSA-%d ISO/IEC 9796-2, %s, |M1| = %d" % (
            8 * k, name.upper(), len(m1))
    if isinstance(key, ec.EllipticCurvePublicKey):
        name = ecdsa_hash or "sha256"
        half = len(signature) // 2
        der = utils.encode_dss_signature(int.from_bytes(signature[:half], "big"),
                                         int.from_bytes(signature[half:], "big"))
        try:
            key.verify(der, challenge, ec.ECDSA(getattr(hashes, name.upper())()))
            return True, "ECDSA %s %s" % (key.curve.name, name.upper())
        except InvalidSignature:
            return False, "ECDSA signature does not verify"
    return False, "DG15 key type not supported by the test terminal"


class Terminal:
    def __init__(self, reader):
        self.r = reader

    def read(self, fid, sfi):
        return self.r.read_short(fid, sfi)

    def internal_authenticate(self, challenge, ne=256, extended=False):
        return self.r.sm(0x88, 0, 0, challenge, ne=ne, extended=extended)

    def active_authentication(self, dg15, dg14=None):
        challenge = os.urandom(8)
        sig, sw = self.internal_authenticate(challenge)
        if sw != 0x9000:
            return False, "INTERNAL AUTHENTICATE -> %04X" % sw
        return verify_aa(dg15, challenge, sig, ECDSA_OIDS.get(dg14.aa_oid) if dg14 else None)

    def send_key(self, dg14, point, kat=None):
        """The CA command(s) carrying `point`; returns the last SW (keys not switched)."""
        key_id = tlv(0x84, dg14.key_id.to_bytes(1, "big")) if dg14.key_id is not None else b""
        if kat if kat is not None else dg14.cipher_arc == 1:
            _, sw = self.r.sm(0x22, 0x41, 0xA6, tlv(0x91, point) + key_id)
            return sw
        _, sw = self.r.sm(0x22, 0x41, 0xA4, tlv(0x80, oid_body(dg14.protocol)) + key_id)
        if sw != 0x9000:
            return sw
        data, sw = self.r.sm(0x86, 0, 0, tlv(0x7C, tlv(0x80, point)), ne=256)
        if sw == 0x9000 and data != b"\x7C\x00":
            raise AssertionError("GENERAL AUTHENTICATE answered %s, not 7C 00" % data.hex())
        return sw

    def chip_authentication(self, dg14, agreement):
        point, secret = agreement.ephemeral()
        sw = self.send_key(dg14, point)
        if sw == 0x9000:
            arc = dg14.cipher_arc
            self.r.keys = (kdf(secret, 1, arc), kdf(secret, 2, arc))
            self.r.cipher, self.r.ssc = ("3DES" if arc == 1 else "AES"), 0
        return sw


def read_everything(r, files, c, label):
    """SELECT the application and read every LDS file (short and extended reads)."""
    _, sw = r.sm(0xA4, 0x04, 0x0C, AID)
    ok, names = sw == 0x9000, []
    for name in ["COM"] + ["DG%d" % n for n in range(1, 17)] + ["SOD"]:
        if name not in files:
            continue
        fid, sfi, _ = FILES[name]
        names.append(name)
        try:
            ok = ok and r.read_short(fid, sfi) == files[name] and r.read_extended(fid) == files[name]
        except (SwError, AssertionError, TypeError) as e:
            ok = False
            print("    %s: %s" % (name, e))
    c.check(ok, "%s: %s read = dump" % (label, " ".join(names)))


# --- scenarios ---------------------------------------------------------------------------------
def run_fixture(t, files, mrz, c, opts):
    """BAC, AA, CA error cases, CA, everything read under the CA keys, AA again."""
    r = Reader(t)
    term = Terminal(r)
    r.plain(0xA4, 0x04, 0x0C, AID)
    _, sw = r.plain(0x88, 0, 0, os.urandom(8), ne=256)
    c.check(sw == 0x6982, "plain INTERNAL AUTHENTICATE before BAC -> 6982", "%04X" % sw)
    c.check(r.bac(mrz) == 0x9000, "BAC")
    dg14, dg15 = Dg14(term.read(0x010E, 14)), term.read(0x010F, 15)
    c.check(dg14.protocol == "0.4.0.127.0.7.2.2.3.2.2", "DG14: id-CA-ECDH-AES-CBC-CMAC-128")
    ok, detail = term.active_authentication(dg15, dg14)
    want = "SHA256" if "--aa-hash" in opts else "SHA1"
    c.check(ok and want in detail, "AA under BAC verifies", detail)
    _, sw = term.internal_authenticate(os.urandom(8), ne=127)
    c.check(sw == 0x6700 and r.keys, "AA with Le 127 < 128 -> 6700, session kept", "%04X" % sw)
    _, sw = term.internal_authenticate(os.urandom(7))
    c.check(sw == 0x6700, "AA with a 7-byte challenge -> 6700", "%04X" % sw)
    agreement = OpenSslAgreement(dg14.spki)
    _, sw = r.sm(0x86, 0, 0, tlv(0x7C, tlv(0x80, agreement.ephemeral()[0])), ne=256)
    c.check(sw == 0x6985, "GENERAL AUTHENTICATE without MSE:Set AT -> 6985", "%04X" % sw)
    point = agreement.ephemeral()[0]
    bad = point[:-1] + bytes([point[-1] ^ 1])
    c.check(term.send_key(dg14, bad) == 0x6A80, "CA with a point off the curve -> 6A80")
    c.check(term.send_key(dg14, agreement.foreign_point()) == 0x6A80,
            "CA with a point of another curve (same size) -> 6A80")
    c.check(term.send_key(dg14, point, kat=True) == 0x6A80,
            "MSE:Set KAT when only AES CA is offered -> 6A80")
    c.check(term.read(0x011E, 0x1E) == files["COM"], "old keys still work after the refusals")
    _, sw = r.sm(0x22, 0x41, 0xA4, tlv(0x80, oid_body(dg14.protocol)) + tlv(0x84, b"\x05"))
    c.check(sw == 0x6A88, "MSE:Set AT with an unknown keyId -> 6A88", "%04X" % sw)
    t0 = time.monotonic()
    sw = term.chip_authentication(dg14, agreement)
    c.check(sw == 0x9000, "CA (MSE:Set AT + GENERAL AUTHENTICATE) in %.3fs" %
            (time.monotonic() - t0), "%04X" % sw)
    read_everything(r, files, c, "under the CA keys (AES-128)")
    ok, detail = term.active_authentication(dg15, dg14)
    c.check(ok, "AA under the CA keys verifies", detail)
    c.check(term.send_key(dg14, agreement.ephemeral()[0]) == 0x6985,
            "second CA in the same session -> 6985")
    data, sw = r.sm(0xB0, 0, 0, ne=8, tamper=True)
    c.check(data is None and sw == 0x6988, "wrong MAC under the CA keys -> plain 6988", "%04X" % sw)


def run_bsi(t, files, mrz, c, opts):
    r = Reader(t)
    term = Terminal(r)
    r.plain(0xA4, 0x04, 0x0C, AID)
    c.check(r.bac(mrz) == 0x9000, "BAC")
    dg14, dg15 = Dg14(term.read(0x010E, 14)), term.read(0x010F, 15)
    c.check(dg14.protocol == "0.4.0.127.0.7.2.2.3.2.1", "DG14: id-CA-ECDH-3DES-CBC-CBC")
    ok, detail = term.active_authentication(dg15, dg14)
    c.check(ok, "AA under BAC verifies", detail)
    agreement = OpenSslAgreement(dg14.spki)
    point = agreement.ephemeral()[0]
    c.check(term.send_key(dg14, point[:-1] + bytes([point[-1] ^ 1])) == 0x6A80,
            "MSE:Set KAT with a point off the curve -> 6A80")
    sw = term.chip_authentication(dg14, agreement)
    c.check(sw == 0x9000, "CA with MSE:Set KAT (explicit brainpoolP224r1 parameters)", "%04X" % sw)
    read_everything(r, files, c, "under the CA keys (3DES)")
    ok, detail = term.active_authentication(dg15, dg14)
    c.check(ok, "AA under the CA keys verifies", detail)


def run_bad_signature(t, files, mrz, c, opts):
    r = Reader(t)
    term = Terminal(r)
    r.plain(0xA4, 0x04, 0x0C, AID)
    r.bac(mrz)
    dg14, dg15 = Dg14(term.read(0x010E, 14)), term.read(0x010F, 15)
    ok, detail = term.active_authentication(dg15, dg14)
    c.check(not ok, "--aa-bad-signature: AA does not verify", detail)
    c.check(term.chip_authentication(dg14, OpenSslAgreement(dg14.spki)) == 0x9000 and
            term.read(0x0101, 1) == files["DG1"], "CA and DG1 still fine")


def run_wrong_key(t, files, mrz, c, opts):
    r = Reader(t)
    term = Terminal(r)
    r.plain(0xA4, 0x04, 0x0C, AID)
    r.bac(mrz)
    dg14 = Dg14(term.read(0x010E, 14))
    sw = term.chip_authentication(dg14, OpenSslAgreement(dg14.spki))
    c.check(sw == 0x9000, "--ca-wrong-key: the CA command itself succeeds (old keys)", "%04X" % sw)
    data, sw = r.sm(0xB0, 0x81, 0, ne=4)
    c.check(data is None and sw == 0x6988,
            "next command under the derived keys -> plain 6988 (chip's MAC check fails)",
            "%04X" % sw)
    r.plain(0xA4, 0x04, 0x0C, AID)
    c.check(r.bac(mrz) == 0x9000 and term.read(0x0101, 1) == files["DG1"],
            "BAC again works after the failed CA")


def run_pace(t, files, mrz, c, opts):
    from vpassport import openpace, pace
    from pace_terminal import MRZ
    if not openpace.available():
        print("  skipped: OpenPACE is not installed")
        return
    r = Reader(t)
    term = Terminal(r)
    r.pace(pace.profile_from_options(), MRZ, mrz)
    _, sw = r.sm(0xA4, 0x04, 0x0C, AID)
    dg14, dg15 = Dg14(term.read(0x010E, 14)), term.read(0x010F, 15)
    c.check(term.active_authentication(dg15, dg14)[0], "AA under PACE (AES SM) verifies")
    sw = term.chip_authentication(dg14, OpenSslAgreement(dg14.spki))
    c.check(sw == 0x9000, "CA under PACE (response wrapped with the PACE keys)", "%04X" % sw)
    read_everything(r, files, c, "after PACE, under the CA keys")


SCENARIOS = {      # name: (dump, MRZ, launcher options, test)
    "fixture": (FIXTURE, FIXTURE_MRZ, [], run_fixture),
    "fixture-sha256": (FIXTURE, FIXTURE_MRZ, ["--aa-hash", "sha256"], run_fixture),
    "bsi": (BSI_DUMP, BSI_MRZ, ["--aa-key", os.path.join(BSI_DUMP, "DG15_sk.pkcs8"),
                                "--ca-key", os.path.join(BSI_DUMP, "DG14_sk.pkcs8")], run_bsi),
    "bsi-auto-keys": (BSI_DUMP, BSI_MRZ, [], run_bsi),
    "aa-bad-signature": (FIXTURE, FIXTURE_MRZ, ["--aa-bad-signature"], run_bad_signature),
    "ca-wrong-key": (FIXTURE, FIXTURE_MRZ, ["--ca-wrong-key"], run_wrong_key),
    "pace-ca": (FIXTURE, FIXTURE_MRZ, ["--pace"], run_pace),
}


def launch(*args):
    p = subprocess.run([LAUNCHER, *args], capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def refusals(c):
    """Keys that do not match DG14/DG15 are refused at start (exit 2)."""
    pki = os.path.join(ROOT, "Fixtures", "pki")
    cases = [(["--aa-key", os.path.join(pki, "TEST-ONLY-dsc-UTO.key.pem")], "Active Authentication"),
             (["--ca-key", os.path.join(pki, "TEST-ONLY-dsc-UTO-p256.key.pem")], "Chip Authentication")]
    if os.path.isdir(BSI_DUMP):
        cases.append((["--ca-key", os.path.join(BSI_DUMP, "DG14_sk.pkcs8")], "Chip Authentication"))
    for opts, what in cases:
        rc, out = launch("start", FIXTURE, *opts)
        c.check(rc == 2 and "does not match" in out and what in out,
                "start with a foreign %s key -> exit 2" % what, out.splitlines()[-1] if out else "")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--slot", type=int, default=int(os.environ.get("VIRTUAL_PASSPORT_SLOT", "1")),
                   help="vpcd slot (default 1, or $VIRTUAL_PASSPORT_SLOT)")
    p.add_argument("--scenario", action="append", choices=list(SCENARIOS) + ["refusals"])
    p.add_argument("--list", action="store_true")
    args = p.parse_args()
    if args.list:
        print("\n".join(list(SCENARIOS) + ["refusals"]))
        return 0
    os.environ["VIRTUAL_PASSPORT_SLOT"] = str(args.slot)
    c = Checker()
    for name in args.scenario or list(SCENARIOS) + ["refusals"]:
        print("== %s" % name)
        if name == "refusals":
            refusals(c)
            continue
        dump, mrz, opts, test = SCENARIOS[name]
        if not os.path.isdir(dump):
            print("  skipped: %s is absent" % dump)
            continue
        rc, out = launch("start", dump, *opts)
        print("$ virtual-passport --slot %d start %s %s -> %d: %s" % (
            args.slot, os.path.relpath(dump, ROOT), " ".join(opts), rc, out))
        if rc:
            c.check(False, "start")
            continue
        t = PcscTransport()
        try:
            test(t, load_dump(dump), mrz, c, opts)
        finally:
            t.close()
    launch("eject")
    print("%d failure(s)" % c.failures)
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
