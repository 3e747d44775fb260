"""ISO7816_A: application selection (moved to ICAO P4 ISO7816_A in v1.5: titles only)."""
from ..dataset import DataSet
from ..plan import FAILED, SUCCESSFUL, Config, case, left


left("ISO7816_A_01", "Positive test with unprotected MRTD", SUCCESSFUL, inferred=True,
     reason="a chip without access control: neither the virtual passport nor `passport scan` (which always runs BAC or PACE) has such a mode yet")


@case("ISO7816_A_02", "Positive test with BAC MRTD", SUCCESSFUL, inferred=True, deviation="the default BAC chip")
def a02(work):
    return Config(DataSet("passport").write(work + "/dump"))


@case("ISO7816_A_03", "Application selection failure", FAILED, "application", inferred=True,
      deviation="SELECT of the eMRTD application answered 6A82")
def a03(work):
    return Config(DataSet("passport").write(work + "/dump"), chip=["--quirk", "app-refused:6A82"])
