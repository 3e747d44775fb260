"""Terminal Authentication version 1, chip side (BSI TR-03110-3 as ICAO 9303-11 section 7.1 uses it
for EAC-protected DG3 and DG4).

With EF.CVCA in the dump the chip protects DG3 (fingerprints) and DG4 (iris): READ BINARY of them is
answered 6982 until Terminal Authentication has granted the read right in this session. The commands,
all under secure messaging after Chip Authentication (version 1, DG14) or PACE-CAM (shown unprotected):

    MSE:Set DST          00 22 81 B6 {83 CAR}         select the key for the next certificate:
                                                      a trust point or the certificate just verified
    PSO:Verify Cert.     00 2A 00 BE {7F4E … 5F37 …}  body and signature of a CV certificate
    (repeated for a CVCA link certificate, the DV certificate and the IS certificate)
    MSE:Set AT           00 22 81 A4 {83 CHR}         the IS certificate just verified
    GET CHALLENGE        00 84 00 00 08               r_PICC
    EXTERNAL AUTHENTICATE 00 82 00 00 {signature}     over ID_PICC || r_PICC || Comp(~PK_PCD)

Certificate signatures and the terminal's signature are checked by OpenPACE (openpace.TaContext: the
chain from the trust point is imported into a fresh EAC context for every check); the dates, roles,
the chip's current date and the effective authorization are this module's.

  ID_PICC       after BAC: the document number and its check digit as in the MRZ (ASCII; 10 bytes for
                a 9-character number); after PACE: Comp(the chip's ephemeral PACE public key)
  ~PK_PCD       the terminal's ephemeral public key of Chip Authentication (DO'91' / DO'80' as
                sent); after PACE-CAM without Chip Authentication: the terminal's ephemeral PACE
                public key
  Comp(PK)      ECDH: the x coordinate (field size, leading zeros kept); DH: SHA-1 of the public
                value as sent

The chip's current date starts at the personalisation date (EF.SOD's signingTime; --eac-date
overrides it) and moves forward to the effective date of every accepted CVCA certificate, DV
certificate and domestic IS certificate that is later (TR-03110-3, "Certificate Validation"). It
lives as long as the card process (not reset by a power cycle). A DV or IS certificate whose
expiration date is before it is refused; CVCA link certificates are not checked for expiry. A
verified link certificate is a trust point until the session ends.

Status words are in README.md: ISO/IEC 7816-4 meanings (6A80 wrong data for a certificate that does
not verify or whose date fails, 6A88 key not found for MSE, 6300 authentication failed for EXTERNAL
AUTHENTICATE, 6985 conditions of use, 6982 security status); the TR-03110-3 text itself (Appendix B)
was not available when this was written. No failing TA command ends secure messaging.
"""
import datetime as dt
import glob
import hashlib
import logging
import os

from der import oid_text, parse_tlvs, tlv

from . import openpace
from .apdu import ChipError

log = logging.getLogger("vpassport.ta")

BSI = "0.4.0.127.0.7"
ID_IS = BSI + ".3.1.2.1"
ROLE_CVCA, ROLE_DV_DOMESTIC, ROLE_DV_FOREIGN, ROLE_IS = 3, 2, 1, 0
ROLES = {3: "CVCA", 2: "DV (domestic)", 1: "DV (foreign)", 0: "IS"}
READ_DG3, READ_DG4 = 0x01, 0x02
PROTECTED = {"DG3": READ_DG3, "DG4": READ_DG4}
SIGNING_TIME = "1.2.840.113549.1.9.5"


class Certificate:
    """The fields of a CV certificate (7F21 { 7F4E body, 5F37 signature }) the chip needs."""

    def __init__(self, der):
        top = parse_tlvs(der)
        if len(top) != 1 or top[0][0] != 0x7F21:
            raise ValueError("not a CV certificate (7F21)")
        parts = parse_tlvs(top[0][1])
        if [t for t, _, _ in parts] != [0x7F4E, 0x5F37]:
            raise ValueError("a CV certificate holds 7F4E and 5F37")
        self.der = der
        fields = {}
        for tag, value, _ in parse_tlvs(parts[0][1]):
            fields.setdefault(tag, value)
        try:
            self.car = fields[0x42].decode("latin-1")
            self.chr = fields[0x5F20].decode("latin-1")
            key = parse_tlvs(fields[0x7F49])
            self.key_oid = oid_text(key[0][1])
            self.has_domain_parameters = any(t == 0x81 for t, _, _ in key[1:]) and \
                not self.key_oid.startswith(BSI + ".2.2.2.1.")
            chat = parse_tlvs(fields[0x7F4C])
            self.chat_oid = oid_text(chat[0][1])
            auth = chat[1][1]
            self.effective = _date(fields[0x5F25])
            self.expiration = _date(fields[0x5F24])
        except (KeyError, IndexError) as e:
            raise ValueError("CV certificate field missing: %s" % e)
        if not auth:
            raise ValueError("empty CHAT")
        self.role = auth[0] >> 6
        self.rights = auth[-1] & 0x3F if len(auth) == 1 else 0

    def __repr__(self):
        return "%s (%s, CAR %s, %s..%s)" % (self.chr, ROLES[self.role], self.car, self.effective,
                                             self.expiration)


