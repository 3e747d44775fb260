"""ISO7816_B: Basic Access Control and secure messaging (moved to ICAO P4 ISO7816_B / ISO7816_D /
LDS_D_32 in v1.5: titles only). The secure-messaging faults act on every protected response to a
READ BINARY of DG1 (`:always`), so a reader that re-establishes the session meets them again."""
import os

from ..dataset import PKI, DataSet
from ..plan import FAILED, Config, case
from ..runner import CSCA


def _fault(work, *chip):
    return Config(DataSet("passport").write(work + "/dump"), chip=list(chip))


@case("ISO7816_B_01", "Mutual authentication MAC failure", FAILED, "access", inferred=True,
      deviation="MUTUAL AUTHENTICATE answered 9000 with M_ICC corrupted (--quirk mutual-auth-corrupt:mac)")
def b01(work):
    return _fault(work, "--quirk", "mutual-auth-corrupt:mac")


@case("ISO7816_B_02", "Mutual authentication encryption failure", FAILED, "access", inferred=True,
      deviation="MUTUAL AUTHENTICATE answered 9000 with E_ICC corrupted and a valid M_ICC over it "
                "(--quirk mutual-auth-corrupt:cryptogram)")
def b02(work):
    return _fault(work, "--quirk", "mutual-auth-corrupt:cryptogram")


@case("ISO7816_B_03", "Mutual authentication failure", FAILED, "access", inferred=True,
      deviation="MUTUAL AUTHENTICATE answered 6300 (--quirk mutual-auth-error:6300)")
def b03(work):
    return _fault(work, "--quirk", "mutual-auth-error:6300")


@case("ISO7816_B_04", "SM failure returned by MRTD", FAILED, "sm", inferred=True,
      deviation="every READ BINARY of DG1 answered with a plain 6988 (--fault status:6988@DG1/any:always)")
def b04(work):
    return _fault(work, "--fault", "status:6988@DG1/any:always")


@case("ISO7816_B_05", "SM failure – MAC missing", FAILED, "sm", inferred=True,
      deviation="protected responses to READ BINARY of DG1 without DO'8E' (--fault no-mac@DG1/any:always)")
def b05(work):
    return _fault(work, "--fault", "no-mac@DG1/any:always")


@case("ISO7816_B_06", "SM failure – cryptogram missing", FAILED, "sm", inferred=True,
      deviation="protected responses to READ BINARY of DG1 without DO'87', MAC over the rest "
                "(--fault no-cryptogram@DG1/any:always)")
def b06(work):
    return _fault(work, "--fault", "no-cryptogram@DG1/any:always")


@case("ISO7816_B_07", "SM failure – secured status bytes missing", FAILED, "sm", inferred=True,
      deviation="protected responses to READ BINARY of DG1 without DO'99', MAC over the rest "
                "(--fault no-status@DG1/any:always)")
def b07(work):
    return _fault(work, "--fault", "no-status@DG1/any:always")


@case("ISO7816_B_08", "SM failure – incorrect MAC", FAILED, "sm", inferred=True,
      deviation="protected responses to READ BINARY of DG1 with a wrong DO'8E' (--fault bad-mac@DG1/any:always)")
def b08(work):
    return _fault(work, "--fault", "bad-mac@DG1/any:always")


@case("ISO7816_B_09", "SM failure – incorrect cryptogram", FAILED, "sm", inferred=True,
      deviation="protected responses to READ BINARY of DG1 whose cryptogram decrypts to broken padding, "
                "with a valid MAC over it (--fault bad-cryptogram@DG1/any:always)")
def b09(work):
    return _fault(work, "--fault", "bad-cryptogram@DG1/any:always")


@case("ISO7816_B_10", "Passive Authentication with revocation list", FAILED, "pa", inferred=True,
      deviation="EF.SOD signed by dsc-UTO-revoked, which the CSCA's CRL (given to the scan) lists as revoked")
def b10(work):
    ds = DataSet("passport").resign("dsc-UTO-revoked")
    return Config(ds.write(work + "/dump"),
                  trust=["--csca", CSCA, "--crl", os.path.join(PKI, "TEST-ONLY-csca-UTO.crl")])
