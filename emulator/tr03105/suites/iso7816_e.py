"""ISO7816_E: Terminal Authentication (version 1, CV certificates), BSI only.

Base: Fixtures/passport-eac (BAC, chip authentication with DG14, DG3/DG4 behind EAC), with a TEST-ONLY
CV certificate set made for the case by cvc-create (tr03105/eacpki.py) in place of the plan's
CVCA_Cert_NN / DV_Cert_NN / IS_Cert_NN, EF.CVCA naming the case's trust point and the chip given
that trust point (--eac-cvca, or --eac-trust-point where EF.CVCA must not show it). The chip's date
is EF.SOD's signing time (2024-09-30), inside every chain's validity (dCVCAeff = 2024-09-20).
A refused chain is "failed: ta": `passport` reports terminal_authentication failed, DG3/DG4 not
read, the rest saved (runner.observe).
"""
import os

from der import integer, octet_string, oid, parse_tlvs, sequence, set_of, tlv

from fixturegen.eac import ef_cvca
from vpassport import ecc, keys

from .. import eacpki
from ..dataset import DataSet
from ..eacpki import BOTH, NONE, READ_DG3, READ_DG4, ROLE_CVCA
from ..plan import EITHER, FAILED, SUCCESSFUL, Config, case

ID_TA = "0.4.0.127.0.7.2.2.2"
# terminal authentication passed and every listed file read (DG3 and DG4 included)
ALL_READ = {"terminal_authentication.status": "passed", "unavailable": []}


def eac_chip(work, *, scheme="ECDSA_SHA_256", n=1, dv_rights=BOTH, is_rights=BOTH, include_root=False,
             corrupt=None, is_expiration=eacpki.ONE_MONTH, ds=None, is_kind=None):
    """The default EAC chip with a new chain n of `scheme`: (Config, Pki, (cvca, dv, is))."""
    pki = eacpki.Pki(work)
    cvca, dv, is_ = pki.chain(n, scheme, dv_rights=dv_rights, is_rights=is_rights, is_expiration=is_expiration,
                              is_kind=is_kind)
    ds = ds or DataSet("passport-eac")
    ds.files["CVCA"] = ef_cvca([cvca])
    certs = ([cvca] if include_root else []) + [dv, is_]
    terminal = pki.terminal("terminal", certs, key_of=is_, corrupt={"dv": dv, "is": is_}.get(corrupt))
    config = Config(ds.write(work + "/dump"), chip=["--eac-cvca", pki.path(cvca)], terminal=terminal)
    return config, pki, (cvca, dv, is_)


ALGORITHMS = [
    ("ISO7816_E_01", "Terminal Authentication with RSAv1.5 and SHA1", "RSA_v1_5_SHA_1", 3, "id-TA-RSA-v1-5-SHA-1, RSA 1024 (profile DPRCTD-SHA1, claimed)"),
    ("ISO7816_E_02", "Terminal Authentication with RSA v1.5 and SHA256", "RSA_v1_5_SHA_256", 4, "id-TA-RSA-v1-5-SHA-256, RSA 1024"),
    ("ISO7816_E_03", "Terminal Authentication with RSA-PSS and SHA1", "RSA_PSS_SHA_1", 5, "id-TA-RSA-PSS-SHA-1, RSA 1024 (profile DPRCTD-SHA1, claimed)"),
    ("ISO7816_E_04", "Terminal Authentication with RSA-PSS and SHA256", "RSA_PSS_SHA_256", 6, "id-TA-RSA-PSS-SHA-256, RSA 1024"),
    ("ISO7816_E_05", "Terminal Authentication with ECDSA and SHA1", "ECDSA_SHA_1", 7, "id-TA-ECDSA-SHA-1, brainpoolP256r1 (profile DPRCTD-SHA1, claimed)"),
    ("ISO7816_E_06", "Terminal Authentication with ECDSA and SHA224", "ECDSA_SHA_224", 8, "id-TA-ECDSA-SHA-224, brainpoolP256r1"),
    ("ISO7816_E_07", "Terminal Authentication with ECDSA and SHA256", "ECDSA_SHA_256", 1, "id-TA-ECDSA-SHA-256, brainpoolP256r1 (the default chain)"),
    ("ISO7816_E_35", "Terminal Authentication with RSA v1.5 and SHA512", "RSA_v1_5_SHA_512", 9, "id-TA-RSA-v1-5-SHA-512, RSA 1024"),
    ("ISO7816_E_36", "Terminal Authentication with RSA-PSS and SHA512", "RSA_PSS_SHA_512", 10, "id-TA-RSA-PSS-SHA-512, RSA 1024 for "
     "the CVCA and DV, RSA 2048 for the IS: the terminal's PSS signature with SHA-512 and a 64-byte salt (OpenPACE) "
     "needs a modulus of at least 1040 bits, so the plan's 1024-bit IS key cannot sign", "rsa-2048"),
    ("ISO7816_E_37", "Terminal Authentication with ECDSA and SHA384", "ECDSA_SHA_384", 11, "id-TA-ECDSA-SHA-384, brainpoolP256r1"),
    ("ISO7816_E_38", "Terminal Authentication with ECDSA and SHA512", "ECDSA_SHA_512", 12, "id-TA-ECDSA-SHA-512, brainpoolP256r1"),
]


