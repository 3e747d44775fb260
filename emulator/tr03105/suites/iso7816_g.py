"""ISO7816_G: PACE (GM, IM, CAM). All but G_36 moved to ICAO P4 ISO7816_C in v1.5 (titles only).

The plan's PACE chip refuses SELECT of the eMRTD application with 6982 until PACE succeeded, so an
inspection system cannot fall back to BAC: here every chip runs with --pace --no-bac (MUTUAL
AUTHENTICATE refused), and a PACE failure must end the inspection. Faulty GENERAL AUTHENTICATE
answers come from --quirk pace-answer:STEP/KIND (emulator/vpassport/quirks.py).
"""
from der import integer, oid, sequence, tlv

from ..plan import FAILED, SUCCESSFUL, case, left
from ._pacekit import (CAN, DH_IDS, EC_IDS, ID_TA, ca_info, ca_oid, card_security_ca_infos,
                       default_pace, infos_of, pace_chip, pace_dataset, pace_info, pace_oid,
                       security_infos, card_security_infos)

I = dict(inferred=True)
CAM_OID = pace_oid("ECDH", "CAM")


def answer(work, fault, agreement="ECDH", mapping="GM", parameter_id=None):
    """A chip whose GENERAL AUTHENTICATE answer of one step is faulty (pace-answer)."""
    pid = parameter_id if parameter_id is not None else (0 if agreement == "DH" else 13)
    return pace_chip(work, [pace_info(pace_oid(agreement, mapping), pid)], quirks=["pace-answer:" + fault])


def cam(work, quirks=(), **kw):
    """The PACE-CAM chip of Fixtures/passport-pace (EF.CardSecurity with its CA key)."""
    return pace_chip(work, [pace_info(CAM_OID, 13)], quirks=quirks, **kw)


@case("ISO7816_G_01", "Correct execution of PACE protocols", SUCCESSFUL, **I,
      deviation="CFG.DFLT.PACE: EF.CardAccess one PACEInfo id-PACE-ECDH-GM-3DES-CBC-CBC, parameterId 13; "
                "DG14 holds it too; no BAC")
def g01(work):
    return pace_chip(work, [pace_info(pace_oid("ECDH", "GM", "3DES"), 13)])


@case("ISO7816_G_02", "Check supported standardized domain parameters with Generic Mapping", SUCCESSFUL, **I,
      deviation="one run per standardized parameter set: DH-GM-AES-128 with ids 0-2, ECDH-GM-AES-128 with ids 8-18")
def g02(work):
    return [pace_chip("%s/%d" % (work, pid), [pace_info(pace_oid("DH" if pid < 3 else "ECDH", "GM"), pid)],
                      label="GM parameterId %d" % pid) for pid in DH_IDS + EC_IDS]


@case("ISO7816_G_03", "Check supported standardized domain parameters with Integrated Mapping", SUCCESSFUL, **I,
      deviation="one run per standardized parameter set: DH-IM-AES-128 with ids 0-2, ECDH-IM-AES-128 with ids 8-18 "
                "but 10 (secp224r1 has p = 1 mod 4, where ICAO 9303-11's IM point encoding is not defined)")
def g03(work):
    return [pace_chip("%s/%d" % (work, pid), [pace_info(pace_oid("DH" if pid < 3 else "ECDH", "IM"), pid)],
                      label="IM parameterId %d" % pid) for pid in DH_IDS + EC_IDS if pid != 10]


@case("ISO7816_G_04", "Check supported algorithms", SUCCESSFUL, **I,
      deviation="one run per algorithm: ECDH-GM and DH-GM with 3DES, AES-128/192/256; ECDH-IM and DH-IM with "
                "AES-128 (the chip's IM is AES-128 only); ECDH-CAM with AES-128/192/256")
