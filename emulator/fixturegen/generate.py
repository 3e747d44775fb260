"""Builds everything under Fixtures/: the test PKI, the main passport dump and the PA variants."""

from __future__ import annotations

import hashlib
import json
import os

from . import cardsecurity, eac, keys, lds, mrz, portrait, sod, x509
from .testsigners import SIGNING_TIME
from .x509 import (KU_CRL_SIGN, KU_DIGITAL_SIGNATURE, KU_KEY_CERT_SIGN, RSA_SHA256, Scheme, utc)

# ---------------------------------------------------------------------------
# The fictional holder (issuing state UTO = ICAO's "Utopia" test code)
# ---------------------------------------------------------------------------

PERSON = dict(
    document_code="P", issuing_state="UTO", surname="SPECIMEN", given_names=["ALEX", "MARIE"],
    document_number="C01X00T47", nationality="UTO", birth="880412", sex="F", expiry="340930",
    personal_number="",
)
# ICAO 9303-4: an all-filler personal number field may have '<' or '0' as its check digit. We use '<'.
EMPTY_PERSONAL_NUMBER_CHECK = "<"

DG11_FIELDS = [
    (0x5F0E, "SPECIMEN<<ALEX<MARIE"),       # full name
    (0x5F10, "UTO<TEST<0001"),              # personal number (only in DG11; the MRZ field is empty)
    (0x5F2B, "19880412"),                   # full date of birth
    (0x5F11, "UTOPIA<CITY"),                # place of birth
    (0x5F42, "1<MAIN<STREET<UTOPIA<CITY"),  # address
    (0x5F12, "+999<555<0100"),              # telephone
    (0x5F13, "SOFTWARE<TESTER"),            # profession
    (0x5F14, "DR"),                         # title
]
DG12_FIELDS = [
    (0x5F19, "UTOPIA<PASSPORT<OFFICE"),     # issuing authority
    (0x5F26, "20240930"),                   # date of issue
]
DG2_TARGET_BYTES = 22 * 1024

# names of the test PKI
CSCA_NAME = x509.name(("countryName", "UTO"), ("organizationName", "Utopia Test CSCA TEST ONLY"),
                      ("commonName", "CSCA UTO TEST"))
CSCA_BP384_NAME = x509.name(("countryName", "UTO"), ("organizationName", "Utopia Test CSCA TEST ONLY"),
                            ("commonName", "CSCA UTO TEST BP384"))
ROGUE_CSCA_NAME = x509.name(("countryName", "UTO"), ("organizationName", "Utopia Rogue CSCA TEST ONLY"),
                            ("commonName", "CSCA UTO ROGUE TEST"))


def dsc_name(cn: str, org: str = "Utopia Passport Office TEST ONLY") -> bytes:
    return x509.name(("countryName", "UTO"), ("organizationName", org), ("commonName", cn))


FILES = ["COM.bin", "DG1.bin", "DG2.bin", "DG11.bin", "DG12.bin", "DG14.bin", "DG15.bin", "SOD.bin"]