def _algorithm_case(id, title, scheme, n, what, is_kind=None):
    @case(id, title, SUCCESSFUL, deviation="trust point, DV and IS certificates with %s; EF.CVCA names "
          "the trust point; the IS folder holds the CVCA, DV and IS certificates" % what,
          requires=ALL_READ)
    def build(work):
        return eac_chip(work, scheme=scheme, n=n, include_root=True, is_kind=is_kind)[0]


for _row in ALGORITHMS:
    _algorithm_case(*_row)


@case("ISO7816_E_08", "Verify certificates with wrong CAR in EF.CVCA", FAILED, "ta",
      deviation="EF.CVCA names UTTRCVCA00002, the chip's trust point is UTTRCVCA00001 (the IS has the "
                "chain under UTTRCVCA00001)")
def e08(work):
    config, pki, (cvca, dv, is_) = eac_chip(work)
    ds = DataSet("passport-eac")
    ds.files["CVCA"] = ef_cvca(["UTTRCVCA00002"])
    config.dump = ds.write(work + "/dump")
    config.chip = ["--eac-trust-point", pki.path(cvca)]
    return config


@case("ISO7816_E_09", "Verify certificates with missing CAR in EF.CVCA", FAILED, "ta",
      deviation="EF.CVCA is 42 00 00 00 00 (an empty CAR); the chip's trust point UTTRCVCA00001 is not shown")
def e09(work):
    config, pki, (cvca, dv, is_) = eac_chip(work)
    ds = DataSet("passport-eac")
    ds.files["CVCA"] = bytes.fromhex("4200000000")
    config.dump = ds.write(work + "/dump")
    config.chip = ["--eac-trust-point", pki.path(cvca)]
    return config


@case("ISO7816_E_10", "Verify certificates with 3 CAR in EF.CVCA", EITHER,
      deviation="EF.CVCA names three CARs UTCV00001, UTCV00002, UTCV00003 (short names); the chip's "
                "trust point is UTCV00001, the IS's chain starts under it")
def e10(work):
    pki = eacpki.Pki(work)
    cvca, dv, is_ = pki.chain(1, cvca="UTCV00001")
    ds = DataSet("passport-eac")
    ds.files["CVCA"] = ef_cvca(["UTCV00001", "UTCV00002", "UTCV00003"])
    return Config(ds.write(work + "/dump"), chip=["--eac-trust-point", pki.path(cvca)],
                  terminal=pki.terminal("terminal", [dv, is_], key_of=is_))


@case("ISO7816_E_11", "External authenticate with wrong document number", FAILED, "ta",
      deviation="the chip computes ID_PICC from document number M01X00T47 (the MRZ and DG1 say C01X00T47)")
def e11(work):
    config = eac_chip(work)[0]
    config.chip += ["--eac-document-number", "M01X00T47"]
    return config


@case("ISO7816_E_12", "External authenticate command with shorter challenge (7 bytes)", FAILED, "ta",
      deviation="GET CHALLENGE under secure messaging answers 7 bytes (BAC's stays 8): --quirk ta-challenge-length:7")
def e12(work):
    config = eac_chip(work)[0]
    config.chip += ["--quirk", "ta-challenge-length:7"]
    return config


@case("ISO7816_E_13", "External authenticate command with longer challenge (9 bytes)", FAILED, "ta",
      deviation="GET CHALLENGE under secure messaging answers 9 bytes (BAC's stays 8): --quirk ta-challenge-length:9")
def e13(work):
    config = eac_chip(work)[0]
    config.chip += ["--quirk", "ta-challenge-length:9"]
    return config


@case("ISO7816_E_14", "Verify access denied to DG3", SUCCESSFUL,
      deviation="the DV certificate's CHAT grants DG4 only (DV_Cert_11); the IS certificate asks for both "
                "(profile DG3: not claimed; the plan's verdict holds without it)",
      requires={"terminal_authentication.status": "passed"})