def g04(work):
    runs = []
    for agreement in ("ECDH", "DH"):
        for cipher in ("3DES", "AES128", "AES192", "AES256"):
            runs.append((agreement, "GM", cipher))
    runs += [("ECDH", "IM", "AES128"), ("DH", "IM", "AES128")]
    runs += [("ECDH", "CAM", c) for c in ("AES128", "AES192", "AES256")]
    configs = []
    for n, (agreement, mapping, cipher) in enumerate(runs):
        pid = 0 if agreement == "DH" else 13
        info = pace_info(pace_oid(agreement, mapping, cipher), pid)
        configs.append(pace_chip("%s/%d" % (work, n), [info], label="%s-%s-%s" % (agreement, mapping, cipher)))
    return configs


@case("ISO7816_G_05", "Check PACE with additional entries in SecurityInfos", SUCCESSFUL, **I,
      deviation="EF.CardAccess: the PACEInfo plus a TerminalAuthenticationInfo, a ChipAuthenticationInfo and a "
                "SecurityInfo with an unknown OID")
def g05(work):
    extra = [sequence(oid(ID_TA), integer(1)),
             ca_info(ca_oid("ECDH", "AES128"), 1),
             sequence(oid("1.3.6.1.4.1.99999.1"), integer(7))]
    return pace_chip(work, [pace_info(pace_oid())] + extra)


@case("ISO7816_G_06", "Check selection of standardized Domain Parameters and algorithms", SUCCESSFUL, **I,
      deviation="EF.CardAccess with four PACEInfos: DH-GM-AES-128 id 0, ECDH-IM-AES-128 id 12, ECDH-GM-3DES id 10, "
                "ECDH-GM-AES-256 id 15 (the chip offers each)")
def g06(work):
    return pace_chip(work, [pace_info(pace_oid("DH", "GM", "AES128"), 0),
                            pace_info(pace_oid("ECDH", "IM", "AES128"), 12),
                            pace_info(pace_oid("ECDH", "GM", "3DES"), 10),
                            pace_info(pace_oid("ECDH", "GM", "AES256"), 15)])


@case("ISO7816_G_07", "EF.CardAccess contains two PACEInfo and PACEDomainParameter", SUCCESSFUL, **I,
      deviation="EF.CardAccess: PACEInfo ECDH-GM-AES-128 with standardized id 13, PACEInfo ECDH-GM-AES-128 with "
                "proprietary id 32, PACEDomainParameterInfo id 32 (explicit brainpoolP256r1); the chip completes "
                "PACE on id 13 (explicit parameters are not implemented on the chip)")
def g07(work):
    from vpassport.quirks import explicit_parameters
    domain = sequence(oid("0.4.0.127.0.7.2.2.4.2"),
                      sequence(oid("1.2.840.10045.2.1"), explicit_parameters("1.3.36.3.3.2.8.1.1.7")), integer(32))
    return pace_chip(work, [pace_info(pace_oid(), 13), pace_info(pace_oid(), 32), domain])


@case("ISO7816_G_08", "Abort PACE because of SW error code during MSE:Set AT", FAILED, "pace", **I,
      deviation="MSE:Set AT answered 6A80 (--quirk pace-refused:6A80), no BAC")
def g08(work):
    return default_pace(work, quirks=["pace-refused:6A80"])


@case("ISO7816_G_09", "Error on the nonce - Value modifications after first General Authenticate", FAILED, "access", **I,
      deviation="GA step 1 answer: the encrypted nonce with its last bit flipped; the terminal cannot see it, its "
                "token then fails at the chip (63Cx): a refused access key, as any terminal must report it")
def g09(work):
    return answer(work, "1/nonce")


@case("ISO7816_G_10", "Error on General Authenticate step 1 command", FAILED, "pace", **I,
      deviation="GA step 1 answered 6A80")
def g10(work):
    return answer(work, "1/sw=6A80")


@case("ISO7816_G_11", "Error on General Authenticate step 1 command - bad tag (use 90h instead of 80h)", FAILED,
      "pace", **I, deviation="GA step 1 answer 7C{90 z} instead of 7C{80 z}")
def g11(work):
    return answer(work, "1/tag=90")


@case("ISO7816_G_12", "Error on General Authenticate step 2 command", FAILED, "pace", **I,
      deviation="GA step 2 answered 6A80")
def g12(work):
    return answer(work, "2/sw=6A80")


