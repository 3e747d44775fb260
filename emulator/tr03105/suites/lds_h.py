"""LDS_H: EF.SOD, passive authentication and the Document Signer certificate profile.

Each case signs a new EF.SOD over the fixture's data groups with a new TEST-ONLY Document Signer,
made at build time under a TEST-ONLY CSCA of Fixtures/pki (sodkit): the RSA CSCA UTO for RSA and
DSA signers, the brainpoolP384r1 CSCA UTO-bp384 (then the scan's only trust anchor) for ECDSA
chains. The plan's default EF.SOD (CFG.DFLT.EAC: SHA-256, RSASSA-PSS SHA-256, DS in EF.SOD) is the
base of the failure cases; their data groups are those of Fixtures/passport (BAC, CA, AA), not the
plan's EAC data set. Profiles: AIP and DPRCTD-SHA1 (SHA-1 still accepted) are claimed.
"""
from ..dataset import DataSet
from ..plan import EITHER, FAILED, SUCCESSFUL, Config, case
from .. import sodkit
from ..sodkit import OMIT, Alg, CertBuilder, SODBuilder, new_key

import der
from fixturegen import x509

PSS256 = Alg("pss", "sha256")


def make(work, alg=PSS256, *, key="rsa-2048", ca="uto", cert_alg=None, base="passport",
         cert=None, sod=None, ds=None, lso_hash=None, signer_hash=None, chip=None):
    """Config of a dump whose EF.SOD is signed by a new DSC; `cert(CertBuilder)` and
    `sod(SODBuilder)` change elements before they are encoded; `ds(DataSet)` the files."""
    data = DataSet(base)
    if ds:
        ds(data)
    k = new_key(key)
    cb = CertBuilder(k, cert_alg or alg, ca=ca)
    if cert:
        cert(cb)
    sb = SODBuilder(data.data_groups(), cb.build(), k, alg, lso_hash=lso_hash, signer_hash=signer_hash)
    if sod:
        sod(sb)
    data.files["SOD"] = sb.build()
    trust = [] if ca == "uto" else ["--csca", cb.ca_pem]
    return Config(data.write(work + "/dump"), trust=trust, chip=list(chip or []))


def builder(**kw):
    return lambda work: make(work, **kw)


def flip(b, i=-1):
    b = bytearray(b)
    b[i] ^= 0x01
    return bytes(b)


def add(id, title, expect, step=None, deviation="", inferred=False, **kw):
    case(id, title, expect, step, deviation=deviation, inferred=inferred)(builder(**kw))


# --- algorithms (plan text: expected successful) ----------------------------------------------

RSA_CASES = [
    ("LDS_H_01", "RSASSA-PKCS1_v15 with SHA1, SHA1 DG hash, DS stored inside SOD", "pkcs1", "sha1"),
    ("LDS_H_02", "RSASSA-PSS with SHA1, SHA1 DG hash, DS stored inside SOD", "pss", "sha1"),
    ("LDS_H_03", "RSASSA-PSS with SHA256, SHA256 DG hash, DS stored inside SOD", "pss", "sha256"),
    ("LDS_H_04", "RSASSA-PKCS1_v15 with SHA224, SHA224 DG hash, DS stored inside SOD", "pkcs1", "sha224"),
    ("LDS_H_05", "RSASSA-PKCS1_v15 with SHA256, SHA256 DG hash, DS stored inside SOD", "pkcs1", "sha256"),
    ("LDS_H_06", "RSASSA-PKCS1_v15 with SHA384, SHA384 DG hash, DS stored inside SOD", "pkcs1", "sha384"),
    ("LDS_H_07", "RSASSA-PKCS1_v15 with SHA512, SHA512 DG hash, DS stored inside SOD", "pkcs1", "sha512"),
    ("LDS_H_94", "RSASSA-PSS with SHA224, SHA224 DG hash, DS stored inside SOD", "pss", "sha224"),
    ("LDS_H_95", "RSASSA-PSS with SHA384, SHA384 DG hash, DS stored inside SOD", "pss", "sha384"),
    ("LDS_H_96", "RSASSA-PSS with SHA512, SHA512 DG hash, DS stored inside SOD", "pss", "sha512"),
]
for _id, _title, _kind, _h in RSA_CASES:
    add(_id, _title, SUCCESSFUL, alg=Alg(_kind, _h),
        deviation="EF.SOD: %s hashes, %s signature by a new RSA-2048 DSC in EF.SOD; DSC signed by the RSA CSCA "
                  "with the same algorithm%s" % (_h.upper(), _kind.upper(), " (profile DPRCTD-SHA1, claimed)" if _h == "sha1" else ""))