def e14(work):
    return eac_chip(work, dv_rights=READ_DG4)[0]


@case("ISO7816_E_15", "Verify access denied to DG4", SUCCESSFUL,
      deviation="the DV certificate's CHAT grants DG3 only (DV_Cert_12) (profile DG4: not claimed; the "
                "plan's verdict holds without it)",
      requires={"terminal_authentication.status": "passed"})
def e15(work):
    return eac_chip(work, dv_rights=READ_DG3)[0]


@case("ISO7816_E_16", "Verify denied access to DG3 and DG4", SUCCESSFUL,
      deviation="the DV certificate's CHAT grants neither DG3 nor DG4 (DV_Cert_13) (profiles DG3, DG4: "
                "not claimed; the plan's verdict holds without them)",
      requires={"terminal_authentication.status": "passed"})
def e16(work):
    return eac_chip(work, dv_rights=NONE)[0]


@case("ISO7816_E_17", "Verify certificates with wrong signature in DV certificate", FAILED, "ta",
      deviation="the DV certificate's last signature byte changed (DV_Cert_14); the IS folder holds the "
                "DV and IS certificates (the CVCA is the chip's trust point, not in the folder)")
def e17(work):
    return eac_chip(work, corrupt="dv")[0]


@case("ISO7816_E_18", "Verify certificates with wrong signature in IS certificate", FAILED, "ta",
      deviation="the IS certificate's last signature byte changed (IS_Cert_11)")
def e18(work):
    return eac_chip(work, corrupt="is")[0]


@case("ISO7816_E_19", "Terminal Authentication with expired certificate chain", FAILED, "ta",
      deviation="chip date dCVCAeff + 15 days (--eac-date 241005), the IS certificate expired at "
                "dCVCAeff + 14 days; the IS folder holds the whole chain from the CVCA")
def e19(work):
    config = eac_chip(work, include_root=True, is_expiration=eacpki.D0 + eacpki.dt.timedelta(days=14))[0]
    config.chip += ["--eac-date", "241005"]
    return config


def dg14_ta_file(dg14, fid, sfid):
    """DG14 with its TerminalAuthenticationInfo naming efCVCA FileID {fid, sfid}."""
    (tag, value, _), = parse_tlvs(dg14)
    (set_tag, items, _), = parse_tlvs(value)
    out = []
    for t, v, raw in parse_tlvs(items):
        inner = parse_tlvs(v)
        if inner and inner[0][0] == 0x06 and inner[0][2] == oid(ID_TA):
            raw = sequence(oid(ID_TA), integer(1), sequence(octet_string(fid), octet_string(sfid)))
        out.append(raw)
    return tlv(tag, set_of(*out))


@case("ISO7816_E_22", "TerminalAuthenticationInfo, file ID does not match FID of EF.CVCA", FAILED, "ta",
      deviation="DG14's TerminalAuthenticationInfo names efCVCA FID 011D (SFI 1C); EF.CVCA is 011C; EF.SOD re-signed")
def e22(work):
    ds = DataSet("passport-eac")
    ds.files["DG14"] = dg14_ta_file(ds.files["DG14"], b"\x01\x1D", b"\x1C")
    ds.resign()
    return eac_chip(work, ds=ds)[0]


@case("ISO7816_E_23", "TerminalAuthenticationInfo, SFID does not match SFID of EF.CVCA", FAILED, "ta",
      deviation="DG14's TerminalAuthenticationInfo names efCVCA FID 011C with SFI 1D; EF.CVCA's SFI is 1C; EF.SOD re-signed")
def e23(work):
    ds = DataSet("passport-eac")
    ds.files["DG14"] = dg14_ta_file(ds.files["DG14"], b"\x01\x1C", b"\x1D")
    ds.resign()
    return eac_chip(work, ds=ds)[0]


@case("ISO7816_E_24", "Terminal Authentication with missing certificates", FAILED, "ta",
      deviation="the default EAC chip; the IS is given no CV certificates (no --eac)")
def e24(work):
    config = eac_chip(work)[0]
    config.terminal = None
    return config


@case("ISO7816_E_26", "Terminal Authentication with additional data groups (DG11, DG12)", SUCCESSFUL,
      deviation="DG11 and DG12 listed in EF.COM and read only after Terminal Authentication "
                "(--eac-protect DG11,DG12)",
      requires=ALL_READ)
