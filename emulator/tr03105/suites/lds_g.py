"""LDS_G: EF.CVCA (BSI only). The default EAC chip of ISO7816_E (Fixtures/passport-eac with a
TEST-ONLY chain UTTRCVCA00001 -> DV -> IS made by cvc-create) with EF.CVCA changed; the chip's
trust point is given with --eac-trust-point, so that EF.CVCA is served as it is."""
from der import tlv

from ..dataset import DataSet
from ..plan import FAILED, case
from .iso7816_e import eac_chip


@case("LDS_G_01", "First CAR not encoded by tag 42", FAILED, "ta",
      deviation="EF.CVCA's first CAR UTTRCVCA00001 encoded with tag 00 instead of 42, then 00 padding; the "
                "chip's trust point is UTTRCVCA00001")
def g01(work):
    config, pki, (cvca, dv, is_) = eac_chip(work)
    ds = DataSet("passport-eac")
    data = tlv(0x00, cvca.encode("latin-1"))
    ds.files["CVCA"] = data + bytes(36 - len(data))
    config.dump = ds.write(work + "/dump")
    config.chip = ["--eac-trust-point", pki.path(cvca)]
    return config


@case("LDS_G_02", "Missing CARs, file empty, no trust point implemented", FAILED, "ta",
      deviation="EF.CVCA is 36 bytes 00 (no CAR) and the chip has no trust point (--eac-trust-point none)")
def g02(work):
    config = eac_chip(work)[0]
    ds = DataSet("passport-eac")
    ds.files["CVCA"] = bytes(36)
    config.dump = ds.write(work + "/dump")
    config.chip = ["--eac-trust-point", "none"]
    return config