@case("ISO7816_G_13", "Error on General Authenticate step 2 command bad tag (use 92h instead of 82h)", FAILED,
      "pace", **I, deviation="GA step 2 answer 7C{92 …} instead of 7C{82 …}")
def g13(work):
    return answer(work, "2/tag=92")


@case("ISO7816_G_14", "Abort PACE because of error in GA step 2 (GM)", FAILED, "access", **I,
      deviation="GM, GA step 2: a valid mapping public key that is not the chip's (the mapped generators differ; "
                "the terminal's token fails at the chip, 63Cx: a refused access key)")
def g14(work):
    return answer(work, "2/key=other")


@case("ISO7816_G_15", "Abort PACE because of error in GA step 2 (IM)", FAILED, "pace", **I,
      deviation="ECDH-IM-AES-128, GA step 2 answered 6A80")
def g15(work):
    return answer(work, "2/sw=6A80", mapping="IM")


@case("ISO7816_G_16", "Error in General Authenticate step 2 command - error on mapping data - all ECDH public key "
      "components", FAILED, "pace", **I,
      deviation="ECDH-GM, GA step 2: the chip's mapping point with y altered (not on the curve); one "
                "component per case here (x: ISO7816_G_21 at step 3)")
def g16(work):
    return answer(work, "2/key=y")


@case("ISO7816_G_17", "Error in General Authenticate step 2 command - error on mapping data - all DH public key "
      "components", FAILED, "pace", **I,
      deviation="DH-GM (id 0), GA step 2: the chip's mapping value = p (out of range)")
def g17(work):
    return answer(work, "2/key=p", agreement="DH")


@case("ISO7816_G_18", "Error in General Authenticate step 3 command", FAILED, "pace", **I,
      deviation="GA step 3 answered 6A80")
def g18(work):
    return answer(work, "3/sw=6A80")


@case("ISO7816_G_19", "Error in General Authenticate step 3 command - bad tag (use 94h instead of 84h)", FAILED,
      "pace", **I, deviation="GA step 3 answer 7C{94 …} instead of 7C{84 …}")
def g19(work):
    return answer(work, "3/tag=94")


@case("ISO7816_G_20", "Abort PACE because of error in GA step 3", FAILED, "access", **I,
      deviation="GA step 3: a valid ephemeral public key that is not the chip's (the shared secrets differ; the "
                "terminal's token fails at the chip, 63Cx: a refused access key)")
def g20(work):
    return answer(work, "3/key=other")


@case("ISO7816_G_21", "Error on General Authenticate step 3 command - error on ephemeral public key - all ECDH "
      "public key components", FAILED, "pace", **I,
      deviation="ECDH-GM, GA step 3: the chip's ephemeral point with x altered (not on the curve)")
def g21(work):
    return answer(work, "3/key=x")


@case("ISO7816_G_22", "Error on General Authenticate step 3 command - error on ephemeral public key - all DH public "
      "key components", FAILED, "pace", **I,
      deviation="DH-GM (id 0), GA step 3: the chip's ephemeral value 0")
def g22(work):
    return answer(work, "3/key=zero", agreement="DH")


@case("ISO7816_G_23", "Abort PACE because of identical ephemeral public keys", FAILED, "pace", **I,
      deviation="GA step 3: the chip answers with the terminal's own ephemeral public key")
def g23(work):
    return answer(work, "3/echo")


@case("ISO7816_G_24", "Error on General Authenticate step 4 command", FAILED, "pace", **I,
      deviation="GA step 4 answered 6A80 (the terminal's token verified)")
def g24(work):
    return answer(work, "4/sw=6A80")


@case("ISO7816_G_25", "Error on General Authenticate step 4 command - bad tag (use 96h instead of 86h)", FAILED,
      "pace", **I, deviation="GA step 4 answer 7C{96 token} instead of 7C{86 token}")
def g25(work):
    return answer(work, "4/tag=96")


@case("ISO7816_G_26", "Abort PACE because of error in GA step 4", FAILED, "pace", **I,
      deviation="GA step 4: the chip's authentication token with its last bit flipped")
def g26(work):
    return answer(work, "4/token")