def e26(work):
    config = eac_chip(work)[0]
    config.chip += ["--eac-protect", "DG11,DG12"]
    return config


def _ca_dump(work, ds, ca_oid, pk_oid, alg, public_bits, private_der):
    """passport-eac with DG14 offering one chip-authentication key (and TA), EF.SOD re-signed."""
    dg14 = tlv(0x6E, set_of(sequence(oid(ca_oid), integer(1)),
                            sequence(oid(pk_oid), sequence(alg, tlv(0x03, b"\x00" + public_bits))),
                            sequence(oid(ID_TA), integer(1))))
    ds.files["DG14"] = dg14
    ds.resign()
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "ca-key.der")
    with open(path, "wb") as f:
        f.write(private_der)
    return path


@case("ISO7816_E_27", "Switch between different algorithms key sizes in CA and TA (RSA, CA with 2048 and TA with 1024)",
      SUCCESSFUL, deviation="DG14: id-CA-DH-3DES-CBC-CBC with a 2048-bit DH key (X9.42 dhpublicnumber with the "
      "RFC 5114 2048/256 group's p, g, q; no keyId); TA with an RSA-1024 chain (id-TA-RSA-v1-5-SHA-1 as "
      "CVCA_Cert_03); EF.SOD re-signed",
      requires=dict(ALL_READ, **{"chip_authentication.status": "passed"}))
def e27(work):
    group = ecc.standardized(2)
    x = group.random_exponent()
    alg = sequence(oid(keys.DH_PUBLIC_NUMBER), sequence(integer(group.p), integer(group.g), integer(group.q)))
    private = sequence(integer(0), alg, octet_string(integer(x)))
    ds = DataSet("passport-eac")
    key = _ca_dump(work, ds, "0.4.0.127.0.7.2.2.3.1.1", keys.ID_PK_DH, alg, integer(pow(group.g, x, group.p)), private)
    config = eac_chip(work, scheme="RSA_v1_5_SHA_1", n=3, ds=ds)[0]
    config.chip += ["--ca-key", key]
    return config


BRAINPOOL_P224R1 = "1.3.36.3.3.2.8.1.1.5"


@case("ISO7816_E_28", "Switch between different algorithms key sizes in CA and TA (EC, CA with 224 and TA with 256)",
      SUCCESSFUL, deviation="DG14: id-CA-ECDH-3DES-CBC-CBC on brainpoolP224r1 (named curve; no keyId); TA with "
      "ECDSA on brainpoolP256r1 (CVCA_Cert_01); EF.SOD re-signed",
      requires=dict(ALL_READ, **{"chip_authentication.status": "passed"}))
def e28(work):
    curve = ecc.standardized(11)
    d = curve.random_scalar()
    alg = sequence(oid("1.2.840.10045.2.1"), oid(BRAINPOOL_P224R1))
    size = (curve.p.bit_length() + 7) // 8
    private = sequence(integer(0), alg, octet_string(sequence(integer(1), octet_string(d.to_bytes(size, "big")))))
    ds = DataSet("passport-eac")
    key = _ca_dump(work, ds, "0.4.0.127.0.7.2.2.3.2.1", keys.ID_PK_ECDH, alg, curve.encode(curve.mul(d)), private)
    config = eac_chip(work, ds=ds)[0]
    config.chip += ["--ca-key", key]
    return config


def _without(ds, number):
    tags = {1: 0x61, 2: 0x75, 3: 0x63, 4: 0x76, 11: 0x6B, 12: 0x6C, 14: 0x6E, 15: 0x6F}
    del ds.files["DG%d" % number]
    ds.com([tags[n] for n in sorted(ds.data_groups())])
    ds.resign()
    return ds


@case("ISO7816_E_29", "Terminal authentication with DG3 but no DG4", SUCCESSFUL,
      deviation="no DG4 (EF.COM and EF.SOD without it, re-signed); the DV certificate grants DG3 only (DV_Cert_12)",
      requires=ALL_READ)
def e29(work):
    return eac_chip(work, dv_rights=READ_DG3, ds=_without(DataSet("passport-eac"), 4))[0]


@case("ISO7816_E_30", "Terminal authentication with DG4 but no DG3", SUCCESSFUL,
      deviation="no DG3 (EF.COM and EF.SOD without it, re-signed); the DV certificate grants DG4 only (DV_Cert_11)",
      requires=ALL_READ)
def e30(work):
    return eac_chip(work, dv_rights=READ_DG4, ds=_without(DataSet("passport-eac"), 3))[0]


