"""ISO7816_F: Active Authentication (moved to ICAO P4 ISO7816_E in v1.5: titles only; F_03 deleted)."""
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from der import oid, parse_tlvs, sequence, integer, tlv

from ..dataset import DataSet
from ..plan import FAILED, SUCCESSFUL, Config, case

ID_AA = "2.23.136.1.1.5"
ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2"
AA_PASSED = {"active_authentication.status": "passed"}


def _rsa(work, *chip):
    return Config(DataSet("passport").write(work + "/dump"), chip=list(chip))


def ecdsa_dataset(work, signature_oid=ECDSA_WITH_SHA256):
    """The default data set with an ECDSA (P-256) Active Authentication key in DG15, DG14 with an
    ActiveAuthenticationInfo naming `signature_oid`, EF.SOD re-signed; the private key goes into
    the dump as DG15_sk.pkcs8 for the chip."""
    key = ec.generate_private_key(ec.SECP256R1())
    spki = key.public_key().public_bytes(serialization.Encoding.DER,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)
    ds = DataSet("passport")
    ds.files["DG15"] = tlv(0x6F, spki)
    (_, dg14_value, _), = parse_tlvs(ds.files["DG14"])
    (_, infos, _), = parse_tlvs(dg14_value)
    aa_info = sequence(oid(ID_AA), integer(1), oid(signature_oid))
    ds.files["DG14"] = tlv(0x6E, tlv(0x31, infos + aa_info))
    folder = ds.resign().write(work + "/dump")
    with open(folder + "/DG15_sk.pkcs8", "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return folder


@case("ISO7816_F_01", "Performing Active Authentication with RSA-SHA1", SUCCESSFUL, inferred=True,
      deviation="the fixture's RSA-1024 key, ISO/IEC 9796-2 with SHA-1 (trailer BC)", requires=AA_PASSED)
def f01(work):
    return _rsa(work)


@case("ISO7816_F_02", "Performing Active Authentication with ECDSA", SUCCESSFUL, inferred=True,
      deviation="ECDSA P-256 key in DG15, DG14 ActiveAuthenticationInfo ecdsa-with-SHA256, EF.SOD re-signed",
      requires=AA_PASSED)
def f02(work):
    return Config(ecdsa_dataset(work))


for _number, _hash in ((4, "sha224"), (5, "sha256"), (6, "sha384"), (7, "sha512")):
    def _build(work, _hash=_hash):
        return _rsa(work, "--aa-hash", _hash)
    case("ISO7816_F_%02d" % _number, "Performing Active Authentication with RSA-%s" % _hash.upper(),
         SUCCESSFUL, inferred=True, requires=AA_PASSED,
         deviation="ISO/IEC 9796-2 with %s (trailer xxCC), --aa-hash %s" % (_hash.upper(), _hash))(_build)


@case("ISO7816_F_08", "Performing Active Authentication with wrong trailer", FAILED, "aa", inferred=True,
      deviation="the RSA signature recovers a message whose trailer is BD instead of BC "
                "(--quirk aa-bad-trailer)")
def f08(work):
    return _rsa(work, "--quirk", "aa-bad-trailer")


@case("ISO7816_F_09", "Performing Active Authentication with invalid signature OID", FAILED, "aa", inferred=True,
      deviation="ECDSA AA key; DG14's ActiveAuthenticationInfo names 1.2.840.10045.4.3.99 (no signature "
                "algorithm); the chip signs with SHA-256; EF.SOD re-signed")
def f09(work):
    return Config(ecdsa_dataset(work, "1.2.840.10045.4.3.99"))