@case("ISO7816_G_27", "Abort PACE because of TLV error on EF.CardAccess", FAILED, "pace", **I,
      deviation="EF.CardAccess as served: the PACEInfo SEQUENCE's length one too big (the chip itself runs "
                "PACE from the genuine one; --quirk served-file)")
def g27(work):
    config = default_pace(work)
    import os
    (_, value, raw), = __import__("der").parse_tlvs(open(os.path.join(config.dump, "CardAccess.bin"), "rb").read())
    broken = raw[:2] + bytes([value[0], value[1] + 1]) + value[2:]
    with open(os.path.join(work, "CardAccess-broken.bin"), "wb") as f:
        f.write(broken)
    config.chip += ["--quirk", "served-file:CardAccess=" + os.path.join(work, "CardAccess-broken.bin")]
    return config


@case("ISO7816_G_28", "Abort PACE because of incorrect paramterId in PACEInfo", FAILED, "pace", **I,
      deviation="PACEInfo ECDH-GM-AES-128 with parameterId 5 (reserved, no domain parameters)")
def g28(work):
    return pace_chip(work, [pace_info(pace_oid(), 5)])


@case("ISO7816_G_29", "PACE-CAM with missing tag 8Ah but correct ECAD", FAILED, "pace", **I,
      deviation="PACE-CAM, GA step 4: the encrypted chip authentication data follows DO'86' without its DO'8A' header")
def g29(work):
    return cam(work, quirks=["pace-answer:4/cam=no-tag"])


@case("ISO7816_G_30", "PACE-CAM with incorrectly encoded ECAD (no octet string)", FAILED, "ca", **I,
      deviation="PACE-CAM, GA step 4: CA_IC encrypted as a DER INTEGER instead of its octet string (FE2OS)")
def g30(work):
    return cam(work, quirks=["pace-answer:4/cam=not-octet"])


@case("ISO7816_G_31", "PACE-CAM with wrong ECAD", FAILED, "ca", **I,
      deviation="PACE-CAM, GA step 4: CA_IC + 1 encrypted (does not map PK_IC to PK_Map,IC)")
def g31(work):
    return cam(work, quirks=["pace-answer:4/cam=wrong"])


@case("ISO7816_G_32", "PACE-CAM with wrong tag 8Ah (use 8Bh) but correct ECAD", FAILED, "pace", **I,
      deviation="PACE-CAM, GA step 4: the encrypted chip authentication data in DO'8B'")
def g32(work):
    return cam(work, quirks=["pace-answer:4/cam=tag-8B"])


@case("ISO7816_G_33", "PACE-CAM with correct tag 8Ah but missing ECAD", FAILED, "pace", **I,
      deviation="PACE-CAM, GA step 4: DO'8A' empty")
def g33(work):
    return cam(work, quirks=["pace-answer:4/cam=empty"])


@case("ISO7816_G_34", "PACE-CAM with Passive Authentication", SUCCESSFUL, **I,
      deviation="PACE-CAM (ECDH-CAM-AES-128, id 13); EF.CardSecurity signed by the TEST-ONLY DSC, its key verified")
def g34(work):
    return cam(work)


@case("ISO7816_G_35", "Return additional tag 8Ah during PACE-GM", SUCCESSFUL, **I,
      deviation="PACE-GM, GA step 4: an additional DO'8A' (48 bytes) after the chip's token")
def g35(work):
    return answer(work, "4/extra-8a")


@case("ISO7816_G_36", "Use invalid OID for PACE-CAM in EF.CardAccess", SUCCESSFUL,
      deviation="CFG.PACE.ISO7816.G36: PACEInfos id-PACE-ECDH-GM-3DES-CBC-CBC (13) and the non-existent "
                "id-PACE-DH-CAM-AES128 (0); DG14 = EF.CardAccess's content; EF.CardSecurity with the CA key "
                "infos; the chip answers MSE:Set AT naming the DH-CAM OID with 6A80, so success means the GM OID "
                "was sent")
def g36(work):
    infos = [pace_info(pace_oid("ECDH", "GM", "3DES"), 13), pace_info(pace_oid("DH", "CAM", "AES128"), 0)]
    return pace_chip(work, infos)