for _id, _h in [("LDS_H_79", "sha1"), ("LDS_H_80", "sha224"), ("LDS_H_81", "sha256"), ("LDS_H_82", "sha384"),
                ("LDS_H_83", "sha512")]:
    add(_id, "RSASSA-PKCS1_v15 with %s, %s DG hash, DS stored inside SOD, RSA OID" % (_h.upper(), _h.upper()),
        SUCCESSFUL, alg=Alg("rsa", _h), cert_alg=Alg("pkcs1", _h),
        deviation="EF.SOD: %s hashes, PKCS#1 v1.5 signature named by rsaEncryption (1.2.840.113549.1.1.1) in "
                  "SignerInfo.signatureAlgorithm; DSC signed PKCS#1 %s%s" % (_h.upper(), _h.upper(),
                  " (profile DPRCTD-SHA1, claimed)" if _h == "sha1" else ""))

EC_CURVE = {224: "secp224r1", 256: "brainpoolP256r1", 384: "brainpoolP384r1", 512: "brainpoolP512r1"}
EC_CASES = [
    ("LDS_H_09", "ECDSA with SHA1, SHA1 DG hash, DS stored inside SOD", "ecdsa", "sha1", 224),
    ("LDS_H_10", "ECDSA with SHA1 (BSI OID), SHA1 DG hash, DS stored inside SOD", "plain", "sha1", 224),
    ("LDS_H_11", "ECDSA with SHA224 (BSI OID), SHA224 DG hash, DS stored inside SOD", "plain", "sha224", 224),
    ("LDS_H_12", "ECDSA with SHA256 (BSI OID), SHA256 DG hash, DS stored inside SOD", "plain", "sha256", 256),
    ("LDS_H_13", "ECDSA with SHA384 (BSI OID), SHA384 DG hash, DS stored inside SOD", "plain", "sha384", 384),
    ("LDS_H_14", "ECDSA with SHA512 (BSI OID), SHA512 DG hash, DS stored inside SOD", "plain", "sha512", 512),
    ("LDS_H_70", "ECDSA with SHA224 (ANSI OID), SHA224 DG hash, DS stored inside SOD", "ecdsa", "sha224", 224),
    ("LDS_H_71", "ECDSA with SHA256 (ANSI OID), SHA256 DG hash, DS stored inside SOD", "ecdsa", "sha256", 256),
    ("LDS_H_72", "ECDSA with SHA384 (ANSI OID), SHA384 DG hash, DS stored inside SOD", "ecdsa", "sha384", 384),
    ("LDS_H_73", "ECDSA with SHA512 (ANSI OID), SHA512 DG hash, DS stored inside SOD", "ecdsa", "sha512", 512),
]
for _id, _title, _kind, _h, _bits in EC_CASES:
    add(_id, _title, SUCCESSFUL, alg=Alg(_kind, _h), key=EC_CURVE[_bits], ca="bp384",
        deviation="EF.SOD: %s hashes, %s signature (%s OID) by a new %s DSC in EF.SOD; DSC signed with the same "
                  "algorithm by the TEST-ONLY brainpoolP384r1 CSCA (the plan: EC 256 CSCA)%s" % (
                      _h.upper(), "ECDSA" if _kind == "ecdsa" else "ECDSA plain", "ANSI X9.62" if _kind == "ecdsa" else "BSI",
                      EC_CURVE[_bits], " (profile DPRCTD-SHA1, claimed)" if _h == "sha1" else ""))

for _id, _h in [("LDS_H_08", "sha1"), ("LDS_H_97", "sha224"), ("LDS_H_98", "sha256")]:
    add(_id, "DSA with %s, %s DG hash, DS stored inside SOD" % (_h.upper(), _h.upper()), SUCCESSFUL,
        alg=Alg("dsa", _h), key="dsa-2048", cert_alg=Alg("pkcs1", _h),
        deviation="EF.SOD: %s hashes, DSA signature by a new DSA-2048 DSC in EF.SOD; DSC signed PKCS#1 %s by the "
                  "RSA CSCA (the plan: DSA 3072 CSCA; no DSA CSCA in Fixtures/pki)%s" % (
                      _h.upper(), _h.upper(), " (profile DPRCTD-SHA1, claimed; the plan gives no expected result, "
                                              "successful as for the family)" if _h == "sha1" else ""))