class Generator:
    def __init__(self, root: str, new_keys: bool, log=print):
        self.root = root
        self.fx = os.path.join(root, "Fixtures")
        self.pki = os.path.join(self.fx, "pki")
        self.new_keys = new_keys
        self.log = log

    # -- helpers ------------------------------------------------------------
    def p(self, *parts: str) -> str:
        return os.path.join(self.fx, *parts)

    def read(self, path: str) -> bytes | None:
        try:
            with open(path, "rb") as f:
                return f.read()
        except FileNotFoundError:
            return None

    def write(self, path: str, data: bytes) -> None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        old = self.read(path)
        with open(path, "wb") as f:
            f.write(data)
        if old != data:
            self.log(f"  {'updated' if old is not None else 'wrote'} {os.path.relpath(path, self.root)} ({len(data)} bytes)")

    def key(self, file: str, kind: str):
        return keys.load_or_create(os.path.join(self.pki, file), kind, self.new_keys, self.log)

    def previous_cert(self, pem_file: str) -> bytes | None:
        data = self.read(os.path.join(self.pki, pem_file))
        return x509.from_pem(data) if data else None

    def previous_sod_signature(self, folder: str) -> bytes | None:
        data = self.read(os.path.join(folder, "SOD.bin"))
        if not data:
            return None
        try:
            return sod.parse(data)["signature"]
        except Exception:
            return None

    def ca_cert(self, *, key, subject, serial, scheme, explicit_curve=None, pem_file, der_file=None):
        spki = x509.spki_for(key.public_key(), explicit_curve)
        kid = x509.key_identifier(spki)
        cert = x509.certificate(
            serial=serial, issuer=subject, subject=subject, not_before=utc(2020, 1, 1), not_after=utc(2040, 1, 1),
            spki=spki, scheme=scheme, issuer_key=key, previous=self.previous_cert(pem_file),
            extensions=[x509.ext_ski(kid), x509.ext_key_usage([KU_KEY_CERT_SIGN, KU_CRL_SIGN]),
                        x509.ext_basic_constraints_ca(0)])
        self.write(os.path.join(self.pki, pem_file), x509.pem(cert))
        if der_file:
            self.write(os.path.join(self.pki, der_file), cert)
        return cert

    def ds_cert(self, *, key, subject, serial, issuer_cert, issuer_key, scheme, not_before, not_after,
                explicit_curve=None, pem_file=None, previous=None):
        spki = x509.spki_for(key.public_key(), explicit_curve)
        issuer = x509.cert_parts(issuer_cert)
        if pem_file:
            previous = self.previous_cert(pem_file)
        cert = x509.certificate(
            serial=serial, issuer=issuer["subject"], subject=subject, not_before=not_before, not_after=not_after,
            spki=spki, scheme=scheme, issuer_key=issuer_key, previous=previous,
            extensions=[x509.ext_aki(x509.key_identifier(issuer["spki"])), x509.ext_ski(x509.key_identifier(spki)),
                        x509.ext_key_usage([KU_DIGITAL_SIGNATURE])])
        if pem_file:
            self.write(os.path.join(self.pki, pem_file), x509.pem(cert))
        return cert

    # -- data groups --------------------------------------------------------
    def build_data_groups(self):
        lines = mrz.td3(**PERSON, empty_personal_number_check=EMPTY_PERSONAL_NUMBER_CHECK)
        self.mrz_lines = lines
        image = portrait.draw()
        # DG2 = JPEG + fixed overhead, so aim the JPEG at the target minus that overhead
        overhead = len(lds.dg2(self._facial_record(b""))) + 8
        self.jpeg, self.jpeg_quality = portrait.jpeg_near(image, DG2_TARGET_BYTES - overhead)
        dgs = {
            1: lds.dg1(lines),
            2: lds.dg2(self._facial_record(self.jpeg)),
            11: lds.dg11(DG11_FIELDS),
            12: lds.dg12(DG12_FIELDS),
            14: lds.dg14(self.chip_ca_key.public_key(), "brainpoolP256r1"),
            15: lds.dg15(self.chip_aa_key.public_key()),
        }
        com = lds.ef_com("0107", "040000", [lds.DG_TAGS[n] for n in sorted(dgs)])
        return com, dgs

    def _facial_record(self, jpeg: bytes) -> bytes:
        (lx, ly), (rx, ry) = portrait.eye_centres()
        return lds.facial_record(jpeg=jpeg, width=portrait.WIDTH, height=portrait.HEIGHT, gender="F",
                                 eye="green", hair="brown", feature_points=[(12, 1, lx, ly), (12, 2, rx, ry)])

    def write_dump(self, folder: str, com: bytes, dgs: dict[int, bytes], sod_file: bytes) -> None:
        self.write(os.path.join(folder, "COM.bin"), com)
        for n, data in dgs.items():
            self.write(os.path.join(folder, f"DG{n}.bin"), data)
        self.write(os.path.join(folder, "SOD.bin"), sod_file)

    # -- main ---------------------------------------------------------------
    def run(self, with_pa: bool = True) -> None:
        os.makedirs(self.pki, exist_ok=True)
        self.log("PKI")
        self.csca_key = self.key("TEST-ONLY-csca-UTO.key.pem", "rsa-3072")
        self.dsc_key = self.key("TEST-ONLY-dsc-UTO.key.pem", "rsa-2048")
        self.chip_aa_key = self.key("TEST-ONLY-chip-aa-rsa1024.key.pem", "rsa-1024")
        self.chip_ca_key = self.key("TEST-ONLY-chip-ca-brainpoolP256r1.key.pem", "ec-brainpoolP256r1")
        self.csca = self.ca_cert(key=self.csca_key, subject=CSCA_NAME, serial=0x01, scheme=RSA_SHA256,
                                 pem_file="TEST-ONLY-csca-UTO.pem", der_file="TEST-ONLY-csca-UTO.der")
        self.dsc = self.ds_cert(key=self.dsc_key, subject=dsc_name("DS UTO TEST 01"), serial=0x8A0001,
                                issuer_cert=self.csca, issuer_key=self.csca_key, scheme=RSA_SHA256,
                                not_before=utc(2024, 1, 1), not_after=utc(2035, 1, 1),
                                pem_file="TEST-ONLY-dsc-UTO.pem")

        self.log("passport")
        com, dgs = self.build_data_groups()
        self.com, self.dgs = com, dgs
        main = self.p("passport")
        main_sod = sod.ef_sod(h="sha256", dg_files=dgs, dsc=self.dsc, dsc_key=self.dsc_key, scheme=RSA_SHA256,
                              signing_time=SIGNING_TIME)
        self.main_sod = main_sod
        self.write_dump(main, com, dgs, main_sod)
        self.write(os.path.join(main, "mrz.txt"), ("\n".join(self.mrz_lines) + "\n").encode())
        self.write(os.path.join(main, "expected.json"), self.expected_json(main))
        self.run_pace()
        eac.run(self, SIGNING_TIME)
        if with_pa:
            self.run_pa()

    def expected_json(self, folder: str) -> bytes:
        l1, l2 = self.mrz_lines
        (lx, ly), (rx, ry) = portrait.eye_centres()
        dg2 = self.dgs[2]
        jpeg_offset = dg2.index(self.jpeg)
        doc = {
            "_comment": "Fictional TEST-ONLY passport generated by scripts/make-fixtures; values the parsers must find.",
            "mrz": {
                "lines": [l1, l2],
                "documentCode": "P",
                "issuingState": "UTO",
                "surname": "SPECIMEN",
                "givenNames": "ALEX MARIE",
                "documentNumber": "C01X00T47",
                "documentNumberCheckDigit": l2[9],
                "nationality": "UTO",
                "birthDate": "1988-04-12",
                "birthDateMRZ": "880412",
                "birthDateCheckDigit": l2[19],
                "sex": "F",
                "expiryDate": "2034-09-30",
                "expiryDateMRZ": "340930",
                "expiryDateCheckDigit": l2[27],
                "personalNumber": "",
                "personalNumberCheckDigit": l2[42],
                "compositeCheckDigit": l2[43],
                "bacKeySeedInput": l2[0:10] + l2[13:20] + l2[21:28],
            },
            "com": {"ldsVersion": "0107", "unicodeVersion": "040000", "tags": ["61", "75", "6B", "6C", "6E", "6F"]},
            "dg2": {
                "format": "ISO/IEC 19794-5:2005", "imageType": "JPEG", "width": portrait.WIDTH,
                "height": portrait.HEIGHT, "gender": "F", "eyeColour": "green", "hairColour": "brown",
                "expression": "neutral", "featurePoints": [{"code": "12.1", "x": lx, "y": ly},
                                                           {"code": "12.2", "x": rx, "y": ry}],
                "jpegOffsetInFile": jpeg_offset, "jpegLength": len(self.jpeg),
                "jpegSha256": hashlib.sha256(self.jpeg).hexdigest(),
            },
            "dg11": {f"{t:04X}": v for t, v in DG11_FIELDS},
            "dg12": {f"{t:04X}": v for t, v in DG12_FIELDS},
            "dg14": {"chipAuthenticationProtocol": lds.ID_CA_ECDH_AES_CBC_CMAC_128, "version": 1,
                     "publicKeyProtocol": lds.ID_PK_ECDH, "curve": "brainpoolP256r1"},
            "dg15": {"algorithm": "rsaEncryption", "bits": 1024, "exponent": 65537},
            "sod": {"hashAlgorithm": "sha256", "signatureAlgorithm": "sha256WithRSAEncryption",
                    "signingTime": "2024-09-30T10:00:00Z", "dataGroups": sorted(self.dgs),
                    "dscSubject": "C=UTO, O=Utopia Passport Office TEST ONLY, CN=DS UTO TEST 01",
                    "dscSerial": "8A0001", "csca": "pki/TEST-ONLY-csca-UTO.pem"},
            "files": {},
        }
        for f in FILES:
            data = self.read(os.path.join(folder, f))
            doc["files"][f] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        return (json.dumps(doc, indent=2) + "\n").encode()

    # -- PACE (the virtual passport's --pace; EF.CardSecurity for PACE-CAM) ---
    def run_pace(self) -> None:
        """passport-pace/: the main dump plus EF.CardSecurity for PACE-CAM."""
        self.log("passport-pace")
        folder = self.p("passport-pace")
        self.write_dump(folder, self.com, self.dgs, self.main_sod)
        self.write_card_security(folder, self.chip_ca_key, self.dsc, self.dsc_key)

    def write_card_security(self, folder: str, chip_ca_key, dsc: bytes, dsc_key) -> None:
        """EF.CardSecurity naming `chip_ca_key`, signed by `dsc` (the old signature kept when
        nothing changed, so that regenerating leaves the file as it was)."""
        path = os.path.join(folder, "CardSecurity.bin")
        previous = None
        if self.read(path):
            try:
                previous = cardsecurity.parse(self.read(path))["signature"]
            except Exception:
                previous = None
        self.write(path, cardsecurity.ef_card_security(
            security_infos=cardsecurity.security_infos_cam(chip_ca_key.public_key()),
            h="sha256", dsc=dsc, dsc_key=dsc_key, scheme=RSA_SHA256,
            signing_time=SIGNING_TIME, previous_signature=previous))

    # -- passive authentication variants -----------------------------------
    def run_pa(self) -> None:
        self.log("pa")
        pa = self.p("pa")
        com, dgs = self.com, self.dgs

        def signed(folder, *, h, dsc, key, scheme, dg_files=None):
            return sod.ef_sod(h=h, dg_files=dg_files or dgs, dsc=dsc, dsc_key=key, scheme=scheme,
                              signing_time=SIGNING_TIME, previous_signature=self.previous_sod_signature(folder))

        # 1. identical to the main fixture
        self.write_dump(os.path.join(pa, "rsa-pkcs1-sha256"), com, dgs, self.main_sod)

        # 2. RSASSA-PSS with SHA-512 everywhere
        folder = os.path.join(pa, "rsa-pss-sha512")
        k = self.key("TEST-ONLY-dsc-UTO-rsapss.key.pem", "rsa-2048")
        c = self.ds_cert(key=k, subject=dsc_name("DS UTO TEST 02 PSS"), serial=0x0A0002, issuer_cert=self.csca,
                         issuer_key=self.csca_key, scheme=RSA_SHA256, not_before=utc(2024, 1, 1),
                         not_after=utc(2035, 1, 1), pem_file="TEST-ONLY-dsc-UTO-rsapss.pem")
        self.write_dump(folder, com, dgs, signed(folder, h="sha512", dsc=c, key=k,
                                                 scheme=Scheme("rsa-pss", "sha512", salt=64)))

        # 3. ECDSA P-256 DSC under the RSA CSCA
        folder = os.path.join(pa, "ecdsa-p256-sha256")
        k = self.key("TEST-ONLY-dsc-UTO-p256.key.pem", "ec-P-256")
        c = self.ds_cert(key=k, subject=dsc_name("DS UTO TEST 03 P-256"), serial=0x0A0003, issuer_cert=self.csca,
                         issuer_key=self.csca_key, scheme=RSA_SHA256, not_before=utc(2024, 1, 1),
                         not_after=utc(2035, 1, 1), pem_file="TEST-ONLY-dsc-UTO-p256.pem")
        self.write_dump(folder, com, dgs, signed(folder, h="sha256", dsc=c, key=k, scheme=Scheme("ecdsa", "sha256")))

        # 4. brainpoolP384r1 with explicit domain parameters, its own CSCA, SHA-384 everywhere
        folder = os.path.join(pa, "ecdsa-brainpoolP384r1-explicit")
        ecdsa384 = Scheme("ecdsa", "sha384")
        ck = self.key("TEST-ONLY-csca-UTO-bp384.key.pem", "ec-brainpoolP384r1")
        cc = self.ca_cert(key=ck, subject=CSCA_BP384_NAME, serial=0x02, scheme=ecdsa384,
                          explicit_curve="brainpoolP384r1", pem_file="TEST-ONLY-csca-UTO-bp384.pem")
        k = self.key("TEST-ONLY-dsc-UTO-bp384.key.pem", "ec-brainpoolP384r1")
        c = self.ds_cert(key=k, subject=dsc_name("DS UTO TEST 04 BP384"), serial=0x0B0001, issuer_cert=cc,
                         issuer_key=ck, scheme=ecdsa384, not_before=utc(2024, 1, 1), not_after=utc(2035, 1, 1),
                         explicit_curve="brainpoolP384r1", pem_file="TEST-ONLY-dsc-UTO-bp384.pem")
        self.write_dump(folder, com, dgs, signed(folder, h="sha384", dsc=c, key=k, scheme=ecdsa384))

        # 5. DG11 changed after signing (the SOD is the main one)
        folder = os.path.join(pa, "tampered-dg")
        dg11 = bytearray(dgs[11])
        at = dg11.index(b"19880412") + 3          # full date of birth 1988 -> 1989
        dg11[at] = ord("9")
        self.tampered_dg11_offset = at
        self.write_dump(folder, com, {**dgs, 11: bytes(dg11)}, self.main_sod)

        # 6. one bit of the SOD signature flipped
        folder = os.path.join(pa, "tampered-sod")
        sig = sod.parse(self.main_sod)["signature"]
        at = self.main_sod.rindex(sig) + len(sig) - 1
        bad = bytearray(self.main_sod)
        bad[at] ^= 0x01
        self.tampered_sod_offset = at
        self.write_dump(folder, com, dgs, bytes(bad))

        # 7. DSC expired before the signing time
        folder = os.path.join(pa, "expired-dsc")
        k = self.key("TEST-ONLY-dsc-UTO-expired.key.pem", "rsa-2048")
        c = self.ds_cert(key=k, subject=dsc_name("DS UTO TEST 05 EXPIRED"), serial=0x0A0005, issuer_cert=self.csca,
                         issuer_key=self.csca_key, scheme=RSA_SHA256, not_before=utc(2023, 1, 1),
                         not_after=utc(2023, 12, 31, 23, 59, 59), pem_file="TEST-ONLY-dsc-UTO-expired.pem")
        self.write_dump(folder, com, dgs, signed(folder, h="sha256", dsc=c, key=k, scheme=RSA_SHA256))

        # 8. DSC revoked by the CSCA's CRL
        folder = os.path.join(pa, "revoked-dsc")
        k = self.key("TEST-ONLY-dsc-UTO-revoked.key.pem", "rsa-2048")
        c = self.ds_cert(key=k, subject=dsc_name("DS UTO TEST 06 REVOKED"), serial=0x0A0006, issuer_cert=self.csca,
                         issuer_key=self.csca_key, scheme=RSA_SHA256, not_before=utc(2024, 1, 1),
                         not_after=utc(2035, 1, 1), pem_file="TEST-ONLY-dsc-UTO-revoked.pem")
        self.write_dump(folder, com, dgs, signed(folder, h="sha256", dsc=c, key=k, scheme=RSA_SHA256))
        crl_path = os.path.join(self.pki, "TEST-ONLY-csca-UTO.crl")
        crl = x509.crl(issuer=CSCA_NAME, issuer_kid=x509.key_identifier(x509.cert_parts(self.csca)["spki"]),
                       this_update=utc(2024, 10, 1), next_update=utc(2039, 12, 31),
                       revoked=[(0x0A0006, utc(2024, 9, 15), 1)],   # CRLReason keyCompromise
                       crl_number=1, scheme=RSA_SHA256, issuer_key=self.csca_key, previous=self.read(crl_path))
        self.write(crl_path, crl)

        # 9. signed under a rogue CSCA (keys derived from fixed labels, never stored)
        folder = os.path.join(pa, "unknown-csca")
        rk = keys.deterministic_rsa("TEST-ONLY rogue CSCA UTO", 3072)
        rc = self.ca_cert(key=rk, subject=ROGUE_CSCA_NAME, serial=0x01, scheme=RSA_SHA256,
                          pem_file="TEST-ONLY-rogue-csca-UTO.pem")
        k = keys.deterministic_rsa("TEST-ONLY rogue DSC UTO", 2048)
        old = self.read(os.path.join(folder, "SOD.bin"))
        old_cert = sod.parse(old)["certificates"][0] if old else None
        c = self.ds_cert(key=k, subject=dsc_name("DS UTO ROGUE TEST 01", "Utopia Rogue Office TEST ONLY"),
                         serial=0x0C0001, issuer_cert=rc, issuer_key=rk, scheme=RSA_SHA256,
                         not_before=utc(2024, 1, 1), not_after=utc(2035, 1, 1), previous=old_cert)
        self.write_dump(folder, com, dgs, signed(folder, h="sha256", dsc=c, key=k, scheme=RSA_SHA256))

        # 10. PACE-CAM clones: the genuine data groups and EF.SOD, but a chip key of the clone's
        #     own in EF.CardSecurity, signed by the rogue DSC (passport-pace-clone) or by the
        #     genuine DSC as if its key had leaked (passport-pace-wrongkey: only the comparison
        #     with DG14 catches that one). The virtual passport serves them with --ca-key CLONE.
        clone_key = self.key("TEST-ONLY-clone-chip-ca-brainpoolP256r1.key.pem", "ec-brainpoolP256r1")
        for name, signer, signer_key in [("passport-pace-clone", c, k), ("passport-pace-wrongkey", self.dsc, self.dsc_key)]:
            clone = self.p(name)
            self.write_dump(clone, com, dgs, self.main_sod)
            self.write_card_security(clone, clone_key, signer, signer_key)

        self.write(os.path.join(pa, "cases.json"), self.cases_json())

    def cases_json(self) -> bytes:
        csca = "pki/TEST-ONLY-csca-UTO.pem"
        cases = {
            "rsa-pkcs1-sha256": dict(trustAnchor=csca, hashAlgorithm="sha256", signatureAlgorithm="sha256WithRSAEncryption",
                                     valid=True, signature="valid", dataGroupHashes="all match", chain="valid"),
            "rsa-pss-sha512": dict(trustAnchor=csca, hashAlgorithm="sha512",
                                   signatureAlgorithm="RSASSA-PSS (SHA-512, MGF1-SHA-512, salt 64)",
                                   valid=True, signature="valid", dataGroupHashes="all match", chain="valid"),
            "ecdsa-p256-sha256": dict(trustAnchor=csca, hashAlgorithm="sha256", signatureAlgorithm="ecdsa-with-SHA256",
                                      valid=True, signature="valid", dataGroupHashes="all match", chain="valid"),
            "ecdsa-brainpoolP384r1-explicit": dict(trustAnchor="pki/TEST-ONLY-csca-UTO-bp384.pem", hashAlgorithm="sha384",
                                                   signatureAlgorithm="ecdsa-with-SHA384", valid=True, signature="valid",
                                                   dataGroupHashes="all match", chain="valid",
                                                   explicitParameters=True),
            "tampered-dg": dict(trustAnchor=csca, hashAlgorithm="sha256", signatureAlgorithm="sha256WithRSAEncryption",
                                valid=False, signature="valid", dataGroupHashes="DG11 mismatch", chain="valid",
                                detail=f"DG11.bin byte at offset {self.tampered_dg11_offset} changed ('8' -> '9')"),
            "tampered-sod": dict(trustAnchor=csca, hashAlgorithm="sha256", signatureAlgorithm="sha256WithRSAEncryption",
                                 valid=False, signature="invalid", dataGroupHashes="all match", chain="valid",
                                 detail=f"SOD.bin byte at offset {self.tampered_sod_offset} (last signature byte) XOR 0x01"),
            "expired-dsc": dict(trustAnchor=csca, hashAlgorithm="sha256", signatureAlgorithm="sha256WithRSAEncryption",
                                valid=False, signature="valid", dataGroupHashes="all match",
                                chain="DSC expired (notAfter 2023-12-31T23:59:59Z < signingTime 2024-09-30T10:00:00Z)"),
            "revoked-dsc": dict(trustAnchor=csca, crl="pki/TEST-ONLY-csca-UTO.crl", hashAlgorithm="sha256",
                                signatureAlgorithm="sha256WithRSAEncryption", valid=False, signature="valid",
                                dataGroupHashes="all match", chain="DSC revoked (serial 0A0006 on the CSCA's CRL)",
                                validWithoutCRL=True),
            "unknown-csca": dict(trustAnchor=csca, hashAlgorithm="sha256", signatureAlgorithm="sha256WithRSAEncryption",
                                 valid=False, signature="valid", dataGroupHashes="all match", chain="unknown CSCA",
                                 validWithTrustAnchor="pki/TEST-ONLY-rogue-csca-UTO.pem"),
        }
        return (json.dumps({"_comment": "Expected passive-authentication outcome of each folder in Fixtures/pa "
                                        "(TEST ONLY, generated by scripts/make-fixtures).",
                            "signingTime": "2024-09-30T10:00:00Z", "cases": cases}, indent=2) + "\n").encode()
