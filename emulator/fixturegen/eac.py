"""TEST-ONLY EAC material: the Utopia ("UT") terminal-authentication PKI of card verifiable
certificates (Fixtures/pki/eac/, one folder per inspection system) and the EAC passport dump
Fixtures/passport-eac/ (the main passport plus DG3, DG4, EF.CVCA and a TerminalAuthenticationInfo).

Certificates come from OpenPACE's `cvc-create` (Debian package `openpace`). Keys are made here
(DER PKCS#8, as cvc-create writes them) and reused from disk; a certificate on disk is kept when a new
one would have the same body and the old signature still verifies with the issuer's key, so that
regenerating leaves every file as it was (cvc-create's ECDSA signatures are randomised).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import subprocess

import der

from . import biometrics, cvc, lds, sod
from .cvc import READ_DG3, READ_DG4, ROLE_CVCA, ROLE_DV_DOMESTIC, ROLE_IS, TA_ECDSA_SHA256, TA_RSA_V15_SHA256
from .x509 import RSA_SHA256, spki_ec_named

EC, RSA = "ec-brainpoolP256r1", "rsa-2048"
D = dt.date
BOTH = READ_DG3 | READ_DG4

# CHR, role, rights, effective, expiration, key, TA scheme, issuer CHR (None: self-signed)
AUTHORITIES = [
    ("UTCVCA00001", ROLE_CVCA, BOTH, D(2024, 1, 1), D(2040, 12, 31), EC, TA_ECDSA_SHA256, None),
    ("UTCVCA00002", ROLE_CVCA, BOTH, D(2025, 1, 1), D(2040, 12, 31), EC, TA_ECDSA_SHA256, "UTCVCA00001"),
    ("UTDVTEST00001", ROLE_DV_DOMESTIC, BOTH, D(2025, 7, 1), D(2040, 12, 31), EC, TA_ECDSA_SHA256, "UTCVCA00002"),
    ("UTCVCAX0001", ROLE_CVCA, BOTH, D(2024, 1, 1), D(2040, 12, 31), EC, TA_ECDSA_SHA256, None),
    ("UTDVTESTX0001", ROLE_DV_DOMESTIC, BOTH, D(2025, 7, 1), D(2040, 12, 31), EC, TA_ECDSA_SHA256, "UTCVCAX0001"),
]
# folder, IS CHR, rights, effective, expiration, key, TA scheme, the other certificates in the folder
# (the last one issues the IS certificate)
TERMINALS = [
    ("terminal", "UTISTEST00001", BOTH, D(2025, 7, 1), D(2040, 12, 31), EC, TA_ECDSA_SHA256,
     ["UTCVCA00002", "UTDVTEST00001"]),
    ("terminal-rsa", "UTISRSA00001", BOTH, D(2025, 7, 1), D(2040, 12, 31), RSA, TA_RSA_V15_SHA256,
     ["UTCVCA00002", "UTDVTEST00001"]),
    ("expired", "UTISTEST00002", BOTH, D(2024, 1, 1), D(2025, 6, 30), EC, TA_ECDSA_SHA256,
     ["UTCVCA00002", "UTDVTEST00001"]),
    ("no-dg3-right", "UTISTEST00003", READ_DG4, D(2025, 7, 1), D(2040, 12, 31), EC, TA_ECDSA_SHA256,
     ["UTCVCA00002", "UTDVTEST00001"]),
    ("wrong-cvca", "UTISTESTX0001", BOTH, D(2025, 7, 1), D(2040, 12, 31), EC, TA_ECDSA_SHA256,
     ["UTCVCAX0001", "UTDVTESTX0001"]),
]
TRUST_POINTS = ["UTCVCA00001"]           # what EF.CVCA of passport-eac names
EF_CVCA_SIZE = 36                        # two CARs of at most 16 bytes with their headers, 00 padded

ID_TA = cvc.ID_TA
PASSPORT_EAC_FILES = ["COM.bin", "DG1.bin", "DG2.bin", "DG3.bin", "DG4.bin", "DG11.bin", "DG12.bin",
                      "DG14.bin", "DG15.bin", "SOD.bin", "CVCA.bin"]

# DG3: (finger position, compression, image seed, quality); DG4: (eye, image seed, quality)
FINGERS = [(2, "PNG", 3031, 82), (7, "JPEG", 3032, 76), (1, "WSQ", 3033, 80)]
EYES = [(biometrics.IRIS_RIGHT, 4041, 85), (biometrics.IRIS_LEFT, 4042, 83)]
WSQ_PYTHON_ENV = "FIXTURES_WSQ_PYTHON"


def ef_cvca(cars: list[str]) -> bytes:
    """EF.CVCA (BSI TR-03110-3, "EF.CVCA"): CAR data objects 42, then 00 up to the file's fixed size."""
    data = b"".join(der.tlv(0x42, car.encode("latin-1")) for car in cars)
    assert len(data) <= EF_CVCA_SIZE
    return data + bytes(EF_CVCA_SIZE - len(data))


