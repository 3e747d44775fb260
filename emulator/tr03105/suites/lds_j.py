"""LDS_J: EF.CardSecurity against EF.CardAccess. Profile AIP, which we claim.

EF.CardSecurity exists only on PACE chips (the virtual passport serves it after PACE), so the base
is Fixtures/passport-pace with PACE (GM, ECDH, AES-128, brainpoolP256r1) and no BAC: EF.CardAccess
holds the PACEInfo, a ChipAuthenticationInfo and a TerminalAuthenticationInfo, EF.CardSecurity those
three and the ChipAuthenticationPublicKeyInfo (ICAO 9303-11 9.2.x: CardSecurity repeats CardAccess's
SecurityInfos), signed by the TEST-ONLY Document Signer. Each case re-signs its EF.CardSecurity.
"""
import os

from der import integer, oid, parse_tlvs, sequence, tlv

from ..plan import FAILED, SUCCESSFUL, case
from ._pacekit import (CA, ID_PK_ECDH, ID_TA, ca_info, ca_oid, card_security_ca_infos, card_security_infos,
                       infos_of, pace_chip, pace_dataset, pace_info, pace_oid, security_infos, sign_card_security)

PACE_GM = pace_info(pace_oid(), 13)
TA_INFO = sequence(oid(ID_TA), integer(1))


def ca_infos():
    """(ChipAuthenticationInfo, ChipAuthenticationPublicKeyInfo) of the fixture's EF.CardSecurity."""
    found = card_security_ca_infos(pace_dataset())
    info = next(raw for raw in found if oid(CA)[2:] in raw[:14])
    pk = next(raw for raw in found if raw is not info)
    return info, pk


def chip(work, card_security, card_access=None):
    info, _ = ca_infos()
    access = card_access or [PACE_GM, info, TA_INFO]
    return pace_chip(work, access, card_security=security_infos(*card_security))


def base_card_security():
    info, pk = ca_infos()
    return [PACE_GM, info, TA_INFO, pk]


@case("LDS_J_01", "EF.CardSecurity inconsistent with EF.CardAccess (more SecurityInfos)", SUCCESSFUL,
      deviation="EF.CardSecurity with one more SecurityInfo than the base (an ActiveAuthenticationInfo, "
                "ecdsa-plain-SHA256), re-signed; AIP")
def j01(work):
    aa_info = sequence(oid("2.23.136.1.1.5"), integer(1), oid("0.4.0.127.0.7.1.1.4.1.3"))
    return chip(work, base_card_security() + [aa_info])


@case("LDS_J_02", "EF.CardSecurity inconsistent with EF.CardAccess (less SecurityInfos)", FAILED, "pa",
      deviation="EF.CardSecurity without the TerminalAuthenticationInfo EF.CardAccess has, re-signed; AIP")
def j02(work):
    return chip(work, [raw for raw in base_card_security() if raw != TA_INFO])


@case("LDS_J_03", "EF.CardSecurity inconsistent with EF.CardAccess (different SecurityInfos)", FAILED, "pa",
      deviation="EF.CardAccess and EF.CardSecurity both with a PACEDomainParameterInfo (id 32, explicit "
                "brainpoolP256r1) next to the PACEInfo (id 13) the chip uses; in EF.CardSecurity its domain "
                "parameters are P-256 instead; same number of SecurityInfos; re-signed; AIP")
def j03(work):
    from vpassport.quirks import explicit_parameters
    ec = oid("1.2.840.10045.2.1")
    domain = sequence(oid(pace_oid()[:-2]), sequence(ec, explicit_parameters("1.3.36.3.3.2.8.1.1.7")), integer(32))
    changed = sequence(oid(pace_oid()[:-2]), sequence(ec, explicit_parameters("1.2.840.10045.3.1.7")), integer(32))
    info, pk = ca_infos()
    return chip(work, [PACE_GM, info, changed, pk], card_access=[PACE_GM, info, domain])


@case("LDS_J_04", "EF.CardSecurity with incorrect ChipAuthenticationPublicKeyInfo for PACE-CAM", FAILED, "ca",
      deviation="CFG.DFLT.PACE with PACE-CAM (ECDH-CAM-AES-128, id 13): the served EF.CardSecurity's "
                "ChipAuthenticationPublicKeyInfo lacks its protocol OID (id-PK-ECDH), re-signed; the chip's CAM "
                "key is the fixture's (--quirk served-file); AIP")
def j04(work):
    cam = pace_info(pace_oid("ECDH", "CAM"), 13)
    info, pk = ca_infos()
    config = pace_chip(work, [cam])
    (_, body, _), = parse_tlvs(pk)
    broken_pk = sequence(*[raw for _, _, raw in parse_tlvs(body)[1:]])
    ds = pace_dataset()
    sign_card_security(ds, security_infos(cam, info, broken_pk))
    path = os.path.join(work, "CardSecurity-served.bin")
    with open(path, "wb") as f:
        f.write(ds.files["CardSecurity"])
    config.chip += ["--quirk", "served-file:CardSecurity=" + path]
    return config
