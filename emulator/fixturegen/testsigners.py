"""The TEST-ONLY Document Signers of Fixtures/pki, loaded to sign a changed file again as the
fixtures' issuer would: the virtual passport (an EF.CardSecurity made to hold a generated
EF.CardAccess) and the TR-03105 cases (EF.SOD and EF.CardSecurity of each case's dump) both
sign through here, with the fixtures' own schemes and signing time."""
from __future__ import annotations

import os

from cryptography.hazmat.primitives.serialization import load_pem_private_key

from . import cardsecurity, x509
from .x509 import RSA_SHA256, Scheme, utc

PKI = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                   "Fixtures", "pki")
SIGNING_TIME = utc(2024, 9, 30, 10, 0, 0)       # every file of Fixtures/ is signed at this time

# The scheme each TEST-ONLY Document Signer signs with (as fixturegen.generate made them).
SCHEMES = {
    "dsc-UTO": RSA_SHA256,
    "dsc-UTO-rsapss": Scheme("rsa-pss", "sha256", salt=32),
    "dsc-UTO-p256": Scheme("ecdsa", "sha256"),
    "dsc-UTO-bp384": Scheme("ecdsa", "sha384"),
    "dsc-UTO-expired": RSA_SHA256,
    "dsc-UTO-revoked": RSA_SHA256,
}


def pki_path(name: str) -> str:
    """Fixtures/pki/TEST-ONLY-<name>, e.g. pki_path("csca-UTO.pem")."""
    return os.path.join(PKI, "TEST-ONLY-%s" % name)


def signer(name: str = "dsc-UTO"):
    """(certificate DER, private key) of a TEST-ONLY signer, e.g. "dsc-UTO"."""
    with open(pki_path(name + ".pem"), "rb") as f:
        cert = x509.from_pem(f.read())
    with open(pki_path(name + ".key.pem"), "rb") as f:
        key = load_pem_private_key(f.read(), password=None)
    return cert, key


def sign_card_security(security_infos: bytes, name: str = "dsc-UTO") -> bytes:
    """EF.CardSecurity holding `security_infos` (a SET), signed by the TEST-ONLY `name`."""
    cert, key = signer(name)
    return cardsecurity.ef_card_security(security_infos=security_infos, h="sha256", dsc=cert,
                                         dsc_key=key, scheme=SCHEMES[name], signing_time=SIGNING_TIME)
