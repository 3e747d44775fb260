"""An inspection system for Terminal Authentication (BSI TR-03110-3 version 1, ICAO 9303-11 7.1),
for the self-test: it drives the virtual passport through the smoke client's reader (secure
messaging written separately from the chip's), with its certificates and key from a terminal folder
such as Fixtures/pki/eac/terminal/ (`CHR.cvcert` files and the IS key `CHR.pkcs8`).

The signature is OpenPACE's terminal side (openpace.TaContext: EAC_CTX_init_ta with the IS key and
certificate, TA_STEP4_set_nonce, TA_STEP5_sign). The certificate chain, the APDUs, ID_PICC and
Comp(~PK_PCD) are this module's:

  ID_PICC   after BAC the document number with its check digit (from the MRZ information), after
            PACE the x coordinate of the chip's ephemeral PACE public key
  ~PK_PCD   the x coordinate of the terminal's ephemeral key of Chip Authentication, or after
            PACE-CAM (without CA) of its ephemeral PACE key

Version 2 (EAC version 2's order, --quirk eac2: TA before Chip Authentication) also sends
Comp(~PK_PCD) in MSE:Set AT's DO'91' (run(..., version=2)).
"""
import glob
import os

import testpaths  # noqa: F401  (puts scripts/ on sys.path)
from der import parse_tlvs, tlv
from vpassport import openpace


def _field(cert, tag):
    body = parse_tlvs(parse_tlvs(cert)[0][1])[0][1]
    for t, v, _ in parse_tlvs(body):
        if t == tag:
            return v
    return None


def car(cert):
    return _field(cert, 0x42).decode("latin-1")


def chr_of(cert):
    return _field(cert, 0x5F20).decode("latin-1")


def role(cert):
    chat = parse_tlvs(_field(cert, 0x7F4C))
    return chat[1][1][0] >> 6


def content(cert):
    """What PSO:Verify Certificate carries: the value of 7F21 (7F4E body, 5F37 signature)."""
    return parse_tlvs(cert)[0][1]


class Folder:
    """A terminal folder: its certificates by CHR, the IS certificate and the IS private key."""

    def __init__(self, path):
        self.path = path
        self.certs = {}
        for name in sorted(glob.glob(os.path.join(path, "*.cvcert"))):
            with open(name, "rb") as f:
                data = f.read()
            self.certs[chr_of(data)] = data
        keys = sorted(glob.glob(os.path.join(path, "*.pkcs8")))
        if len(keys) != 1:
            raise ValueError("%s: expected one *.pkcs8 key" % path)
        self.is_chr = os.path.basename(keys[0])[:-len(".pkcs8")]
        with open(keys[0], "rb") as f:
            self.key = f.read()
        self.is_cert = self.certs[self.is_chr]

    def chain(self, trust_points):
        """The certificates to send, from the one a trust point signed down to the IS certificate:
        follow the CARs back from the IS certificate while the folder has the issuer (not
        self-signed) and the CAR is not a trust point."""
        chain = [self.is_cert]
        while True:
            issuer = car(chain[0])
            if issuer in trust_points or issuer not in self.certs or chr_of(self.certs[issuer]) == car(self.certs[issuer]):
                return chain
            chain.insert(0, self.certs[issuer])


class TaFailed(Exception):
    def __init__(self, step, sw):
        super().__init__("%s: SW %04X" % (step, sw))
        self.step, self.sw = step, sw