@case("LDS_H_15", "RSASSA-PKCS1_v15 with SHA256, SHA256 DG hash, DS NOT stored inside SOD", SUCCESSFUL,
      deviation="EF.SOD (PKCS#1 SHA-256) without certificates; the inspection system has the DSC "
                "(`passport scan --dsc FILE`)")
def h15(work):
    import os
    config = make(work, alg=Alg("pkcs1", "sha256"), sod=lambda s: setattr(s, "certificates", []))
    dsc = CertBuilder(new_key("rsa-2048"), Alg("pkcs1", "sha256")).build()
    path = os.path.join(work, "dsc.pem")
    with open(path, "wb") as f:
        f.write(x509.pem(dsc))
    config.scan = ["--dsc", path]
    return config


# --- mixed algorithms (plan text: successful) ---------------------------------------------------

add("LDS_H_74", "LDS Security Object, different digestAlgorithm", SUCCESSFUL, alg=PSS256, lso_hash="sha224",
    signer_hash="sha256", deviation="LDSSecurityObject hashes SHA-224, SignerInfo digest SHA-256, RSASSA-PSS SHA-256")
add("LDS_H_75", "Different valid signature algorithms in SOD and DS", SUCCESSFUL, alg=PSS256, lso_hash="sha224",
    signer_hash="sha224", cert_alg=PSS256,
    deviation="hashes SHA-224 (LDSSecurityObject and SignerInfo), EF.SOD signed RSASSA-PSS SHA-256, DSC signed RSASSA-PSS SHA-256")
add("LDS_H_76", "Different valid signature algorithms in SOD and DS", SUCCESSFUL, alg=Alg("pkcs1", "sha256"),
    lso_hash="sha224", signer_hash="sha224", ca="bp384", cert_alg=Alg("ecdsa", "sha224"),
    deviation="hashes SHA-224, EF.SOD signed PKCS#1 SHA-256 by an RSA-2048 DSC that the EC CSCA "
              "(TEST-ONLY brainpoolP384r1; the plan: EC 256) signed with ECDSA-SHA224")
add("LDS_H_77", "Different valid signature algorithms in SOD and DS", SUCCESSFUL, alg=PSS256,
    cert_alg=Alg("pss", "sha224"),
    deviation="hashes SHA-256, EF.SOD RSASSA-PSS SHA-256, DSC signed RSASSA-PSS SHA-224 (the CSCA's own "
              "self-signature stays PKCS#1 SHA-256)")
add("LDS_H_78", "Different valid signature algorithms in SOD and DS", SUCCESSFUL, alg=PSS256,
    cert_alg=Alg("pkcs1", "sha256"),
    deviation="hashes SHA-256, EF.SOD RSASSA-PSS SHA-256, DSC signed PKCS#1 v1.5 SHA-256")


# --- EF.SOD structure (moved to ICAO P4 LDS_D: inferred, failed at passive authentication) --------

def _set(**attrs):
    def change(s):
        for k, v in attrs.items():
            setattr(s, k, v)
    return change


def _wrong_sid_serial(s):
    parts = x509.cert_parts(s.cert)
    s.sid = der.sequence(parts["issuer"], der.integer(parts["serial"] + 1))


def _ski_sid(s, wrong=False):
    ski = s.ski()
    s.sid = der.implicit_primitive(0, flip(ski) if wrong else ski)


def _attrs(s, drop=None):
    econtent = s.lso()
    attrs = s.default_attributes(econtent)
    s.attributes = [a for a in attrs if not (drop and der.oid(drop) in a)]


