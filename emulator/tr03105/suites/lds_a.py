"""LDS_A: EF.COM (moved to ICAO P4 LDS_A in v1.5: titles only). EF.COM is not covered by EF.SOD,
so the changes need no re-signing. A broken or incomplete EF.COM is a format fault the reader
must report (it may still read the data groups EF.SOD lists); version values it does not know
are no reason to reject the document."""
from der import tlv

from ..dataset import DataSet
from ..plan import FAILED, SUCCESSFUL, Config, case

TAGS = bytes([0x61, 0x75, 0x6B, 0x6C, 0x6E, 0x6F])      # the fixture's data groups


def com(lds=b"0107", unicode=b"040000", tags=TAGS, outer=0x60):
    body = b""
    if lds is not None:
        body += tlv(0x5F01, lds)
    if unicode is not None:
        body += tlv(0x5F36, unicode)
    if tags is not None:
        body += tlv(0x5C, tags)
    return tlv(outer, body)


def _com(work, data):
    ds = DataSet("passport")
    ds.files["COM"] = data
    return Config(ds.write(work + "/dump"))


@case("LDS_A_01", "DG tag 60 wrong (use tag 61 instead)", FAILED, "format", inferred=True,
      deviation="EF.COM's outer tag 61")
def a01(work):
    return _com(work, com(outer=0x61))


@case("LDS_A_02", "DG tag 60 length byte too small", FAILED, "format", inferred=True,
      deviation="EF.COM's outer length one less than its content")
def a02(work):
    data = com()
    return _com(work, data[:1] + bytes([data[1] - 1]) + data[2:])


@case("LDS_A_03", "DG tag 60 length byte too big", FAILED, "format", inferred=True,
      deviation="EF.COM's outer length one more than its content")
def a03(work):
    data = com()
    return _com(work, data[:1] + bytes([data[1] + 1]) + data[2:])


@case("LDS_A_04", "Incorrect LDS version (use V3.0 instead)", SUCCESSFUL, inferred=True,
      deviation="EF.COM LDS version 0300")
def a04(work):
    return _com(work, com(lds=b"0300"))


@case("LDS_A_05", "Missing LDS version", FAILED, "format", inferred=True,
      deviation="EF.COM without DO'5F01' (mandatory in EF.COM, 9303-10)")
def a05(work):
    return _com(work, com(lds=None))


@case("LDS_A_06", "Incorrect Unicode version (use V05.00.00 instead)", SUCCESSFUL, inferred=True,
      deviation="EF.COM Unicode version 050000")
def a06(work):
    return _com(work, com(unicode=b"050000"))


@case("LDS_A_07", "Missing Unicode version", FAILED, "format", inferred=True,
      deviation="EF.COM without DO'5F36' (mandatory in EF.COM, 9303-10)")
def a07(work):
    return _com(work, com(unicode=None))


@case("LDS_A_08", "Incorrect DGPM (missing DG1 tag)", FAILED, "format", inferred=True,
      deviation="EF.COM's tag list without 61 (DG1 is mandatory); the chip still holds DG1")
def a08(work):
    return _com(work, com(tags=TAGS[1:]))


@case("LDS_A_09", "Missing DGPM", FAILED, "format", inferred=True,
      deviation="EF.COM without the tag list DO'5C'")
def a09(work):
    return _com(work, com(tags=None))


@case("LDS_A_10", "EF.COM with LDS Version 1.8", SUCCESSFUL, inferred=True,
      deviation="EF.COM LDS version 0108")
def a10(work):
    return _com(work, com(lds=b"0108"))