@case("ISO7816_G_38", "Use DG14 without SecurityInfo during PACE-CAM", FAILED, "ca", **I,
      deviation="PACE-CAM chip whose DG14 is an empty SecurityInfos SET (6E 02 31 00), EF.SOD re-signed")
def g38(work):
    config = cam(work, dg14_too=False)
    from ..dataset import DataSet
    import os
    ds = pace_dataset()
    for name in os.listdir(config.dump):
        if name.endswith(".bin"):
            ds.files[name[:-4]] = open(os.path.join(config.dump, name), "rb").read()
    ds.files["DG14"] = bytes.fromhex("6E023100")
    ds.resign().write(config.dump)
    return config


@case("ISO7816_G_39", "Use EF.CardSecurity with wrong chipAuthenticationPublicKey during PACE-CAM", FAILED, "ca", **I,
      deviation="PACE-CAM chip answering with its own key while EF.CardSecurity (signed) and DG14 hold another "
                "(Fixtures/passport-pace-clone with the clone's key)")
def g39(work):
    from ..dataset import FIXTURES
    import os
    import shutil
    from ..plan import Config
    dump = work + "/dump"
    shutil.copytree(os.path.join(FIXTURES, "passport-pace-clone"), dump)
    with open(os.path.join(FIXTURES, "passport", "mrz.txt")) as f, open(dump + "/mrz.txt", "w") as g:
        g.write(f.read())
    key = os.path.join(FIXTURES, "pki", "TEST-ONLY-clone-chip-ca-brainpoolP256r1.key.pem")
    return Config(dump, chip=["--pace", "--no-bac", "--mapping", "cam", "--ca-key", key])


@case("ISO7816_G_40", "Use EF.CardSecurity without ChipAuthenticationPublicKeyInfo during PACE-CAM", FAILED, "ca", **I,
      deviation="PACE-CAM chip (its key is the fixture's) serving an EF.CardSecurity (signed) without "
                "ChipAuthenticationPublicKeyInfo (--quirk served-file)")
def g40(work):
    import os
    config = cam(work)
    ds = pace_dataset()
    infos = [raw for raw in infos_of(card_security_infos(ds))
             if not raw.startswith(bytes.fromhex("30")) or bytes.fromhex("04007f000702020102") not in raw[:16]]
    from ._pacekit import sign_card_security
    sign_card_security(ds, security_infos(*infos))
    path = os.path.join(work, "CardSecurity-served.bin")
    with open(path, "wb") as f:
        f.write(ds.files["CardSecurity"])
    config.chip += ["--quirk", "served-file:CardSecurity=" + path]
    return config


@case("ISO7816_G_41", "Check supported standardized domain parameters with Chip Authentication Mapping", SUCCESSFUL,
      **I, deviation="one run per standardized curve (ids 8-18): ECDH-CAM-AES-128 with a CA key on that curve in "
                     "EF.CardSecurity (and DG14)")
def g41(work):
    from ._pacekit import ca_pk_info, ec_ca_key, ID_PK_ECDH, dg14_infos, sign_card_security, with_dg14_infos
    configs = []
    for pid in EC_IDS:
        sub = "%s/%d" % (work, pid)
        key, spki, _ = ec_ca_key(sub, pid)
        pk = ca_pk_info(ID_PK_ECDH, spki)
        infos = [pace_info(CAM_OID, pid)]
        card_security = security_infos(*(infos + [ca_info(ca_oid("ECDH", "AES128"), 1), pk]))
        config = pace_chip(sub, infos, card_security=card_security, dg14_too=False,
                           chip=["--ca-key", key], label="CAM parameterId %d" % pid)
        ds = pace_dataset()
        import os
        for name in os.listdir(config.dump):
            if name.endswith(".bin"):
                ds.files[name[:-4]] = open(os.path.join(config.dump, name), "rb").read()
        from ._pacekit import dg14 as make_dg14
        ds.files["DG14"] = make_dg14(*(infos + [ca_info(ca_oid("ECDH", "AES128"), 1), pk]))
        ds.resign().write(config.dump)
        configs.append(config)
    return configs
