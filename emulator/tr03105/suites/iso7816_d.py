"""ISO7816_D: Chip Authentication (version 1, DG14). Moved to ICAO P4 ISO7816_G in v1.5 (titles only).

Base: Fixtures/passport (BAC, CA id-CA-ECDH-AES-CBC-CMAC-128 on brainpoolP256r1, no keyId, AA).
DG14 variants are re-signed in EF.SOD; the chip's CA keys come from --ca-key / --ca-extra-key
(one per keyId), --ca-key-unchecked where DG14's public key is corrupted on purpose.
"""
import os

from der import integer, oid, parse_tlvs, sequence, tlv

from ..dataset import DataSet, FIXTURES
from ..plan import FAILED, SUCCESSFUL, Config, case
from ._pacekit import (ID_PK_DH, ID_PK_ECDH, ca_info, ca_oid, ca_pk_info, dg14, dg14_infos, ec_ca_key)

I = dict(inferred=True)
FIXTURE_CA_KEY = os.path.join(FIXTURES, "pki", "TEST-ONLY-chip-ca-brainpoolP256r1.key.pem")
X942 = "1.2.840.10046.2.1"


def fixture_spki():
    """The SubjectPublicKeyInfo of Fixtures/passport's CA key (its DG14)."""
    for raw in dg14_infos(DataSet("passport")):
        (_, body, _), = parse_tlvs(raw)
        items = parse_tlvs(body)
        if items[0][1] == oid(ID_PK_ECDH)[2:]:
            return items[1][2]
    raise ValueError("no CA public key in Fixtures/passport DG14")


def with_dg14(work, infos, chip=()):
    ds = DataSet("passport")
    ds.files["DG14"] = dg14(*infos)
    return Config(ds.resign().write(work + "/dump"), chip=list(chip))


def dh_key(work, group_id=2, name="dh-ca"):
    """A DH CA key on RFC 5114 group `group_id` with explicit X9.42 parameters (p, g, q):
    (private key file, SubjectPublicKeyInfo, (group, x, y))."""
    from vpassport import ecc
    group = ecc.standardized(group_id)
    x = group.random_exponent()
    alg = sequence(oid(X942), sequence(integer(group.p), integer(group.g), integer(group.q)))
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, name + ".der")
    with open(path, "wb") as f:
        f.write(sequence(integer(0), alg, tlv(0x04, integer(x))))
    y = pow(group.g, x, group.p)
    return path, sequence(alg, tlv(0x03, b"\x00" + integer(y))), (group, x, y)


def corrupt_spki(spki, dh):
    """The SubjectPublicKeyInfo with its public key altered (last byte of the key flipped)."""
    (_, body, _), = parse_tlvs(spki)
    alg_raw, (_, bits, _) = parse_tlvs(body)[0][2], parse_tlvs(body)[1]
    key = bits[1:]
    if dh:
        (_, y, _), = parse_tlvs(key)
        key = integer(int.from_bytes(y, "big") + 2)
    else:
        key = key[:-1] + bytes([key[-1] ^ 0x01])
    return sequence(alg_raw, tlv(0x03, b"\x00" + key))


@case("ISO7816_D_01", "Chip authentication with DH", SUCCESSFUL, **I,
      deviation="DG14: id-CA-DH-AES-CBC-CMAC-128 with a DH key on the RFC 5114 2048/256 group (explicit X9.42 "
                "parameters), the chip holds its private key")
def d01(work):
    key, spki, _ = dh_key(work)
    return with_dg14(work, [ca_info(ca_oid("DH", "AES128")), ca_pk_info(ID_PK_DH, spki)], chip=["--ca-key", key])


@case("ISO7816_D_02", "Chip authentication with ECDH", SUCCESSFUL, **I,
      deviation="the fixture's DG14: id-CA-ECDH-AES-CBC-CMAC-128, brainpoolP256r1, no keyId")
def d02(work):
    return Config(DataSet("passport").write(work + "/dump"))


@case("ISO7816_D_03", "DG14 with one key reference", SUCCESSFUL, **I,
      deviation="DG14: ChipAuthenticationInfo and ChipAuthenticationPublicKeyInfo with keyId 1 (the chip wants "
                "DO'84' 01 or none)")
def d03(work):
    return with_dg14(work, [ca_info(ca_oid(), key_id=1), ca_pk_info(ID_PK_ECDH, fixture_spki(), key_id=1)])


def several_keys(work, count):
    infos, extra = [], []
    for n in range(1, count + 1):
        if n == 1:
            spki = fixture_spki()
        else:
            path, spki, _ = ec_ca_key(work, 13, "ec-ca-%d" % n)
            extra += ["--ca-extra-key", path]
        infos += [ca_info(ca_oid(), key_id=n), ca_pk_info(ID_PK_ECDH, spki, key_id=n)]
    return with_dg14(work, infos, chip=["--ca-key", FIXTURE_CA_KEY] + extra)


@case("ISO7816_D_04", "DG14 with two key references", SUCCESSFUL, **I,
      deviation="DG14: two ECDH CA keys (brainpoolP256r1) with keyIds 1 and 2, each with its "
                "ChipAuthenticationInfo; the chip holds both private keys and uses the one DO'84' names")
def d04(work):
    return several_keys(work, 2)


@case("ISO7816_D_05", "DG14 with three key references", SUCCESSFUL, **I,
      deviation="DG14: three ECDH CA keys with keyIds 1, 2, 3; the chip holds all three")
