"""LDS_I: EF.DG15 (full text in v1.5; profile AIP, which we claim). CFG.EAC.LDS.I01-I03: EF.DG15
changed, EF.SOD re-signed; expected "MRTD inspection procedure failed". The plan's RSA key with
SHA-224 is replaced by the fixture's RSA-1024 Active Authentication key."""
from ..dataset import DataSet
from ..plan import FAILED, Config, case


def _dg15(work, change):
    ds = DataSet("passport")
    ds.files["DG15"] = change(ds.files["DG15"])
    return Config(ds.resign().write(work + "/dump"))


@case("LDS_I_01", "DG tag 6F wrong (use tag 70 instead)", FAILED, "format",
      deviation="EF.DG15's outer tag 70 instead of 6F, EF.SOD re-signed")
def i01(work):
    return _dg15(work, lambda d: b"\x70" + d[1:])


@case("LDS_I_02", "DG tag length too small", FAILED, "format",
      deviation="EF.DG15's outer length one less than its content (6F 81 A1 for A2), EF.SOD re-signed "
                "(the plan's bytes also change the tag to 67; we keep 6F so only the length is wrong)")
def i02(work):
    return _dg15(work, lambda d: d[:2] + bytes([d[2] - 1]) + d[3:])


@case("LDS_I_03", "DG tag length too big", FAILED, "format",
      deviation="EF.DG15's outer length one more than its content (6F 81 A3 for A2), EF.SOD re-signed "
                "(the plan's bytes also change the tag to 67; we keep 6F so only the length is wrong)")
def i03(work):
    return _dg15(work, lambda d: d[:2] + bytes([d[2] + 1]) + d[3:])