INFERRED_SOD = [
    ("LDS_H_17", "DG tag 77 wrong (tag 78 instead)", "EF.SOD's outer tag 78 instead of 77", _set(outer_tag=0x78)),
    ("LDS_H_18", "DG tag 77 length byte too small", "EF.SOD's tag 77 length one less than its content",
     _set(outer_length_delta=-1)),
    ("LDS_H_19", "DG tag 77 length byte too big", "EF.SOD's tag 77 length one more than its content",
     _set(outer_length_delta=1)),
    ("LDS_H_20", "SignedData version incorrect", "SignedData version 1 instead of 3", _set(sd_version=der.integer(1))),
    ("LDS_H_21", "SignedData version missing", "SignedData without its version", _set(sd_version=OMIT)),
    ("LDS_H_22", "SignedData illegal digestAlgorithm (MD5)", "SignedData.digestAlgorithms holds MD5 only",
     _set(sd_digest_algorithms=der.set_of(sodkit.hash_algorithm("md5", null=True)))),
    ("LDS_H_23", "SignedData missing digestAlgorithm list", "SignedData without digestAlgorithms",
     _set(sd_digest_algorithms=OMIT)),
    ("LDS_H_24", "SignedData incorrect content type OID for id-icaoldsSecurityObject",
     "eContentType id-data (1.2.840.113549.1.7.1) instead of id-icao-ldsSecurityObject",
     _set(econtent_type=der.oid(sodkit.ID_DATA))),
    ("LDS_H_25", "SignedData missing content type OID for id-icaoldsSecurityObject", "encapContentInfo without eContentType",
     _set(econtent_type=OMIT)),
    ("LDS_H_26", "SignerInfo, incorrect signer info version value", "SignerInfo version 2 (sid is issuerAndSerialNumber)",
     _set(si_version=der.integer(2))),
    ("LDS_H_27", "SignerInfo, missing signer info version", "SignerInfo without its version", _set(si_version=OMIT)),
    ("LDS_H_28", "SignerInfo, Version 1 and incorrect issuerAndSerialNumber",
     "SignerInfo v1 naming the DSC's serial number + 1", _wrong_sid_serial),
    ("LDS_H_29", "SignerInfo, Version 3 and incorrect subjectKeyIdentifier",
     "SignerInfo v3 with a subjectKeyIdentifier one bit off the DSC's",
     lambda s: (_set(si_version=der.integer(3))(s), _ski_sid(s, wrong=True))),
    ("LDS_H_30", "SignerInfo, illegal digestAlgorithm", "SignerInfo.digestAlgorithm MD5 (attributes still SHA-256)",
     _set(si_digest_alg=sodkit.hash_algorithm("md5", null=True))),
    ("LDS_H_31", "SignerInfo, missing digestAlgorithm", "SignerInfo without digestAlgorithm", _set(si_digest_alg=OMIT)),
    ("LDS_H_32", "SignerInfo, incorrect messageDigest attribute value",
     "messageDigest attribute one bit off (signature valid over the attributes)",
     lambda s: setattr(s, "message_digest", flip(sodkit.digest(s.signer_hash, s.lso())))),
    ("LDS_H_33", "SignerInfo, missing messageDigest attribute",
     "signed attributes without messageDigest (signature valid over them)",
     lambda s: _attrs(s, drop=sodkit.ID_MESSAGE_DIGEST)),
    ("LDS_H_37", "SignerInfo, incorrect Signature", "SignerInfo signature one bit off",
     lambda s: setattr(s, "signature", flip(s.alg.sign(s.key, der.set_of(*s.default_attributes(s.lso())))))),
    ("LDS_H_38", "SignerInfo, missing Signature", "SignerInfo without its signature", _set(omit_signature=True)),
    ("LDS_H_39", "LDS Security Object, incorrect security object version", "LDSSecurityObject version 2",
     _set(lso_version=der.integer(2))),
    ("LDS_H_40", "LDS Security Object, missing security object version", "LDSSecurityObject without version",
     _set(lso_version=OMIT)),
    ("LDS_H_42", "LDS Security Object, missing digestAlgorithm", "LDSSecurityObject without hashAlgorithm",
     _set(lso_alg=OMIT)),
    ("LDS_H_43", "LDS Security Object, incorrect DataGroupHash value for DG2", "DG2's hash one bit off (EF.SOD signed)",
     lambda s: s.dg_hash_overrides.__setitem__(2, flip(sodkit.digest(s.lso_hash, s.dgs[2])))),
    ("LDS_H_44", "LDS Security Object, missing DataGroupHash value for DG1", "no DataGroupHash for DG1 (EF.SOD signed)",
     lambda s: s.dgs.pop(1)),
]
for _id, _title, _dev, _change in INFERRED_SOD:
    add(_id, _title, FAILED, "pa", inferred=True, sod=_change,
        deviation=_dev + "; otherwise the plan's default EF.SOD (RSASSA-PSS SHA-256, DS inside)")


