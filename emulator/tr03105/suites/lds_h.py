"""LDS_H: EF.SOD, passive authentication and the Document Signer certificate."""
from ..dataset import DataSet
from ..plan import FAILED, SUCCESSFUL, Config, case


@case("LDS_H_01", "SOD with SHA-256 and RSA PKCS#1 v1.5 (example)", SUCCESSFUL, deviation="the fixture's own EF.SOD")
def h01(work):
    return Config(DataSet("passport").write(work + "/dump"))


@case("LDS_H_99", "DG1 hash mismatch (example)", FAILED, "pa", deviation="one byte of DG1's hash in EF.SOD")
def h99(work):
    ds = DataSet("passport")
    dgs = ds.data_groups()
    dgs[1] = dgs[1][:-1] + bytes([dgs[1][-1] ^ 1])
    return Config(ds.resign(dg_files=dgs).write(work + "/dump"))