@case("ISO7816_E_31", "Terminal authentication in combination with PACE to check dynamic binding between protocols",
      SUCCESSFUL, deviation="PACE with BAC deactivated (--pace --no-bac), then chip authentication (DG14) and TA: "
      "ID_PICC is Comp(the chip's ephemeral PACE key)",
      requires=ALL_READ)
def e31(work):
    config = eac_chip(work)[0]
    config.chip += ["--pace", "--no-bac"]
    return config


LINK16_EFFECTIVE = eacpki.dt.date(2024, 10, 19)     # one day before CVCA_Cert_01 expires
LINK16_EXPIRATION = eacpki.dt.date(2024, 12, 20)
LINK17_EFFECTIVE = eacpki.dt.date(2024, 12, 19)     # one day before CVCA_Link_16 expires
LINK17_EXPIRATION = eacpki.dt.date(2025, 2, 20)     # dCVCAexp + 4 months


def _link_chain(work, links):
    """CVCA_Cert_01, then `links` link certificates (16, 17), a DV and an IS under the last."""
    pki = eacpki.Pki(work)
    root = "UTTRCVCA00001"
    pki.issue(root, ROLE_CVCA)
    previous, chrs = root, []
    for n, (eff, exp) in zip((16, 17), [(LINK16_EFFECTIVE, LINK16_EXPIRATION), (LINK17_EFFECTIVE, LINK17_EXPIRATION)][:links]):
        chr_ = "UTTRCVCA%05d" % n
        pki.issue(chr_, ROLE_CVCA, effective=eff, expiration=exp, issuer=previous)
        chrs.append(chr_)
        previous = chr_
    eff, exp = [(LINK16_EFFECTIVE, LINK16_EXPIRATION), (LINK17_EFFECTIVE, LINK17_EXPIRATION)][links - 1]
    pki.issue("UTTRDV00016", eacpki.ROLE_DV_DOMESTIC, effective=eff, expiration=exp, issuer=previous)
    pki.issue("UTTRIS00016", eacpki.ROLE_IS, effective=eff, expiration=exp, issuer="UTTRDV00016")
    return pki, root, chrs


@case("ISO7816_E_32", "Terminal authentication including trust anchor update", SUCCESSFUL,
      deviation="EF.CVCA names CVCA_Cert_01 (UTTRCVCA00001); the IS has CVCA_Link_16 (UTTRCVCA00016, effective "
                "one day before CVCA_Cert_01 expires), DV_Cert_16 and IS_Cert_16 under it (optional case)",
      requires=ALL_READ)
def e32(work):
    pki, root, links = _link_chain(work, 1)
    ds = DataSet("passport-eac")
    ds.files["CVCA"] = ef_cvca([root])
    return Config(ds.write(work + "/dump"), chip=["--eac-cvca", pki.path(root)],
                  terminal=pki.terminal("terminal", links + ["UTTRDV00016", "UTTRIS00016"], key_of="UTTRIS00016"))


@case("ISO7816_E_33", "Terminal authentication with two different trust anchor updates", SUCCESSFUL,
      deviation="EF.CVCA names CVCA_Cert_01; the IS has CVCA_Link_16, CVCA_Link_17 (under Link_16), and "
                "DV_Cert_16 and IS_Cert_16 under Link_17 (optional case)",
      requires=ALL_READ)
def e33(work):
    pki, root, links = _link_chain(work, 2)
    ds = DataSet("passport-eac")
    ds.files["CVCA"] = ef_cvca([root])
    return Config(ds.write(work + "/dump"), chip=["--eac-cvca", pki.path(root)],
                  terminal=pki.terminal("terminal", links + ["UTTRDV00016", "UTTRIS00016"], key_of="UTTRIS00016"))


@case("ISO7816_E_34", "Terminal authentication with offered but not needed trust anchor update", SUCCESSFUL,
      deviation="EF.CVCA names CVCA_Cert_01 and CVCA_Link_16, both trust points of the chip; the IS still has "
                "CVCA_Link_16 with DV_Cert_16 and IS_Cert_16 (optional case)",
      requires=ALL_READ)
def e34(work):
    pki, root, links = _link_chain(work, 1)
    ds = DataSet("passport-eac")
    ds.files["CVCA"] = ef_cvca([root] + links)
    return Config(ds.write(work + "/dump"),
                  chip=["--eac-cvca", pki.path(root), "--eac-cvca", pki.path(links[0])],
                  terminal=pki.terminal("terminal", links + ["UTTRDV00016", "UTTRIS00016"], key_of="UTTRIS00016"))
