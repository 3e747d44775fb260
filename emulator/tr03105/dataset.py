"""A case's dump folder: a copy of a fixture passport whose files a case changes, with EF.SOD
signed again by a TEST-ONLY Document Signer when the data groups change."""
from __future__ import annotations

import os
import re

from fixturegen import lds, sod
from fixturegen.testsigners import PKI, SCHEMES as SIGNERS, SIGNING_TIME, pki_path as pki, signer  # noqa: F401 (PKI: for the suites)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "Fixtures")
CSCA = pki("csca-UTO.pem")


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