def dg14_with_ta(ca_public_key, curve: str) -> bytes:
    """DG14 of the main passport plus TerminalAuthenticationInfo { id-TA, version 1 } (SET OF in DER order)."""
    ca_info = der.sequence(der.oid(lds.ID_CA_ECDH_AES_CBC_CMAC_128), der.integer(1))
    ca_pk_info = der.sequence(der.oid(lds.ID_PK_ECDH), spki_ec_named(ca_public_key, curve))
    ta_info = der.sequence(der.oid(ID_TA), der.integer(1))
    return der.tlv(lds.TAG_DG14, der.set_of(ca_info, ca_pk_info, ta_info))


class EacGenerator:
    def __init__(self, gen):
        self.gen = gen
        self.dir = os.path.join(gen.pki, "eac")
        self.certs: dict[str, bytes] = {}
        self.keys: dict[str, object] = {}
        self.key_files: dict[str, str] = {}

    def log(self, text):
        self.gen.log(text)

    # -- PKI ----------------------------------------------------------------
    def _certificate(self, *, chr, role, rights, effective, expiration, key_kind, scheme, issuer, key_file,
                     cert_file) -> bytes:
        key = cvc.load_or_create_key(key_file, key_kind, self.gen.new_keys, self.log)
        self.keys[chr], self.key_files[chr] = key, key_file
        signer_cert = self.certs[issuer] if issuer else None
        signer_key_file = self.key_files[issuer] if issuer else key_file
        new = cvc.issue(chr=chr, role=role, rights=rights, effective=effective, expiration=expiration,
                        key_file=key_file, scheme_oid=scheme, signer_key_file=signer_key_file,
                        signer_cert=signer_cert, verbose=getattr(self.gen, "verbose", False), log=self.log)
        old = self.gen.read(cert_file)
        if old is not None:
            try:
                old_cert, new_cert = cvc.Cvc(old), cvc.Cvc(new)
                signer = cvc.Cvc(signer_cert) if signer_cert else old_cert
                domain = self._domain(issuer) if issuer else old_cert
                if old_cert.body == new_cert.body and old_cert.verify(signer.public_key(domain), signer.key_oid):
                    new = old
            except (ValueError, KeyError):
                pass
        self.gen.write(cert_file, new)
        self.certs[chr] = new
        return new

    def _domain(self, chr: str) -> cvc.Cvc:
        """The CVCA certificate at the top of chr's chain (its EC domain parameters)."""
        c = cvc.Cvc(self.certs[chr])
        while c.role != ROLE_CVCA:
            c = cvc.Cvc(self.certs[c.car])
        return c

    def run_pki(self) -> None:
        self.log("pki/eac (cvc-create)")
        for chr, role, rights, eff, exp, kind, scheme, issuer in AUTHORITIES:
            self._certificate(chr=chr, role=role, rights=rights, effective=eff, expiration=exp, key_kind=kind,
                              scheme=scheme, issuer=issuer, key_file=os.path.join(self.dir, f"TEST-ONLY-{chr}.pkcs8"),
                              cert_file=os.path.join(self.dir, f"TEST-ONLY-{chr}.cvcert"))
        for folder, chr, rights, eff, exp, kind, scheme, chain in TERMINALS:
            path = os.path.join(self.dir, folder)
            for other in chain:
                self.gen.write(os.path.join(path, f"{other}.cvcert"), self.certs[other])
            self._certificate(chr=chr, role=ROLE_IS, rights=rights, effective=eff, expiration=exp, key_kind=kind,
                              scheme=scheme, issuer=chain[-1], key_file=os.path.join(path, f"{chr}.pkcs8"),
                              cert_file=os.path.join(path, f"{chr}.cvcert"))

    # -- passport-eac -------------------------------------------------------------
    def wsq_encoder(self):
        """A function PIL image -> WSQ bytes, from the PyPI `wsq` package (NIST NBIS) in the Python
        named by $FIXTURES_WSQ_PYTHON (scripts/make-fixtures installs it into .build-fixtures/venv),
        or None when it cannot be run."""
        python = os.environ.get(WSQ_PYTHON_ENV)
        if not python or not os.path.exists(python):
            return None
        probe = subprocess.run([python, "-c", "import wsq"], capture_output=True)
        if probe.returncode != 0:
            return None

        def encode(image):
            import io
            png = io.BytesIO()
            image.save(png, "PNG")
            code = ("import io, sys, wsq\nfrom PIL import Image\n"
                    "im = Image.open(io.BytesIO(sys.stdin.buffer.read()))\n"
                    "out = io.BytesIO()\nim.save(out, 'WSQ')\nsys.stdout.buffer.write(out.getvalue())\n")
            r = subprocess.run([python, "-c", code], input=png.getvalue(), capture_output=True)
            if r.returncode != 0 or r.stdout[:2] != b"\xff\xa0":
                raise SystemExit("WSQ encoding failed: " + r.stderr.decode(errors="replace"))
            return r.stdout
        return encode

    def previous_wsq(self, folder: str, position: int) -> bytes | None:
        old = self.gen.read(os.path.join(folder, "DG3.bin"))
        if not old:
            return None
        try:
            for _, record, _ in biometrics.templates(old):
                rec = biometrics.parse_finger_record(record)
                if rec["compression"] == biometrics.FINGER_COMPRESSION["WSQ"] and rec["position"] == position:
                    return rec["image"]
        except (ValueError, AssertionError, IndexError):
            return None
        return None

    def build_dg3(self, folder: str):
        encoder = self.wsq_encoder()
        records, self.finger_info = [], []
        for position, compression, seed, quality in FINGERS:
            image = biometrics.fingerprint(seed)
            if compression == "WSQ" and encoder is None:
                data = self.previous_wsq(folder, position)
                if data is None:
                    raise SystemExit("no WSQ encoder (PyPI wsq in $FIXTURES_WSQ_PYTHON) and no WSQ image in "
                                     "passport-eac/DG3.bin to keep; run scripts/make-fixtures, which installs it")
                self.log("  WSQ encoder not available: keeping the WSQ image of passport-eac/DG3.bin")
            else:
                data = biometrics.encode_finger(image, compression, encoder)
            rec = biometrics.finger_record(position=position, compression=compression, image_data=data,
                                           width=image.width, height=image.height, quality=quality)
            records.append((position, rec))
            self.finger_info.append((position, compression, quality, image.size, data))
        return biometrics.dg3(records)

    def build_dg4(self):
        eyes, self.iris_info, diameters = [], [], []
        for subtype, seed, quality in EYES:
            image, diameter = biometrics.iris(seed)
            data = biometrics.encode_iris(image)
            eyes.append((subtype, quality, data))
            diameters.append(diameter)
            self.iris_info.append((subtype, quality, data))
        self.iris_diameter = max(diameters)
        return biometrics.dg4(biometrics.iris_record(eyes, diameter=self.iris_diameter,
                                                     width=biometrics.IRIS_WIDTH, height=biometrics.IRIS_HEIGHT))

    def run_passport(self) -> None:
        g = self.gen
        self.log("passport-eac")
        folder = g.p("passport-eac")
        dgs = dict(g.dgs)
        dgs[3] = self.build_dg3(folder)
        dgs[4] = self.build_dg4()
        dgs[14] = dg14_with_ta(g.chip_ca_key.public_key(), "brainpoolP256r1")
        dgs = {n: dgs[n] for n in sorted(dgs)}
        tags = {1: 0x61, 2: 0x75, 3: 0x63, 4: 0x76, 11: 0x6B, 12: 0x6C, 14: 0x6E, 15: 0x6F}
        com = lds.ef_com("0107", "040000", [tags[n] for n in dgs])
        previous = g.previous_sod_signature(folder)
        sod_file = sod.ef_sod(h="sha256", dg_files=dgs, dsc=g.dsc, dsc_key=g.dsc_key, scheme=RSA_SHA256,
                              signing_time=self.signing_time, previous_signature=previous)
        g.write_dump(folder, com, dgs, sod_file)
        g.write(os.path.join(folder, "CVCA.bin"), ef_cvca(TRUST_POINTS))
        # EF.CardSecurity for PACE-CAM, then terminal authentication bound to PACE's keys.
        g.write_card_security(folder, g.chip_ca_key, g.dsc, g.dsc_key)
        g.write(os.path.join(folder, "mrz.txt"), ("\n".join(g.mrz_lines) + "\n").encode())
        self.dgs = dgs
        g.write(os.path.join(folder, "expected.json"), self.expected_json(folder))

    def expected_json(self, folder: str) -> bytes:
        g = self.gen
        doc = json.loads(g.expected_json(folder))
        doc["_comment"] = ("Fictional TEST-ONLY EAC passport generated by scripts/make-fixtures (the holder of "
                           "Fixtures/passport, plus DG3, DG4 and EF.CVCA); values the parsers must find.")
        doc["com"]["tags"] = ["%02X" % t for t in der.parse_one(g.read(os.path.join(folder, "COM.bin")))
                              .children()[2].value]
        doc["dg14"]["terminalAuthentication"] = {"protocol": ID_TA, "version": 1}
        doc["sod"]["dataGroups"] = sorted(self.dgs)
        dg3 = self.dgs[3]
        records = []
        for i, (header, record, offset) in enumerate(biometrics.templates(dg3)):
            assert dg3[offset:offset + len(record)] == record
            rec = biometrics.parse_finger_record(record)
            position, compression, quality, (w, h), data = self.finger_info[i]
            image_offset = offset + 46
            assert dg3[image_offset:image_offset + len(data)] == data == rec["image"]
            records.append({
                "biometricType": "%02X" % header[0x81][0], "biometricSubtype": "%02X" % header[0x82][0],
                "formatOwner": header[0x87].hex().upper(), "formatType": header[0x88].hex().upper(),
                "recordLength": len(record), "fingerPosition": position,
                "fingerPositionName": biometrics.FINGER_POSITIONS[position],
                "compression": biometrics.FINGER_COMPRESSION[compression], "compressionName": compression,
                "width": w, "height": h, "resolutionPPI": biometrics.FINGER_PPI, "pixelDepth": 8,
                "imageQuality": quality, "impressionType": 0,
                "imageOffsetInFile": image_offset, "imageLength": len(data),
                "imageSha256": hashlib.sha256(data).hexdigest()})
        doc["dg3"] = {"format": "ISO/IEC 19794-4:2005", "templates": len(records),
                      "note": "one biometric information template per finger: 19794-4:2005 puts the "
                              "compression algorithm in the record's general header",
                      "records": records}
        (header, record, offset), = biometrics.templates(self.dgs[4])
        rec = biometrics.parse_iris_record(record)
        eyes = []
        for eye, (subtype, quality, data) in zip(rec["eyes"], self.iris_info):
            assert eye["image"] == data and eye["subtype"] == subtype
            eyes.append({"subtype": subtype, "eye": {1: "right", 2: "left"}[subtype], "imageNumber": 1,
                         "imageQuality": quality, "imageOffsetInFile": offset + eye["offset"],
                         "imageLength": len(data), "imageSha256": hashlib.sha256(data).hexdigest(),
                         "imageType": "JPEG 2000 (JP2 file)"})
        doc["dg4"] = {"format": "ISO/IEC 19794-6:2005", "templates": 1,
                      "biometricType": "%02X" % header[0x81][0], "formatOwner": header[0x87].hex().upper(),
                      "formatType": header[0x88].hex().upper(), "recordLength": len(record),
                      "imageFormat": "%04X" % rec["format"], "imageFormatName": "mono JPEG 2000",
                      "width": rec["width"], "height": rec["height"], "intensityDepth": rec["depth"],
                      "irisDiameter": rec["diameter"], "imageProperties": "%04X" % rec["properties"],
                      "eyes": eyes}
        doc["cvca"] = {"file": "CVCA.bin", "fid": "011C", "sfi": "1C", "size": EF_CVCA_SIZE,
                       "trustPoints": TRUST_POINTS}
        doc["eac"] = {"protectedFiles": ["DG3", "DG4"],
                      "terminals": "pki/eac/<folder> (see pki/eac/README.md)",
                      "chipDate": "2024-09-30 (EF.SOD signing time) until certificates move it forward"}
        doc["files"] = {}
        for f in PASSPORT_EAC_FILES:
            data = g.read(os.path.join(folder, f))
            doc["files"][f] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        return (json.dumps(doc, indent=2) + "\n").encode()


def run(gen, signing_time: dt.datetime) -> None:
    if not cvc.cvc_create_available():
        raise SystemExit("make-fixtures: the EAC fixtures need cvc-create (apt-get install openpace)")
    e = EacGenerator(gen)
    e.signing_time = signing_time
    e.run_pki()
    e.run_passport()