class TaTerminal:
    """chaining: send data longer than MAX_SHORT_DATA in a chain of short commands (CLA 1C … 0C);
    otherwise in one extended-length command."""

    MAX_SHORT_DATA = 200          # plaintext per short protected command (fits 255 bytes with SM)

    def __init__(self, reader, chaining=False):
        self.r = reader
        self.chaining = chaining
        self.apdus = []               # (command name, CLA, INS, P1, P2, Lc of the plaintext, Ne, SW)

    def _sm(self, name, ins, p1, p2, data=b"", ne=None):
        if len(data) <= self.MAX_SHORT_DATA:
            parts = [data]
        elif self.chaining:
            parts = [data[i:i + self.MAX_SHORT_DATA] for i in range(0, len(data), self.MAX_SHORT_DATA)]
        else:
            out, sw = self.r.sm(ins, p1, p2, data, ne=ne, extended=True)
            self.apdus.append((name + " (extended)", 0x0C, ins, p1, p2, len(data), ne, sw))
            return out, sw
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            cla = 0x0C if last else 0x1C
            out, sw = self.r.sm(ins, p1, p2, part, ne=ne if last else None, cla=cla)
            self.apdus.append((name + ("" if len(parts) == 1 else " (chain %d/%d)" % (i + 1, len(parts))),
                               cla, ins, p1, p2, len(part), ne if last else None, sw))
            if sw != 0x9000:
                return out, sw
        return out, sw

    def trust_points(self):
        """CARs of EF.CVCA (FID 011C in the eMRTD application)."""
        out, sw = self._sm("SELECT EF.CVCA", 0xA4, 0x02, 0x0C, b"\x01\x1C")
        if sw != 0x9000:
            return []
        data, sw = self._sm("READ BINARY EF.CVCA", 0xB0, 0, 0, ne=36)
        refs, i = [], 0
        while data and i < len(data) and data[i] == 0x42:
            refs.append(data[i + 2:i + 2 + data[i + 1]].decode("latin-1"))
            i += 2 + data[i + 1]
        return refs

    def run(self, folder, id_picc, comp_pcd, sign_with=None, version=1):
        """MSE:Set DST + PSO:Verify Certificate for each certificate, MSE:Set AT, GET CHALLENGE,
        EXTERNAL AUTHENTICATE. Raises TaFailed(step, SW). sign_with: (certificate, key) to sign with
        instead of the folder's IS (a wrong key). version 2: MSE:Set AT carries DO'91' Comp(~PK_PCD)."""
        folder = folder if isinstance(folder, Folder) else Folder(folder)
        for cert in folder.chain(self.trust_points()):
            _, sw = self._sm("MSE:Set DST", 0x22, 0x81, 0xB6, tlv(0x83, car(cert).encode("latin-1")))
            if sw != 0x9000:
                raise TaFailed("MSE:Set DST %s" % car(cert), sw)
            _, sw = self._sm("PSO:Verify Certificate", 0x2A, 0x00, 0xBE, content(cert))
            if sw != 0x9000:
                raise TaFailed("PSO:Verify Certificate %s" % chr_of(cert), sw)
        at = tlv(0x83, folder.is_chr.encode("latin-1")) + (tlv(0x91, comp_pcd) if version == 2 else b"")
        _, sw = self._sm("MSE:Set AT", 0x22, 0x81, 0xA4, at)
        if sw != 0x9000:
            raise TaFailed("MSE:Set AT", sw)
        nonce, sw = self._sm("GET CHALLENGE", 0x84, 0, 0, ne=8)
        if sw != 0x9000 or len(nonce) != 8:
            raise TaFailed("GET CHALLENGE", sw)
        cert, key = sign_with or (folder.is_cert, folder.key)
        ctx = openpace.TaContext(cert, private_key=key)
        try:
            signature = ctx.sign(nonce, comp_pcd, id_picc)
        finally:
            ctx.free()
        _, sw = self._sm("EXTERNAL AUTHENTICATE", 0x82, 0, 0, signature)
        if sw != 0x9000:
            raise TaFailed("EXTERNAL AUTHENTICATE", sw)
        return signature


def x_coordinate(point):
    """Comp() of an uncompressed EC point."""
    return point[1:1 + (len(point) - 1) // 2]


def chip_authentication(reader, dg14_bytes):
    """CA version 1 with the aa_ca_client terminal (OpenSSL command line for the key agreement);
    returns the terminal's ephemeral public point (~PK_PCD)."""
    from aa_ca_client import Dg14, OpenSslAgreement, Terminal, kdf
    dg14 = Dg14(dg14_bytes)
    agreement = OpenSslAgreement(dg14.spki)
    point, secret = agreement.ephemeral()
    sw = Terminal(reader).send_key(dg14, point)
    if sw != 0x9000:
        raise TaFailed("Chip Authentication", sw)
    arc = dg14.cipher_arc
    reader.keys = (kdf(secret, 1, arc), kdf(secret, 2, arc))
    reader.cipher, reader.ssc = ("3DES" if arc == 1 else "AES"), 0
    return point
