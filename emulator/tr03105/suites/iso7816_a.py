"""ISO7816_A: application selection (moved to ICAO P4 ISO7816_A in v1.5: titles only)."""
from ..dataset import DataSet
from ..plan import FAILED, SUCCESSFUL, Config, case


@case("ISO7816_A_01", "Positive test with unprotected MRTD", SUCCESSFUL, inferred=True,
      deviation="a plain chip (--quirk no-access-control): COM, DGs and SOD readable without BAC, "
                "MUTUAL AUTHENTICATE not supported (6D00)")
def a01(work):
    return Config(DataSet("passport").write(work + "/dump"), chip=["--quirk", "no-access-control"])


@case("ISO7816_A_02", "Positive test with BAC MRTD", SUCCESSFUL, inferred=True, deviation="the default BAC chip")
def a02(work):
    return Config(DataSet("passport").write(work + "/dump"))


@case("ISO7816_A_03", "Application selection failure", FAILED, "application", inferred=True,
      deviation="SELECT of the eMRTD application answered 6A82 (--quirk app-refused:6A82)")
def a03(work):
    return Config(DataSet("passport").write(work + "/dump"), chip=["--quirk", "app-refused:6A82"])
