"""LDS_K: EF.ATR/INFO (full text in v1.5; profile AIP, which we claim). CFG.EAC.LDS.K01-K04 add
EF.ATR/INFO (MF, FID 2F01) to the default chip; the chip serves it with --quirk atr-info."""
from ..dataset import DataSet
from ..plan import FAILED, SUCCESSFUL, Config, case


def _atr_info(work, content):
    return Config(DataSet("passport").write(work + "/dump"), chip=["--quirk", "atr-info:" + content])


@case("LDS_K_01", "Valid encoding with two bytes length for APDU", SUCCESSFUL,
      deviation="EF.ATR/INFO 7F66 08 0202 0780 0202 0780 (extended length info, two-byte lengths)")
def k01(work):
    return _atr_info(work, "7F66080202078002020780")


@case("LDS_K_02", "Valid encoding with three bytes length for APDU", SUCCESSFUL,
      deviation="EF.ATR/INFO 7F66 0A 0203 000780 0203 000780 (three-byte lengths; the plan gives no bytes)")
def k02(work):
    return _atr_info(work, "7F660A020300078002030007 80".replace(" ", ""))


@case("LDS_K_03", "Only one valid value for command length", FAILED, "format",
      deviation="EF.ATR/INFO 7F66 04 0202 0780 (one length only)")
def k03(work):
    return _atr_info(work, "7F66040202078 0".replace(" ", ""))


@case("LDS_K_04", "Wrong tag 7F66", FAILED, "format",
      deviation="EF.ATR/INFO 7F65 08 0202 0780 0202 0780, no 7F66")
def k04(work):
    return _atr_info(work, "7F65080202078002020780")
