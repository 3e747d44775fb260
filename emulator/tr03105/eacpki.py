"""TEST-ONLY CV certificates for the terminal-authentication cases of TR-03105 Part 5.1 (ISO7816_E,
LDS_D, LDS_E, LDS_G), made at case-build time in the case's folder with OpenPACE's `cvc-create`
(as fixturegen/eac.py makes Fixtures/pki/eac), so that Fixtures/ stays as it is.

The plan's chain CVCA_Cert_NN -> DV_Cert_NN -> IS_Cert_NN becomes a Utopia ("UT") chain:
`UTTRCVCA000NN` (the chip's trust point, named by EF.CVCA), `UTTRDV000NN`, `UTTRIS000NN`, with the
plan's dates relative to dCVCAeff (D0 below; the chip's date is EF.SOD's signing time 2024-09-30
of Fixtures/passport-eac unless --eac-date says otherwise). Keys: brainpoolP256r1 for ECDSA (the
plan's 256 bits), RSA 1024 for RSA (the plan's key size), new for every case folder.
"""
from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess

from fixturegen import cvc
from fixturegen.cvc import READ_DG3, READ_DG4, ROLE_CVCA, ROLE_DV_DOMESTIC, ROLE_IS

BOTH = READ_DG3 | READ_DG4
NONE = 0
D0 = dt.date(2024, 9, 20)                 # dCVCAeff
ONE_MONTH = dt.date(2024, 10, 20)         # dCVCAeff + 1 month (the plan's CVCA expiry)
EC, RSA = "ec-brainpoolP256r1", "rsa-1024"

# TA scheme -> (cvc-create --scheme, key kind)
SCHEMES = {
    "RSA_v1_5_SHA_1": RSA, "RSA_v1_5_SHA_256": RSA, "RSA_v1_5_SHA_512": RSA,
    "RSA_PSS_SHA_1": RSA, "RSA_PSS_SHA_256": RSA, "RSA_PSS_SHA_512": RSA,
    "ECDSA_SHA_1": EC, "ECDSA_SHA_224": EC, "ECDSA_SHA_256": EC, "ECDSA_SHA_384": EC, "ECDSA_SHA_512": EC,
}


def available():
    return shutil.which("cvc-create") is not None


class Pki:
    """Certificates made in `folder`/pki: {CHR: DER}, their key files, and terminal folders."""

    def __init__(self, folder):
        self.dir = os.path.join(folder, "pki")
        os.makedirs(self.dir, exist_ok=True)
        self.certs, self.key_files = {}, {}

    def path(self, chr):
        return os.path.join(self.dir, chr + ".cvcert")

    def issue(self, chr, role, *, scheme="ECDSA_SHA_256", rights=BOTH, effective=D0, expiration=ONE_MONTH,
              issuer=None, kind=None):
        """A certificate for a new key of the scheme's kind (or `kind`), signed by `issuer` (None: self-signed)."""
        key_file = os.path.join(self.dir, chr + ".pkcs8")
        cvc.load_or_create_key(key_file, kind or SCHEMES[scheme], False, log=lambda *_: None)
        out = os.path.join(self.dir, chr + ".cvcert")
        args = ["cvc-create", "--role=" + cvc.CVC_CREATE_ROLE[role], "--type=is", "--chr=" + chr,
                "--issued=" + cvc.yymmdd(effective), "--expires=" + cvc.yymmdd(expiration),
                "--sign-with=" + (self.key_files[issuer] if issuer else key_file), "--key=" + key_file,
                "--scheme=" + scheme, "--out-cert=" + out, "--out-key=" + os.path.join(self.dir, chr + ".out.pkcs8")]
        if rights & READ_DG3:
            args.append("--read-finger")
        if rights & READ_DG4:
            args.append("--read-iris")
        if issuer:
            args.append("--sign-as=" + self.path(issuer))
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("cvc-create failed for %s: %s" % (chr, (r.stdout + r.stderr).strip()))
        with open(out, "rb") as f:
            self.certs[chr] = f.read()
        self.key_files[chr] = key_file
        return self.certs[chr]

    def chain(self, n, scheme="ECDSA_SHA_256", *, dv_rights=BOTH, is_rights=BOTH, is_expiration=ONE_MONTH,
              dv_chr=None, is_chr=None, cvca=None, is_kind=None):
        """CVCA UTTRCVCA000nn (unless `cvca` names one made already) -> DV -> IS; returns the CHRs."""
        cvca = cvca or "UTTRCVCA%05d" % n
        if cvca not in self.certs:
            self.issue(cvca, ROLE_CVCA, scheme=scheme)
        dv = dv_chr or "UTTRDV%05d" % n
        is_ = is_chr or "UTTRIS%05d" % n
        self.issue(dv, ROLE_DV_DOMESTIC, scheme=scheme, rights=dv_rights, issuer=cvca)
        self.issue(is_, ROLE_IS, scheme=scheme, rights=is_rights, expiration=is_expiration, issuer=dv, kind=is_kind)
        return cvca, dv, is_

    def terminal(self, name, chrs, *, key_of, corrupt=None):
        """A terminal folder for `passport scan --eac`: the certificates `chrs` and the private
        key of `key_of` (the IS); `corrupt`: the CHR whose signature's last byte is changed."""
        folder = os.path.join(self.dir, "..", name)
        os.makedirs(folder, exist_ok=True)
        for chr in chrs:
            data = self.certs[chr]
            if chr == corrupt:
                data = data[:-1] + bytes([data[-1] ^ 0xFF])
            with open(os.path.join(folder, chr + ".cvcert"), "wb") as f:
                f.write(data)
        shutil.copy(self.key_files[key_of], os.path.join(folder, key_of + ".pkcs8"))
        return os.path.abspath(folder)