def _date(digits):
    if len(digits) != 6 or any(d > 9 for d in digits):
        raise ValueError("a CV certificate date is six digits 00-09")
    return dt.date(2000 + digits[0] * 10 + digits[1], digits[2] * 10 + digits[3],
                   digits[4] * 10 + digits[5])


def parse_date(text):
    """YYMMDD -> date (for --eac-date)."""
    if len(text) != 6 or not text.isdigit():
        raise ValueError("--eac-date needs YYMMDD, not %r" % text)
    return dt.date(2000 + int(text[:2]), int(text[2:4]), int(text[4:]))


def ef_cvca_references(data):
    """The CARs of EF.CVCA: DOs 42 until the first 00 (padding)."""
    out, i = [], 0
    while i < len(data) and data[i] != 0x00:
        tags = parse_tlvs(data[i:i + 2 + data[i + 1]]) if i + 1 < len(data) else []
        if not tags or tags[0][0] != 0x42:
            raise ValueError("EF.CVCA: expected DO'42' at offset %d" % i)
        out.append(tags[0][1].decode("latin-1"))
        i += len(tags[0][2])
    return out


def sod_signing_time(sod):
    """The date of EF.SOD's signingTime signed attribute, or None."""
    def walk(data, depth):
        if depth > 12:
            return None
        try:
            items = parse_tlvs(data)
        except ValueError:
            return None
        for tag, value, _ in items:
            top = tag
            while top > 0xFF:
                top >>= 8
            if not top & 0x20:
                continue
            if tag == 0x30:
                kids = parse_tlvs(value)
                if len(kids) == 2 and kids[0][0] == 0x06 and oid_text(kids[0][1]) == SIGNING_TIME:
                    t = parse_tlvs(kids[1][1])[0]
                    text = t[1].decode("ascii")
                    if t[0] == 0x17:                        # UTCTime YYMMDD...
                        year = int(text[:2])
                        year += 2000 if year < 50 else 1900
                        return dt.date(year, int(text[2:4]), int(text[4:6]))
                    return dt.date(int(text[:4]), int(text[4:6]), int(text[6:8]))
            found = walk(value, depth + 1)
            if found:
                return found
        return None
    return walk(sod, 0)


def find_certificates(folders, log_=log):
    """{CHR: Certificate} of the *.cvcert files in the folders (TEST-ONLY-CHR.cvcert or CHR.cvcert)."""
    out = {}
    for folder in folders:
        for path in sorted(glob.glob(os.path.join(folder, "*.cvcert"))):
            try:
                with open(path, "rb") as f:
                    cert = Certificate(f.read())
            except (OSError, ValueError) as e:
                log_.warning("%s: not a CV certificate (%s)", path, e)
                continue
            out.setdefault(cert.chr, (cert, path))
    return out


def default_search_folders(dump_dir, root):
    """Fixtures/pki/eac of the repository holding the dump (any parent folder with Fixtures/pki/eac,
    or a pki/eac beside the dump), then this checkout's."""
    out = []
    here = os.path.abspath(dump_dir)
    for _ in range(6):
        for candidate in (os.path.join(here, "Fixtures", "pki", "eac"), os.path.join(here, "pki", "eac")):
            if os.path.isdir(candidate) and candidate not in out:
                out.append(candidate)
        parent = os.path.dirname(here)
        if parent == here:
            break
        here = parent
    own = os.path.join(root, "Fixtures", "pki", "eac")
    if os.path.isdir(own) and own not in out:
        out.append(own)
    return out