def _md5_lso(s):
    s.lso_alg = sodkit.hash_algorithm("md5", null=True)
    s.lso_hash = "md5"


add("LDS_H_41", "LDS Security Object, illegal digestAlgorithm", FAILED, "pa", inferred=True, sod=_md5_lso,
    deviation="LDSSecurityObject hashAlgorithm MD5, data-group hashes MD5; EF.SOD signed RSASSA-PSS SHA-256")


# --- EF.SOD (plan text) -----------------------------------------------------------------------

def _md5_signature(s):
    s.si_signature_alg = der.sequence(der.oid(sodkit.PKCS1["md5"]), der.null())
    s.alg = Alg("pkcs1", "md5")


add("LDS_H_36", "SignerInfo, not allowed signature algorithm", FAILED, "pa", sod=_md5_signature,
    deviation="SignerInfo signatureAlgorithm md5WithRSAEncryption, signed so (hashes SHA-256, DS inside)")


def _extra_dg10(s):
    s.dg_entries = [der.sequence(der.integer(n), der.octet_string(sodkit.digest(s.lso_hash, s.dgs[n])))
                    for n in sorted(s.dgs)] + [der.sequence(der.integer(10), der.octet_string(b"\xFF" * 32))]


def _dg_number(s, n, number):
    entries = []
    for m in sorted(s.dgs):
        h = der.octet_string(sodkit.digest(s.lso_hash, s.dgs[m]))
        entries.append(der.sequence(*([number] if m == n and number is not OMIT else [] if m == n else [der.integer(m)]), h))
    s.dg_entries = entries


add("LDS_H_45", "LDS Security Object, additional DataGroupHash value for DG10", FAILED, "pa", sod=_extra_dg10,
    deviation="an additional DataGroupHash for DG10 (not on the chip, not in EF.COM), EF.SOD signed")
add("LDS_H_46", "LDS Security Object, incorrect DataGroupNumber", FAILED, "pa",
    sod=lambda s: _dg_number(s, 1, der.integer(0xFF)), deviation="DG1's DataGroupNumber FF, EF.SOD signed")
add("LDS_H_47", "LDS Security Object, missing DataGroupNumber for DG2", FAILED, "pa",
    sod=lambda s: _dg_number(s, 2, OMIT), deviation="DG2's DataGroupHash without dataGroupNumber, EF.SOD signed")
add("LDS_H_69", "Check priority of signature check", FAILED, "pa",
    sod=lambda s: s.dg_hash_overrides.__setitem__(2, flip(sodkit.digest(s.lso_hash, s.dgs[2]))),
    deviation="EF.SOD properly signed over a wrong hash of DG2")
add("LDS_H_84", "SignerInfo, Version 3 and correct issuerAndSerialNumber", FAILED, "pa",
    sod=_set(si_version=der.integer(3)), deviation="SignerInfo version 3 with sid issuerAndSerialNumber")
add("LDS_H_85", "SignerInfo, Version 1 and correct subjectKeyIdentifier", FAILED, "pa",
    sod=_ski_sid, deviation="SignerInfo version 1 with sid subjectKeyIdentifier [0]")


# --- LDS 1.8 security object (moved to ICAO P4 LDS_D: inferred) ---------------------------------

def _lds_version(version, info):
    def change(s):
        s.lso_version = der.integer(version)
        s.lds_version_info = der.sequence(der.printable(info), der.printable("040000")) if info else OMIT
    return change


def _com(version):
    return lambda d: d.com(list(d.files["COM"][d.files["COM"].index(b"\x5C") + 2:]), lds_version=version)


add("LDS_H_86", "EF.SOD with LDS Version 1.8", SUCCESSFUL, inferred=True, sod=_lds_version(1, "0108"), ds=_com("0108"),
    deviation="LDSSecurityObject v1 with ldsVersionInfo 0108/040000, EF.COM LDS 0108")
add("LDS_H_87", "Security Object with LDS Version 1.8 but with wrong version number", FAILED, "pa", inferred=True,
    sod=_lds_version(0, "0108"), ds=_com("0108"),
    deviation="LDSSecurityObject with ldsVersionInfo 0108 but version 0, EF.COM LDS 0108")
add("LDS_H_88", "Security Object with LDS Version 1.7 but version number 1", FAILED, "pa", inferred=True,
    sod=_lds_version(1, None), deviation="LDSSecurityObject version 1 without ldsVersionInfo, EF.COM LDS 0107")