def d05(work):
    return several_keys(work, 3)


@case("ISO7816_D_06", "DG14 with invalid key reference", FAILED, "ca", **I,
      deviation="DG14: ChipAuthenticationInfo and public key info with keyId -1 (INTEGER FF, not a usable "
                "reference); the chip knows no such key (6A88 to any DO'84')")
def d06(work):
    return with_dg14(work, [ca_info(ca_oid(), key_id=-1), ca_pk_info(ID_PK_ECDH, fixture_spki(), key_id=-1)])


@case("ISO7816_D_07", "DG14 with corrupted DH public key", FAILED, "ca", **I,
      deviation="DG14: DH key (RFC 5114 2048/256) with y + 2 in place of y; the chip does CA with the genuine "
                "private key (--ca-key-unchecked)")
def d07(work):
    key, spki, _ = dh_key(work)
    return with_dg14(work, [ca_info(ca_oid("DH", "AES128")), ca_pk_info(ID_PK_DH, corrupt_spki(spki, True))],
                     chip=["--ca-key", key, "--ca-key-unchecked"])


@case("ISO7816_D_08", "DG14 with corrupted ECDH public key", FAILED, "ca", **I,
      deviation="DG14: the fixture's ECDH point with the last byte of y flipped; the chip does CA with the "
                "genuine private key (--ca-key-unchecked)")
def d08(work):
    return with_dg14(work, [ca_info(ca_oid()), ca_pk_info(ID_PK_ECDH, corrupt_spki(fixture_spki(), False))],
                     chip=["--ca-key", FIXTURE_CA_KEY, "--ca-key-unchecked"])


@case("ISO7816_D_09", "Use old session keys after Chip Authentication", SUCCESSFUL, **I,
      deviation="the fixture chip: after CA it accepts only the new keys (a command under the BAC keys ends "
                "the session with 6988)")
def d09(work):
    return Config(DataSet("passport").write(work + "/dump"))


@case("ISO7816_D_10", "Verify lifetime of ephemeral keys", SUCCESSFUL, **I,
      deviation="--quirk ca-ephemeral-check: the first CA's keys are unusable (the terminal must run CA again), "
                "and a terminal ephemeral key used before is refused 6A80")
def d10(work):
    return Config(DataSet("passport").write(work + "/dump"), chip=["--quirk", "ca-ephemeral-check"])


@case("ISO7816_D_11", "DG14 with invalid DH public key specification", FAILED, "ca", **I,
      deviation="DG14: DH ChipAuthenticationPublicKeyInfo whose X9.42 parameters lack q and have g = 0 "
                "(no usable group); the chip has no CA")
def d11(work):
    _, spki, (group, _, y) = dh_key(work)
    alg = sequence(oid(X942), sequence(integer(group.p), integer(0)))
    bad = sequence(alg, tlv(0x03, b"\x00" + integer(y)))
    return with_dg14(work, [ca_info(ca_oid("DH", "AES128")), ca_pk_info(ID_PK_DH, bad)])


@case("ISO7816_D_12", "DG14 with invalid ECDH public key specification", FAILED, "ca", **I,
      deviation="DG14: ECDH ChipAuthenticationPublicKeyInfo whose AlgorithmIdentifier names an unknown curve "
                "OID (1.3.36.3.3.2.8.1.1.99); the chip has no CA")
def d12(work):
    (_, body, _), = parse_tlvs(fixture_spki())
    key = parse_tlvs(body)[1][2]
    bad = sequence(sequence(oid("1.2.840.10045.2.1"), oid("1.3.36.3.3.2.8.1.1.99")), key)
    return with_dg14(work, [ca_info(ca_oid()), ca_pk_info(ID_PK_ECDH, bad)])


@case("ISO7816_D_13", "ChipAuthenticationPublicKeyInfo, key reference does not match key reference in "
      "ChipAuthenticationInfo", FAILED, "ca", **I,
      deviation="DG14: ChipAuthenticationInfo keyId 1, ChipAuthenticationPublicKeyInfo keyId 2 (the chip's key "
                "has keyId 2 and answers DO'84' 01 with 6A88)")
def d13(work):
    return with_dg14(work, [ca_info(ca_oid(), key_id=1), ca_pk_info(ID_PK_ECDH, fixture_spki(), key_id=2)])


@case("ISO7816_D_14", "ChipAuthentication with Extended Length", SUCCESSFUL, **I,
      deviation="DG14: DH key on the RFC 5114 2048/256 group (PK_IFD 256 bytes: the CA command needs an "
                "extended APDU under secure messaging); the chip takes extended length")
def d14(work):
    key, spki, _ = dh_key(work)
    return with_dg14(work, [ca_info(ca_oid("DH", "AES128")), ca_pk_info(ID_PK_DH, spki)], chip=["--ca-key", key])


@case("ISO7816_D_15", "ChipAuthentication: Use various status words for invalid key reference", FAILED, "ca", **I,
      deviation="one run per status word: MSE:Set AT of CA answered 6A88, 6A80, 6985, 6A86, 6D00 "
                "(--quirk ca-refused:SW)")
def d15(work):
    configs = []
    for sw in ("6A88", "6A80", "6985", "6A86", "6D00"):
        config = Config(DataSet("passport").write("%s/%s/dump" % (work, sw)), chip=["--quirk", "ca-refused:" + sw])
        config.label = sw
        configs.append(config)
    return configs
