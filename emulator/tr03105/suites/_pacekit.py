"""Helpers the PACE / chip authentication suites share (ISO7816_D, ISO7816_G, LDS_F, LDS_J):
PACE and CA SecurityInfos, EF.CardAccess / EF.CardSecurity / DG14 variants, generated keys."""
import os

import der
from der import integer, oid, parse_tlvs, sequence, set_of, tlv
from fixturegen import cardsecurity, testsigners

from ..dataset import FIXTURES, DataSet
from ..plan import Config

BSI = "0.4.0.127.0.7"
PACE = BSI + ".2.2.4"
CA = BSI + ".2.2.3"
ID_PK_DH, ID_PK_ECDH = BSI + ".2.2.1.1", BSI + ".2.2.1.2"
ID_TA = BSI + ".2.2.2"
STANDARDIZED = BSI + ".1.2"
CIPHER_ARC = {"3DES": 1, "AES128": 2, "AES192": 3, "AES256": 4}
MAPPING_ARC = {("DH", "GM"): 1, ("ECDH", "GM"): 2, ("DH", "IM"): 3, ("ECDH", "IM"): 4,
               ("ECDH", "CAM"): 6, ("DH", "CAM"): 5}     # DH-CAM does not exist (ISO7816_G_36)
DH_IDS = (0, 1, 2)
EC_IDS = tuple(range(8, 19))
CAN = "123456"


def pace_oid(agreement="ECDH", mapping="GM", cipher="AES128"):
    return "%s.%d.%d" % (PACE, MAPPING_ARC[(agreement, mapping)], CIPHER_ARC[cipher])


def ca_oid(agreement="ECDH", cipher="AES128"):
    return "%s.%d.%d" % (CA, 1 if agreement == "DH" else 2, CIPHER_ARC[cipher])


def pace_info(protocol, parameter_id=13, version=2):
    return sequence(oid(protocol), integer(version), integer(parameter_id))


def security_infos(*infos):
    return set_of(*infos)


def infos_of(security_infos_set):
    """The SecurityInfo TLVs (raw) of a SET."""
    (tag, value, _), = parse_tlvs(security_infos_set)
    return [raw for _, _, raw in parse_tlvs(value)]


def pace_dataset():
    """Fixtures/passport-pace (its DG1 is Fixtures/passport's, whose mrz.txt it lacks)."""
    ds = DataSet("passport")
    pace = DataSet.__new__(DataSet)
    pace.base = os.path.join(FIXTURES, "passport-pace")
    pace.files = {}
    for name in os.listdir(pace.base):
        if name.endswith(".bin"):
            with open(os.path.join(pace.base, name), "rb") as f:
                pace.files[name[:-4]] = f.read()
    pace.mrz = ds.mrz
    return pace


def card_security_infos(ds):
    return cardsecurity.parse(ds.files["CardSecurity"])["security_infos"]


def card_security_ca_infos(ds):
    """The ChipAuthenticationInfo and ChipAuthenticationPublicKeyInfo of the fixture's
    EF.CardSecurity (the chip's CA key as PACE-CAM uses it)."""
    out = []
    for raw in infos_of(card_security_infos(ds)):
        (_, body, _), = parse_tlvs(raw)
        first = parse_tlvs(body)[0]
        if der.oid_text(first[1]).startswith((CA + ".", ID_PK_ECDH)):
            out.append(raw)
    return out


def sign_card_security(ds, infos_set):
    """EF.CardSecurity holding `infos_set`, signed by the TEST-ONLY dsc-UTO like the fixture's."""
    ds.files["CardSecurity"] = testsigners.sign_card_security(infos_set, "dsc-UTO")
    return ds


def with_dg14_infos(ds, extra):
    """DG14 with these SecurityInfos added (e.g. the PACEInfos, as CFG.DFLT.PACE has them),
    EF.SOD re-signed."""
    (_, body, _), = parse_tlvs(ds.files["DG14"])
    (_, value, _), = parse_tlvs(body)
    ds.files["DG14"] = tlv(0x6E, set_of(*([raw for _, _, raw in parse_tlvs(value)] + list(extra))))
    return ds.resign()


def pace_chip(work, card_access_infos, chip=(), access="mrz", card_security=None, dg14_too=True,
              label="", quirks=()):
    """A PACE-only chip (--pace --no-bac, so no BAC fallback, as the plan's chip that refuses
    the eMRTD application before PACE) serving EF.CardAccess = card_access_infos; DG14 also
    lists them (CFG.DFLT.PACE), EF.CardSecurity = `card_security` (SecurityInfos SET) or the
    EF.CardAccess ones plus the chip's CA infos."""
    ds = pace_dataset()
    ds.files["CardAccess"] = security_infos(*card_access_infos)
    infos = card_security if card_security is not None else \
        security_infos(*(list(card_access_infos) + card_security_ca_infos(ds)))
    sign_card_security(ds, infos)
    if dg14_too:
        with_dg14_infos(ds, card_access_infos)
    options = ["--pace", "--no-bac"] + list(chip)
    for q in quirks:
        options += ["--quirk", q]
    config = Config(ds.write(work + "/dump"), chip=options, access=access)
    config.label = label
    return config


def default_pace(work, chip=(), access="mrz", **kw):
    """The fixture's PACE profile (ECDH-GM-AES-128, brainpoolP256r1) with chip options."""
    return pace_chip(work, [pace_info(pace_oid())], chip=chip, access=access, **kw)


# --- chip authentication keys ----------------------------------------------------------------
def dh_ca_key(work, parameter_id=0, name="dh-ca"):
    """(private key file, SubjectPublicKeyInfo) of a new DH key on RFC 5114 group 0-2."""
    from vpassport import ecc
    group = ecc.standardized(parameter_id)
    x = group.random_exponent()
    alg = sequence(oid(STANDARDIZED), integer(parameter_id))
    path = os.path.join(work, name + ".der")
    os.makedirs(work, exist_ok=True)
    with open(path, "wb") as f:
        f.write(sequence(integer(0), alg, tlv(0x04, integer(x))))
    y = pow(group.g, x, group.p)
    return path, sequence(alg, tlv(0x03, b"\x00" + integer(y))), (group, y)


def ec_ca_key(work, parameter_id=13, name="ec-ca"):
    """(private key file, SubjectPublicKeyInfo) of a new EC key on a standardized curve."""
    from vpassport import ecc
    curve = ecc.standardized(parameter_id)
    d = curve.random_scalar()
    alg = sequence(oid(STANDARDIZED), integer(parameter_id))
    path = os.path.join(work, name + ".der")
    os.makedirs(work, exist_ok=True)
    size = (curve.n.bit_length() + 7) // 8
    with open(path, "wb") as f:
        f.write(sequence(integer(0), alg, tlv(0x04, sequence(integer(1), tlv(0x04, d.to_bytes(size, "big"))))))
    return path, sequence(alg, tlv(0x03, b"\x00" + curve.encode(curve.mul(d)))), (curve, d)


def ca_info(protocol, version=1, key_id=None):
    return sequence(oid(protocol), integer(version), *([integer(key_id)] if key_id is not None else []))


def ca_pk_info(pk_oid, spki, key_id=None):
    return sequence(oid(pk_oid), spki, *([integer(key_id)] if key_id is not None else []))


def dg14(*infos):
    return tlv(0x6E, set_of(*infos))


def dg14_infos(ds):
    (_, body, _), = parse_tlvs(ds.files["DG14"])
    return infos_of(body)
