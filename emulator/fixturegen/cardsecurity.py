"""EF.CardSecurity (ICAO 9303-10/-11, BSI TR-03110-3): SecurityInfos in CMS SignedData.

Signed like EF.SOD (SignedData v3, the DSC in `certificates`, signed attributes
contentType / signingTime / messageDigest), but the encapsulated content is
id-SecurityObject (bsi-de 3.2.1) holding SecurityInfos, and the file is the bare
ContentInfo (no application tag around it, unlike EF.SOD's 77).
"""

from __future__ import annotations

import datetime as dt

import der

from .sod import ID_CONTENT_TYPE, ID_MESSAGE_DIGEST, ID_SIGNED_DATA, ID_SIGNING_TIME, attribute, digest
from .x509 import Scheme, cert_parts, digest_algorithm, ec_point

ID_SECURITY_OBJECT = "0.4.0.127.0.7.3.2.1"
ID_PACE_ECDH_CAM_AES_CBC_CMAC_128 = "0.4.0.127.0.7.2.2.4.6.2"
ID_CA_ECDH_AES_CBC_CMAC_128 = "0.4.0.127.0.7.2.2.3.2.2"
ID_PK_ECDH = "0.4.0.127.0.7.2.2.1.2"
STANDARDIZED_DOMAIN_PARAMETERS = "0.4.0.127.0.7.1.2"
BRAINPOOL_P256R1_ID = 13            # ICAO 9303-11 9.5.1 / TR-03110-3 A.2.1.1


def pace_info(protocol: str, parameter_id: int) -> bytes:
    """PACEInfo ::= SEQUENCE { protocol, version INTEGER (2), parameterId INTEGER }"""
    return der.sequence(der.oid(protocol), der.integer(2), der.integer(parameter_id))


def security_infos_cam(ca_public_key) -> bytes:
    """SecurityInfos of a PACE-CAM chip: the PACEInfo, ChipAuthenticationInfo and
    ChipAuthenticationPublicKeyInfo (key on brainpoolP256r1, referenced as
    standardized domain parameters 13 as in 9303-11 Appendix I; no keyId)."""
    spki = der.sequence(der.sequence(der.oid(STANDARDIZED_DOMAIN_PARAMETERS),
                                     der.integer(BRAINPOOL_P256R1_ID)),
                        der.bit_string(ec_point(ca_public_key)))
    return der.set_of(
        pace_info(ID_PACE_ECDH_CAM_AES_CBC_CMAC_128, BRAINPOOL_P256R1_ID),
        der.sequence(der.oid(ID_CA_ECDH_AES_CBC_CMAC_128), der.integer(1)),
        der.sequence(der.oid(ID_PK_ECDH), spki),
    )


def ef_card_security(*, security_infos: bytes, h: str, dsc: bytes, dsc_key, scheme: Scheme,
                     signing_time: dt.datetime, previous_signature: bytes | None = None) -> bytes:
    signed_attrs = der.set_of(
        attribute(ID_CONTENT_TYPE, der.oid(ID_SECURITY_OBJECT)),
        attribute(ID_SIGNING_TIME, der.utc_time(signing_time)),
        attribute(ID_MESSAGE_DIGEST, der.octet_string(digest(h, security_infos))),
    )
    signature = scheme.sign_stable(dsc_key, signed_attrs, previous_signature)
    parts = cert_parts(dsc)
    signer_info = der.sequence(
        der.integer(1),
        der.sequence(parts["issuer"], der.integer(parts["serial"])),
        digest_algorithm(h),
        der.implicit_constructed(0, der.parse_one(signed_attrs).value),
        scheme.algorithm_identifier,
        der.octet_string(signature),
    )
    signed_data = der.sequence(
        der.integer(3),
        der.set_of(digest_algorithm(h)),
        der.sequence(der.oid(ID_SECURITY_OBJECT), der.explicit(0, der.octet_string(security_infos))),
        der.implicit_constructed(0, dsc),
        der.set_of(signer_info),
    )
    return der.sequence(der.oid(ID_SIGNED_DATA), der.explicit(0, signed_data))


def parse(card_security: bytes) -> dict:
    """eContentType, SecurityInfos, signed attributes, signature and the CA public point."""
    sd = der.parse_one(card_security).children()[1].children()[0].children()
    encap = sd[2].children()
    infos = encap[1].children()[0].value
    signer = sd[-1].children()[0].children()
    point = None
    for info in der.parse_one(infos).children():
        kids = info.children()
        if kids[0].as_oid() == ID_PK_ECDH:
            point = kids[1].children()[1].value[1:]
    return {"econtent_type": encap[0].as_oid(), "security_infos": infos,
            "signed_attrs": b"\x31" + signer[3].raw[1:], "signature": signer[5].value,
            "ca_public_point": point}
