"""A case's dump folder: a copy of a fixture passport whose files a case changes, with EF.SOD
signed again by a TEST-ONLY Document Signer when the data groups change."""
from __future__ import annotations

import os
import re

from cryptography.hazmat.primitives.serialization import load_pem_private_key

from fixturegen import lds, sod, x509
from fixturegen.x509 import RSA_SHA256, Scheme, utc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Fixtures")
PKI = os.path.join(FIXTURES, "pki")
SIGNING_TIME = utc(2024, 9, 30, 10, 0, 0)       # the fixtures' own (fixturegen.generate)
CSCA = os.path.join(PKI, "TEST-ONLY-csca-UTO.pem")

# The schemes of the TEST-ONLY Document Signers in Fixtures/pki.
SIGNERS = {
    "dsc-UTO": RSA_SHA256,
    "dsc-UTO-rsapss": Scheme("rsa-pss", "sha256", salt=32),
    "dsc-UTO-p256": Scheme("ecdsa", "sha256"),
    "dsc-UTO-bp384": Scheme("ecdsa", "sha384"),
    "dsc-UTO-expired": RSA_SHA256,
    "dsc-UTO-revoked": RSA_SHA256,
}


def pki(name):
    return os.path.join(PKI, "TEST-ONLY-%s" % name)


def signer(name):
    """(certificate DER, private key) of a TEST-ONLY signer, e.g. "dsc-UTO"."""
    with open(pki(name + ".pem"), "rb") as f:
        cert = x509.from_pem(f.read())
    with open(pki(name + ".key.pem"), "rb") as f:
        key = load_pem_private_key(f.read(), password=None)
    return cert, key


class DataSet:
    """Files by logical name (COM, DG1 … DG16, SOD, CVCA, CardAccess, CardSecurity), read from
    a fixture passport folder; `write` puts them in `folder` with its mrz.txt."""

    def __init__(self, base="passport"):
        self.base = os.path.join(FIXTURES, base)
        self.files = {}
        for name in os.listdir(self.base):
            if name.endswith(".bin"):
                with open(os.path.join(self.base, name), "rb") as f:
                    self.files[name[:-4]] = f.read()
        with open(os.path.join(self.base, "mrz.txt")) as f:
            self.mrz = f.read()

    def data_groups(self):
        return {int(m.group(1)): data for name, data in self.files.items()
                if (m := re.fullmatch(r"DG(\d+)", name))}

    def com(self, tags, lds_version="0107", unicode_version="040000"):
        """EF.COM listing these data-group tags (e.g. [0x61, 0x75])."""
        self.files["COM"] = lds.ef_com(lds_version, unicode_version, list(tags))
        return self

    def resign(self, signer_name="dsc-UTO", h="sha256", dg_files=None, scheme=None):
        """EF.SOD over the data groups as they are now (or `dg_files`), signed by `signer_name`."""
        cert, key = signer(signer_name)
        self.files["SOD"] = sod.ef_sod(h=h, dg_files=dg_files if dg_files is not None else self.data_groups(),
                                       dsc=cert, dsc_key=key, scheme=scheme or SIGNERS[signer_name],
                                       signing_time=SIGNING_TIME)
        return self

    def write(self, folder):
        os.makedirs(folder, exist_ok=True)
        for name, data in self.files.items():
            with open(os.path.join(folder, name + ".bin"), "wb") as f:
                f.write(data)
        with open(os.path.join(folder, "mrz.txt"), "w") as f:
            f.write(self.mrz)
        return folder
