"""ISO7816_C: reading binary files (moved to ICAO P4 ISO7816_F in v1.5: titles only)."""
from fixturegen import lds, portrait

from ..dataset import DataSet
from ..plan import EITHER, FAILED, SUCCESSFUL, Config, case

LARGE_DG2 = 40000                   # bytes: offsets beyond 7FFF need READ BINARY with odd INS


def _dg2(jpeg):
    (lx, ly), (rx, ry) = portrait.eye_centres()
    return lds.dg2(lds.facial_record(jpeg=jpeg, width=portrait.WIDTH, height=portrait.HEIGHT, gender="F",
                                     eye="green", hair="brown", feature_points=[(12, 1, lx, ly), (12, 2, rx, ry)]))


def large_dataset():
    """The default data set with a DG2 of about 40 000 bytes (a JPEG of higher quality), re-signed."""
    image = portrait.draw()
    jpeg = portrait.jpeg_near(image, LARGE_DG2)[0]
    quality = 95
    while len(jpeg) < LARGE_DG2 and quality < 100:          # the portrait is small: raise quality
        quality += 1
        jpeg = portrait.jpeg(image, quality)
    ds = DataSet("passport")
    ds.files["DG2"] = _dg2(jpeg)
    if len(ds.files["DG2"]) <= 32767:
        image = image.resize((image.width * 2, image.height * 2))
        ds.files["DG2"] = _dg2(portrait.jpeg_near(image, LARGE_DG2)[0])
    assert len(ds.files["DG2"]) > 32767, len(ds.files["DG2"])
    return ds.resign()


@case("ISO7816_C_01", "File selection failure", FAILED, "format", inferred=True,
      deviation="DG2 (mandatory) listed in EF.COM and hashed in EF.SOD, but the chip holds no DG2 "
                "(SELECT and READ BINARY answer 6A82): the document is incomplete and must not be "
                "reported as read and verified")
def c01(work):
    ds = DataSet("passport")
    ds.files.pop("DG2")
    return Config(ds.write(work + "/dump"))


@case("ISO7816_C_02", "Reading large files", SUCCESSFUL, inferred=True,
      deviation="DG2 of more than 32 767 bytes, EF.SOD re-signed")
def c02(work):
    return Config(large_dataset().write(work + "/dump"))


@case("ISO7816_C_03", "Reading beyond EOF", SUCCESSFUL, inferred=True,
      deviation="the chip's own end of file: an offset at or past the end answered 6B00, a read "
                "crossing it the rest with 6282; short APDUs only (--no-extended-length)")
def c03(work):
    return Config(DataSet("passport").write(work + "/dump"), chip=["--no-extended-length"])


@case("ISO7816_C_04", "Reading end of file with status word 6B00", SUCCESSFUL, inferred=True,
      deviation="a READ BINARY whose Le goes beyond the end answered 6B00 without data "
                "(--quirk eof-answer:6B00), short APDUs only")
def c04(work):
    return Config(DataSet("passport").write(work + "/dump"),
                  chip=["--no-extended-length", "--quirk", "eof-answer:6B00"])


@case("ISO7816_C_05", "Reading end of file with status word 6282", SUCCESSFUL, inferred=True,
      deviation="a READ BINARY whose Le goes beyond the end answered with the rest and 6282 "
                "(the chip's default), short APDUs only")
def c05(work):
    return Config(DataSet("passport").write(work + "/dump"), chip=["--no-extended-length"])


@case("ISO7816_C_06", "Reading end of file with status word 6Cxx", SUCCESSFUL, inferred=True,
      deviation="a READ BINARY whose Le goes beyond the end answered 6Cxx (xx = the bytes left) "
                "without data (--quirk eof-answer:6CXX), short APDUs only")
def c06(work):
    return Config(DataSet("passport").write(work + "/dump"),
                  chip=["--no-extended-length", "--quirk", "eof-answer:6CXX"])


@case("ISO7816_C_07", "Reading file with OddIns", SUCCESSFUL, inferred=True,
      deviation="DG2 of more than 32 767 bytes read with short APDUs (--no-extended-length): the "
                "offsets beyond 7FFF need READ BINARY with odd INS (B1, DO'54')")
def c07(work):
    return Config(large_dataset().write(work + "/dump"), chip=["--no-extended-length"])


@case("ISO7816_C_08", "Reading DG2 with image size 0", EITHER, inferred=True,
      deviation="DG2's facial record holds an image of 0 bytes, EF.SOD re-signed; whether that "
                "fails belongs to the DG2/ISO 19794-5 profile, which we do not claim: the reader "
                "must end with a verdict (no crash or hang)")
def c08(work):
    ds = DataSet("passport")
    ds.files["DG2"] = _dg2(b"")
    return Config(ds.resign().write(work + "/dump"))