add("LDS_H_89", "EF.SOD with future LDS Version 1.9", SUCCESSFUL, inferred=True, sod=_lds_version(1, "0109"),
    ds=_com("0109"), deviation="LDSSecurityObject v1 with ldsVersionInfo 0109/040000, EF.COM LDS 0109")


# --- EF.SOD against EF.COM (plan text: failed) ----------------------------------------------------

def _add_dg3(d):
    d.files["DG3"] = DataSet("passport-eac").files["DG3"]


def _dgs_without(n):
    return lambda s: s.dgs.pop(n)


add("LDS_H_90", "EF.SOD inconsistent with EF.COM (more data groups)", FAILED, "pa", ds=_add_dg3,
    deviation="DG3 (Fixtures/passport-eac's, unprotected here) on the chip and hashed in EF.SOD, not in EF.COM")
add("LDS_H_91", "EF.SOD inconsistent with EF.COM (less data groups)", FAILED, "pa", sod=_dgs_without(2),
    deviation="EF.SOD without DG2's hash while EF.COM lists DG2 (EF.SOD signed)")


def h92(work):
    def sod(s):
        s.dgs.pop(2)
    return make(work, ds=_add_dg3, sod=sod)


case("LDS_H_92", "EF.SOD inconsistent with EF.COM (different data groups)", FAILED, "pa",
     deviation="EF.SOD's entry for DG2 replaced by one for DG3 (DG3 on the chip, Fixtures/passport-eac's); "
               "EF.COM lists DG2, not DG3")(h92)


@case("LDS_H_93", "EF.SOD with missing checksum of EF.CardSecurity", FAILED, "pa",
      deviation="PACE chip (Fixtures/passport-pace, PACE-CAM) whose EF.CardSecurity signature is one bit off "
                "(the plan: 'EF.SOD contains incorrect signature of EF.CardSecurity')")
def h93(work):
    import os
    from ..dataset import FIXTURES
    data = DataSet("passport")                  # Fixtures/passport-pace is this plus EF.CardSecurity
    with open(os.path.join(FIXTURES, "passport-pace", "CardSecurity.bin"), "rb") as f:
        cs = f.read()
    data.files["CardSecurity"] = flip(cs, len(cs) - 1)
    return Config(data.write(work + "/dump"), chip=["--pace", "--no-bac", "--mapping", "cam"])


# --- the Document Signer certificate (plan text unless marked inferred: failed) -----------------

def _tbs(**parts):
    def change(c):
        for k, v in parts.items():
            c.tbs[k] = v
    return change


def _ext(**parts):
    def change(c):
        for k, v in parts.items():
            c.extensions[k] = v
    return change


def _issuer_utf8_country(c):
    # the CSCA's subject with countryName as UTF8String (ICAO 9303-12: PrintableString)
    cert = x509.cert_parts(c.ca_cert)["subject"]
    c.tbs["issuer"] = cert.replace(b"\x13\x03UTO", b"\x0c\x03UTO", 1)


def _generalized_validity(c):
    from fixturegen.x509 import utc
    c.tbs["validity"] = der.sequence(der.generalized_time(utc(2024, 1, 1)), der.generalized_time(utc(2035, 1, 1)))


def _spki_md5(c):
    spki = c.tbs["spki"]
    c.tbs["spki"] = spki.replace(der.oid(sodkit.RSA_ENCRYPTION), der.oid(sodkit.PKCS1["md5"]), 1)


def _aki_without_key_id(c):
    parts = x509.cert_parts(c.ca_cert)
    general_names = der.implicit_constructed(1, der.explicit(4, parts["issuer"]))
    c.extensions["aki"] = x509.extension("authorityKeyIdentifier", der.sequence(
        general_names, der.implicit_primitive(2, der.integer(parts["serial"])[2:])))


def _cert_md5(c):
    c.alg = Alg("pkcs1", "md5")
    c.tbs["signature"] = c.alg.algorithm_identifier
    c.outer_alg = c.alg.algorithm_identifier


def _cert_bad_signature(c):
    c.signature = flip(c.alg.sign(c.ca_key, c.tbs_der()))


