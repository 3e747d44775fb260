"""LDS_F: EF.DG14 (SecurityInfos for chip authentication). Profile AIP, which we claim.

The plan's CFG.DFLT.EAC DG14 is id-CA-ECDH-3DES-CBC-CBC without keyId; ours is Fixtures/passport's
(id-CA-ECDH-AES-CBC-CMAC-128 on brainpoolP256r1, no keyId, 6E 7C 31 7A …). Each case changes DG14
as the plan says and re-signs EF.SOD, so passive authentication passes and only DG14 is wrong.
"""
from der import integer, oid, parse_tlvs, sequence, tlv

from ..dataset import DataSet
from ..plan import FAILED, Config, case
from ._pacekit import CA, ID_PK_ECDH, dg14, dg14_infos


def infos():
    """(ChipAuthenticationInfo, ChipAuthenticationPublicKeyInfo) of the fixture's DG14."""
    ca_info = pk_info = None
    for raw in dg14_infos(DataSet("passport")):
        (_, body, _), = parse_tlvs(raw)
        first = parse_tlvs(body)[0][2]
        if first == oid(ID_PK_ECDH):
            pk_info = raw
        elif first[2:].startswith(oid(CA)[2:]):
            ca_info = raw
    assert ca_info and pk_info
    return ca_info, pk_info


def with_dg14(work, data):
    ds = DataSet("passport")
    ds.files["DG14"] = data
    return Config(ds.resign().write(work + "/dump"))


def fixture_dg14():
    return DataSet("passport").files["DG14"]


@case("LDS_F_01", "DG tag 6E wrong (tag 6F instead)", FAILED, "ca",
      deviation="DG14's outer tag 6F instead of 6E (content unchanged), EF.SOD re-signed; AIP")
def f01(work):
    return with_dg14(work, b"\x6F" + fixture_dg14()[1:])


@case("LDS_F_02", "DG tag 6E length byte too small", FAILED, "ca",
      deviation="DG14's outer length one too small (6E 7B …, one byte left over), EF.SOD re-signed; AIP")
def f02(work):
    data = fixture_dg14()
    assert data[1] < 0x80
    return with_dg14(work, data[:1] + bytes([data[1] - 1]) + data[2:])


@case("LDS_F_03", "DG tag 6E length byte too big", FAILED, "ca",
      deviation="DG14's outer length one too big (6E 7D …, one byte missing), EF.SOD re-signed; AIP")
def f03(work):
    data = fixture_dg14()
    return with_dg14(work, data[:1] + bytes([data[1] + 1]) + data[2:])


@case("LDS_F_04", "SecurityInfos, illegal chip authentication OID", FAILED, "ca",
      deviation="ChipAuthenticationPublicKeyInfo with the OID 0.4.0.127.0.7.2.2.1.3 (04007F000702020103) instead "
                "of id-PK-ECDH; AIP")
def f04(work):
    ca_info, pk_info = infos()
    (_, body, _), = parse_tlvs(pk_info)
    rest = b"".join(raw for _, _, raw in parse_tlvs(body)[1:])
    return with_dg14(work, dg14(ca_info, sequence(oid("0.4.0.127.0.7.2.2.1.3"), rest)))


@case("LDS_F_05", "SecurityInfos, missing chip authentication OID", FAILED, "ca",
      deviation="an EAC chip's DG14 (a TerminalAuthenticationInfo, as CFG.DFLT.EAC's) without the "
                "ChipAuthenticationInfo: only the public key info; AIP (TR-03110 requires the ChipAuthenticationInfo)")
def f05(work):
    _, pk_info = infos()
    return with_dg14(work, dg14(sequence(oid("0.4.0.127.0.7.2.2.2"), integer(1)), pk_info))


@case("LDS_F_06", "ChipAuthenticationInfo, incorrect version element", FAILED, "ca",
      deviation="ChipAuthenticationInfo version 10 (only 1 is defined); AIP")
def f06(work):
    ca_info, pk_info = infos()
    (_, body, _), = parse_tlvs(ca_info)
    first = parse_tlvs(body)[0][2]
    return with_dg14(work, dg14(sequence(first, integer(10)), pk_info))


@case("LDS_F_07", "ChipAuthenticationInfo, missing version element", FAILED, "ca",
      deviation="ChipAuthenticationInfo with its protocol OID only (no version); AIP")
def f07(work):
    ca_info, pk_info = infos()
    (_, body, _), = parse_tlvs(ca_info)
    first = parse_tlvs(body)[0][2]
    return with_dg14(work, dg14(sequence(first), pk_info))