def comp(public_key, kind):
    """Comp(PK): ECDH the x coordinate of an uncompressed point, DH SHA-1 of the value."""
    if kind == "EC":
        if not public_key or public_key[0] != 0x04 or len(public_key) % 2 != 1:
            raise ValueError("not an uncompressed EC point")
        return bytes(public_key[1:1 + (len(public_key) - 1) // 2])
    return hashlib.sha1(bytes(public_key)).digest()


class Entry:
    """A key the chip can verify certificates with: a trust point or a verified certificate."""

    def __init__(self, cert, root, path, rights, issuer_role=None):
        self.cert, self.root, self.path = cert, root, path      # root: trust point DER; path: DERs
        self.rights = rights                                    # effective authorization so far
        self.issuer_role = issuer_role


class TerminalAuthentication:
    """Trust points (EF.CVCA), the chip's current date, and the state of TA in this session."""

    def __init__(self, trust_points, date, document_number, verbose=False):
        if not openpace.available():
            raise RuntimeError("Terminal Authentication needs OpenPACE (Debian libeac3)")
        self.trust_points = {c.chr: c for c in trust_points}
        self.date = date
        self.document_number = document_number                 # ID_PICC after BAC
        self.verbose = verbose
        self.extra_protected = set()    # --eac-protect: files opened by any completed TA
        self.eac2 = False               # --quirk eac2: version 2, after PACE, before Chip Authentication
        self.reset()

    def describe(self):
        return "trust points %s, chip date %s" % (", ".join(sorted(self.trust_points)), self.date)

    def reset(self):
        """A new (or no) secure messaging session: nothing verified, nothing granted."""
        self.session_trust = {}             # CHR -> Entry of link certificates verified in this session
        self.dst = None                     # Entry selected by MSE:Set DST
        self.last = None                    # Entry of the certificate verified last
        self.at = None                      # Entry of the IS certificate named by MSE:Set AT
        self.challenge = None               # r_PICC
        self.granted = 0                    # effective authorization after EXTERNAL AUTHENTICATE
        self.done = False
        self.at_ephemeral = None            # version 2: Comp(~PK_PCD) from MSE:Set AT's DO'91'

    def allows(self, name):
        """May the file be read in this session?"""
        if name in self.extra_protected:
            return self.done
        bit = PROTECTED.get(name)
        return bit is None or bool(self.granted & bit)

    # --- preconditions ---------------------------------------------------------------------------
    def _ready(self, session):
        if session is None:
            raise ChipError(0x6982, "Terminal Authentication needs secure messaging")
        if self.eac2:
            return                          # version 2: right after PACE
        if not (getattr(session, "chip_authenticated", False) or
                getattr(session, "pace_mapping", None) == "CAM"):
            raise ChipError(0x6985, "Terminal Authentication needs Chip Authentication (or PACE-CAM) first")

    def _check_done(self):
        if self.done:
            raise ChipError(0x6985, "Terminal Authentication was completed in this session already")

    @staticmethod
    def _reference(cmd):
        try:
            dos = parse_tlvs(cmd.data)
        except ValueError as e:
            raise ChipError(0x6A80, "MSE data: %s" % e)
        refs = [v for t, v, _ in dos if t == 0x83]
        if len(refs) != 1:
            raise ChipError(0x6A80, "MSE needs exactly one DO'83'")
        return refs[0].decode("latin-1")

    # --- commands ----------------------------------------------------------------------------------
    def mse(self, cmd, session):
        self._ready(session)
        if cmd.p1 != 0x81 or cmd.p2 not in (0xB6, 0xA4):
            raise ChipError(0x6A86, "MSE %02X%02X" % (cmd.p1, cmd.p2))
        self._check_done()
        ref = self._reference(cmd)
        if cmd.p2 == 0xB6:
            self.dst = None
            entry = self.session_trust.get(ref)
            if entry is None and ref in self.trust_points:
                tp = self.trust_points[ref]
                entry = Entry(tp, tp.der, [], tp.rights)
            if entry is None and self.last is not None and self.last.cert.chr == ref:
                entry = self.last
            if entry is None:
                raise ChipError(0x6A88, "MSE:Set DST %s: neither a trust point nor the certificate "
                                        "just verified" % ref)
            self.dst = entry
            log.info("TA: MSE:Set DST %s (%s)", ref, ROLES[entry.cert.role])
            return 0x9000, b""
        self.at = None
        if self.last is None or self.last.cert.chr != ref or self.last.cert.role != ROLE_IS:
            raise ChipError(0x6A88, "MSE:Set AT %s: not the IS certificate just verified" % ref)
        if self.eac2:
            ephemeral = [v for t, v, _ in parse_tlvs(cmd.data) if t == 0x91]
            if len(ephemeral) != 1 or not ephemeral[0]:
                raise ChipError(0x6A80, "MSE:Set AT for Terminal Authentication version 2 needs DO'91' (Comp(~PK_PCD))")
            self.at_ephemeral = ephemeral[0]
        self.at = self.last
        log.info("TA: MSE:Set AT %s", ref)
        return 0x9000, b""

    def verify_certificate(self, cmd, session):
        self._ready(session)
        if (cmd.p1, cmd.p2) != (0x00, 0xBE):
            raise ChipError(0x6A86, "PSO P1-P2 %02X%02X" % (cmd.p1, cmd.p2))
        self._check_done()
        dst, self.last = self.dst, None
        if dst is None:
            raise ChipError(0x6985, "PSO:Verify Certificate without a key set by MSE:Set DST")
        der = tlv(0x7F21, cmd.data)
        try:
            cert = Certificate(der)
        except ValueError as e:
            raise ChipError(0x6A80, "certificate: %s" % e)
        issuer = dst.cert
        if cert.car != issuer.chr:
            raise ChipError(0x6A80, "%s: CAR %s is not the selected key %s" % (cert.chr, cert.car, issuer.chr))
        allowed = {ROLE_CVCA: (ROLE_CVCA, ROLE_DV_DOMESTIC, ROLE_DV_FOREIGN),
                   ROLE_DV_DOMESTIC: (ROLE_IS,), ROLE_DV_FOREIGN: (ROLE_IS,)}.get(issuer.role, ())
        if cert.role not in allowed or cert.chat_oid != ID_IS:
            raise ChipError(0x6A80, "%s: a %s certificate (%s) cannot be issued by %s" %
                            (cert.chr, ROLES[cert.role], cert.chat_oid, issuer))
        try:
            ctx = openpace.TaContext(dst.root)
        except openpace.OpenPaceError as e:
            raise ChipError(0x6A80, "trust point %s: %s" % (issuer.chr, e))
        try:
            ok = all(ctx.import_certificate(c) for c in dst.path) and ctx.import_certificate(der)
        finally:
            ctx.free()
        if not ok:
            raise ChipError(0x6A80, "%s: the signature does not verify with %s's key" % (cert.chr, issuer.chr))
        if cert.role != ROLE_CVCA and cert.expiration < self.date:
            raise ChipError(0x6A80, "%s expired on %s, before the chip's date %s" %
                            (cert.chr, cert.expiration, self.date))
        entry = Entry(cert, dst.root, dst.path + [der], dst.rights & cert.rights, issuer.role)
        domestic_is = cert.role == ROLE_IS and issuer.role == ROLE_DV_DOMESTIC
        if (cert.role in (ROLE_CVCA, ROLE_DV_DOMESTIC, ROLE_DV_FOREIGN) or domestic_is) \
                and cert.effective > self.date:
            log.info("TA: chip date %s -> %s (effective date of %s)", self.date, cert.effective, cert.chr)
            self.date = cert.effective
        if cert.role == ROLE_CVCA:
            self.session_trust[cert.chr] = entry
            log.info("TA: link certificate %s verified: a trust point for this session", cert.chr)
        self.last = entry
        log.info("TA: PSO:Verify Certificate %s verified with %s", cert, issuer.chr)
        return 0x9000, b""

    def get_challenge(self, nonce):
        self.challenge = nonce

    def external_authenticate(self, cmd, session):
        self._ready(session)
        if cmd.p1 or cmd.p2:
            raise ChipError(0x6A86, "EXTERNAL AUTHENTICATE P1-P2")
        self._check_done()
        entry, challenge, self.challenge = self.at, self.challenge, None
        if entry is None or challenge is None:
            raise ChipError(0x6985, "EXTERNAL AUTHENTICATE without MSE:Set AT and GET CHALLENGE")
        if not cmd.data:
            raise ChipError(0x6700, "EXTERNAL AUTHENTICATE without a signature")
        id_picc, comp_pcd, how = self.inputs(session)
        ctx = openpace.TaContext(entry.root)
        try:
            ok = all(ctx.import_certificate(c) for c in entry.path) and \
                ctx.verify(challenge, comp_pcd, id_picc, cmd.data) == 1
        finally:
            ctx.free()
        if self.verbose:
            log.info("TA: ID_PICC %s, r_PICC %s, Comp(~PK_PCD) %s (%s)", id_picc.hex(), challenge.hex(),
                     comp_pcd.hex(), how)
        if not ok:
            raise ChipError(0x6300, "the terminal's signature does not verify with %s (%s)" %
                            (entry.cert.chr, how))
        self.granted, self.done = entry.rights, True
        log.info("TA: EXTERNAL AUTHENTICATE verified (%s); effective authorization: %s", how,
                 ", ".join(n for n, bit in sorted(PROTECTED.items()) if entry.rights & bit) or "nothing")
        return 0x9000, b""

    def inputs(self, session):
        """(ID_PICC, Comp(~PK_PCD), description) for the session."""
        pace_key = getattr(session, "pace_chip_key", None)
        if pace_key is not None:
            id_picc = comp(pace_key, session.pace_key_kind)
            how = "ID_PICC = Comp(chip's PACE key)"
        else:
            id_picc = self.document_number.encode("ascii")
            how = "ID_PICC = document number"
        if self.eac2:
            return id_picc, self.at_ephemeral, how + ", Comp(~PK_PCD) from MSE:Set AT (version 2)"
        ca_key = getattr(session, "ca_terminal_key", None)
        if ca_key is not None:
            return id_picc, comp(ca_key, session.ca_key_kind), how + ", ~PK_PCD of Chip Authentication"
        return id_picc, comp(session.pace_terminal_key, session.pace_key_kind), \
            how + ", ~PK_PCD of PACE-CAM"