CERT_CASES = [
    ("LDS_H_48", "DS certificate, incorrect certificate version", True, "DSC version v2 (1) with extensions",
     _tbs(version=der.explicit(0, der.integer(1)))),
    ("LDS_H_49", "DS certificate, missing certificate version", True, "DSC without the version (v1) but with extensions",
     _tbs(version=OMIT)),
    ("LDS_H_50", "DS certificate, missing serialNumber", False, "DSC without serialNumber", _tbs(serial=OMIT)),
    ("LDS_H_51", "DS certificate, signature element does not match SignatureAlgorithm", False,
     "DSC tbs signature names PKCS#1 SHA-256 while signatureAlgorithm (and the signature) is RSASSA-PSS SHA-256",
     _tbs(signature=Alg("pkcs1", "sha256").algorithm_identifier)),
    ("LDS_H_52", "DS certificate, missing signature element", False, "DSC tbs without the signature AlgorithmIdentifier",
     _tbs(signature=OMIT)),
    ("LDS_H_53", "DS certificate, incorrect issuer element (naming convention does not follow ICAO)", True,
     "DSC issuer = the CSCA's subject with countryName as UTF8String instead of PrintableString (ICAO 9303-12)",
     _issuer_utf8_country),
    ("LDS_H_54", "DS certificate, issuer element does not match CSCA subject value", False,
     "DSC issuer C=UTO, O=Utopia Test CSCA TEST ONLY, CN=CSCA UTO OTHER (signed by the CSCA's key, AKI its key id)",
     _tbs(issuer=x509.name(("countryName", "UTO"), ("organizationName", "Utopia Test CSCA TEST ONLY"),
                           ("commonName", "CSCA UTO OTHER")))),
    ("LDS_H_55", "DS certificate, missing issuer element", False, "DSC without issuer", _tbs(issuer=OMIT)),
    ("LDS_H_56", "DS certificate, incorrect validity element", False,
     "DSC validity (2024–2035) as GeneralizedTime instead of UTCTime", _generalized_validity),
    ("LDS_H_57", "DS certificate, missing validity element", False, "DSC without validity", _tbs(validity=OMIT)),
    ("LDS_H_58", "DS certificate, not allowed subjectPublicKeyInfo", False,
     "DSC subjectPublicKeyInfo algorithm md5WithRSAEncryption instead of rsaEncryption", _spki_md5),
    ("LDS_H_59", "DS certificate, missing subjectPublicKeyInfo element", False, "DSC without subjectPublicKeyInfo",
     _tbs(spki=OMIT)),
    ("LDS_H_60", "DS certificate, incorrect AuthorityKeyIdentifier element (does not contain keyIdentifier)", False,
     "DSC authorityKeyIdentifier with authorityCertIssuer and serial only", _aki_without_key_id),
    ("LDS_H_61", "DS certificate, missing AuthorityKeyIdentifier element", False, "DSC without authorityKeyIdentifier",
     _ext(aki=OMIT)),
    ("LDS_H_62", "DS certificate, incorrect keyUsage extension", False, "DSC keyUsage not marked critical",
     _ext(ku=sodkit.key_usage([x509.KU_DIGITAL_SIGNATURE], critical=False))),
    ("LDS_H_63", "DS certificate, incorrect keyUsage Extension (digitalSignature bit not asserted)", False,
     "DSC keyUsage nonRepudiation only", _ext(ku=sodkit.key_usage([1]))),
    ("LDS_H_64", "DS certificate, missing keyUsage Extension", False, "DSC without keyUsage", _ext(ku=OMIT)),
    ("LDS_H_65", "DS certificate, illegal signatureAlgorithm", False,
     "DSC signed md5WithRSAEncryption by the CSCA (the plan: MD5 in the whole chain; the CSCA is the fixture's)",
     _cert_md5),
    ("LDS_H_66", "DS certificate, missing signatureAlgorithm", False, "DSC without the outer signatureAlgorithm",
     lambda c: setattr(c, "outer_alg", OMIT)),
    ("LDS_H_67", "DS certificate, incorrect signatureValue", True, "DSC signatureValue one bit off", _cert_bad_signature),
    ("LDS_H_68", "DS certificate, missing signatureValue", True, "DSC without signatureValue",
     lambda c: setattr(c, "omit_signature", True)),
]
for _id, _title, _inferred, _dev, _change in CERT_CASES:
    add(_id, _title, FAILED, "pa", inferred=_inferred, cert=_change,
        deviation=_dev + "; EF.SOD as the plan's default (RSASSA-PSS SHA-256, DSC inside)")
