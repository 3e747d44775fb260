"""The chip's optional parts from `serve`'s options and the dump: PACE, Active
and Chip Authentication with their key files (option, dump, or fixture default).

Apart from __main__ so that code building a chip the way `serve` does (the
self-test) imports this module, not the entry point that runs it.
"""
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CA_KEY = os.path.join(ROOT, "Fixtures", "pki", "TEST-ONLY-chip-ca-brainpoolP256r1.key.pem")
DEFAULT_AA_KEY = os.path.join(ROOT, "Fixtures", "pki", "TEST-ONLY-chip-aa-rsa1024.key.pem")
# A dump folder may bring the chip's private keys (BSI TR-03105-5 naming).
DUMP_CA_KEY, DUMP_AA_KEY = "DG14_sk.pkcs8", "DG15_sk.pkcs8"


def key_file(option, dump_dir, dump_name, default):
    """(path, origin): the option's file, else the dump's DG1x_sk.pkcs8, else
    the fixture default; origin is "option", "dump" or "default"."""
    if option:
        return option, "option"
    for entry in sorted(os.listdir(dump_dir)) if dump_dir and os.path.isdir(dump_dir) else []:
        if entry.lower() == dump_name.lower() and os.path.isfile(os.path.join(dump_dir, entry)):
            return os.path.join(dump_dir, entry), "dump"
    return default, "default"


def load_key(path, origin, what, log):
    """The private key, or None for a default key file that is missing/unreadable."""
    from . import keys
    try:
        return keys.load_private_key(path)
    except (OSError, ValueError, IndexError) as e:
        if origin == "default":
            log.warning("default %s key %s unusable (%s)", what, path, e)
            return None
        raise ValueError("%s key %s: %s" % (what, path, e))


def build_aa(args, files, dg14, log):
    """aa.ActiveAuthentication for DG15, or None (INTERNAL AUTHENTICATE: 6D00)."""
    from . import aa, keys
    path, origin = key_file(args.aa_key, args.dump_dir, DUMP_AA_KEY, DEFAULT_AA_KEY)
    if "DG15" not in files:
        if origin == "option":
            raise ValueError("--aa-key given, but the dump has no DG15")
        return None
    try:
        public = keys.dg15_public_key(files["DG15"])
    except (ValueError, IndexError) as e:
        if origin != "default":
            raise ValueError("DG15: %s" % e)
        log.warning("DG15: %s; no Active Authentication", e)
        return None
    private = load_key(path, origin, "Active Authentication", log)
    if private is None:
        return None
    if not private.matches(public):
        if origin != "default":
            raise ValueError("the Active Authentication key %s (%s) does not match the public "
                             "key in DG15 (%s)" % (path, private, public))
        log.warning("DG15 (%s) is not the key of the default %s: no Active Authentication "
                    "(INTERNAL AUTHENTICATE -> 6D00); give --aa-key", public, path)
        return None
    ecdsa_hash = aa.ecdsa_hash_or_sha256(dg14, log) if public.kind == "EC" else None
    if public.kind == "EC" and args.aa_hash:
        log.warning("--aa-hash is for RSA keys; ECDSA uses DG14's ActiveAuthenticationInfo")
    chip_aa = aa.ActiveAuthentication(private, public, rsa_hash=args.aa_hash or "sha1",
                                      ecdsa_hash=ecdsa_hash, bad_signature=args.aa_bad_signature)
    log.info("Active Authentication: %s, key %s (%s)%s", chip_aa.describe(), path, origin,
             "; --aa-bad-signature" if args.aa_bad_signature else "")
    return chip_aa


def build_ca(args, dg14, path, origin, log, used_by_cam=False):
    """ca.ChipAuthentication for DG14, or None (MSE/GA for CA: 6D00, 6985 with --pace)."""
    from . import ca
    if dg14 is None:
        if origin == "option" and not used_by_cam:
            raise ValueError("--ca-key given, but the dump has no DG14")
        return None
    for problem in dg14.problems:
        log.warning("DG14: %s", problem)
    if not dg14.ca_keys:
        log.warning("DG14 has no ChipAuthenticationPublicKeyInfo: no Chip Authentication")
        return None
    private = load_key(path, origin, "Chip Authentication", log)
    if private is None:
        return None
    match = [(pk, key_id, oid) for pk, key_id, oid in dg14.ca_keys if private.matches(pk)]
    if not match:
        if used_by_cam:
            # A clone: its own key answers PACE-CAM (checked against CardSecurity.bin), the
            # copied DG14 names the genuine chip's key, which the clone does not have.
            log.warning("the Chip Authentication key %s is not DG14's: PACE-CAM only, "
                        "no Chip Authentication with DG14 (a cloned chip)", path)
            return None
        if origin != "default":
            raise ValueError("the Chip Authentication key %s does not match the public key in "
                             "DG14 (%s)" % (path, ", ".join(repr(k) for k, _, _ in dg14.ca_keys)))
        log.warning("DG14's Chip Authentication key is not the default %s: no Chip "
                    "Authentication; give --ca-key", path)
        return None
    public, key_id, pk_oid = match[0]
    protocols = ca.offered_protocols(dg14, pk_oid, key_id)
    if not protocols:
        log.warning("DG14 offers no Chip Authentication protocol for its %s key", public)
        return None
    chip_ca = ca.ChipAuthentication(private, public, key_id, protocols,
                                    wrong_key=args.ca_wrong_key)
    log.info("Chip Authentication: %s, key %s (%s)%s", chip_ca.describe(), path, origin,
             "; --ca-wrong-key" if args.ca_wrong_key else "")
    return chip_ca


def build_pace(args, files, mrz_info, log, ca_key_file):
    """The PaceChip for --pace; may add CardAccess to files. Raises ValueError."""
    from . import pace
    if not args.can.isdigit():
        raise ValueError("--can must be digits")
    if "CardAccess" in files:
        profiles = []
        for oid, param in pace.pace_infos(files["CardAccess"]):
            try:
                profiles.append(pace.Profile(oid, 13 if param is None else param))
            except ValueError as e:
                log.warning("CardAccess.bin: PACEInfo %s not offered: %s", oid, e)
        if not profiles:
            raise ValueError("the dump's CardAccess.bin has no PACEInfo this chip can do")
        if args.mapping != "gm" or args.dh:
            log.warning("the dump's CardAccess.bin decides the PACE profiles; "
                        "--mapping/--dh ignored")
        source = "CardAccess.bin of the dump"
    else:
        profiles = [pace.profile_from_options(args.mapping, args.dh)]
        files["CardAccess"] = pace.card_access(profiles)
        source = "generated"
        if "CardSecurity" in files:
            # An issuer signs EF.CardAccess's SecurityInfos into EF.CardSecurity, and readers check.
            from .quirks import card_security_holding
            try:
                files["CardSecurity"] = card_security_holding(files["CardSecurity"], files["CardAccess"])
            except ValueError as e:
                log.warning("CardSecurity.bin kept as it is: %s", e)
    if not pace.check_card_access(files["CardAccess"]):
        log.warning("OpenPACE does not accept this EF.CardAccess (EAC_CTX_init_ef_cardaccess)")
    ca_key = None
    cam = [p for p in profiles if p.mapping == "CAM"]
    if cam:
        if "CardSecurity" not in files:
            raise ValueError("PACE-CAM needs CardSecurity.bin in the dump "
                             "(e.g. Fixtures/passport-pace)")
        point = pace.ca_public_key(files["CardSecurity"])
        if point is None:
            raise ValueError("CardSecurity.bin has no ECDH ChipAuthenticationPublicKeyInfo")
        path, origin = ca_key_file
        key = load_key(path, "option", "Chip Authentication", log)
        if key.kind != "EC":
            raise ValueError("PACE-CAM needs an EC Chip Authentication key, %s is %s" % (path, key))
        ca_key = key.secret
        if not pace.ca_key_matches(cam[0], ca_key, point):
            raise ValueError("the Chip Authentication key %s does not match CardSecurity.bin"
                             % path)
    log.info("PACE: %s (EF.CardAccess %s), passwords MRZ and CAN%s; BAC %s",
             ", ".join(map(repr, profiles)), source,
             " " + args.can if args.verbose else "", "off" if args.no_bac else "on")
    chip = pace.PaceChip(profiles, mrz_info, args.can, ca_private_key=ca_key, verbose=args.verbose)
    if getattr(args, "pace_refuse", None):
        chip.refuse = int(args.pace_refuse, 16)
        log.info("PACE: every GENERAL AUTHENTICATE answered %04X (--pace-refuse)", chip.refuse)
    return chip


def build_ta(args, files, mrz_info, log):
    """ta.TerminalAuthentication when the dump has EF.CVCA (CVCA.bin), else None (DG3/DG4 served
    like any DG). Trust points: the CVCA certificates EF.CVCA names, from --eac-cvca FILE or looked
    up by CHR among the *.cvcert files of Fixtures/pki/eac (the dump's repository's, then this
    checkout's). The chip's date: --eac-date YYMMDD, else EF.SOD's signing time. Raises ValueError."""
    from . import ta
    if getattr(args, "eac_trust_point", None):
        return build_ta_own_trust_points(args, files, mrz_info, log)
    options = getattr(args, "eac_cvca", None) or []
    date_option = getattr(args, "eac_date", None)
    if "CVCA" not in files:
        if options or date_option:
            raise ValueError("--eac-cvca/--eac-date given, but the dump has no CVCA.bin (EF.CVCA)")
        return None
    try:
        references = ta.ef_cvca_references(files["CVCA"])
    except (ValueError, IndexError) as e:
        raise ValueError("CVCA.bin: %s" % e)
    if not references:
        raise ValueError("CVCA.bin names no trust point")
    folders = []
    if options:
        candidates = {}
        for path in options:
            try:
                with open(path, "rb") as f:
                    cert = ta.Certificate(f.read())
            except (OSError, ValueError) as e:
                raise ValueError("--eac-cvca %s: %s" % (path, e))
            if cert.chr not in references:
                raise ValueError("--eac-cvca %s: %s is not a trust point of EF.CVCA (%s)" %
                                 (path, cert.chr, ", ".join(references)))
            candidates[cert.chr] = (cert, path)
    else:
        folders = ta.default_search_folders(args.dump_dir or ".", ROOT)
        candidates = ta.find_certificates(folders, log)
    anchors = []
    for reference in references:
        if reference not in candidates:
            where = "--eac-cvca" if options else ("looked in " + ", ".join(folders) if folders
                                                  else "no Fixtures/pki/eac found")
            log.warning("EF.CVCA names %s, but no certificate of it was found (%s): that trust point "
                        "is unusable; give --eac-cvca FILE", reference, where)
            continue
        cert, path = candidates[reference]
        if cert.role != ta.ROLE_CVCA or not (cert.has_domain_parameters or
                                             cert.key_oid.startswith(ta.BSI + ".2.2.2.1.")):
            raise ValueError("%s (%s) is not a CVCA certificate with its domain parameters" % (path, cert))
        anchors.append(cert)
        log.info("Terminal Authentication trust point %s from %s", cert, path)
    if not anchors:
        log.warning("no trust point certificate found: Terminal Authentication cannot succeed, "
                    "DG3 and DG4 stay unreadable")
    if date_option:
        date, origin = ta.parse_date(date_option), "--eac-date"
    else:
        date, origin = ta.sod_signing_time(files.get("SOD", b"")), "EF.SOD signing time"
        if date is None:
            import datetime
            date, origin = datetime.date.today(), "today (EF.SOD has no signing time)"
    chip_ta = ta.TerminalAuthentication(anchors, date, mrz_info[:-14],
                                        verbose=getattr(args, "verbose", False))
    log.info("Terminal Authentication: %s (%s); DG3/DG4 need it", chip_ta.describe(), origin)
    return apply_eac_options(chip_ta, args, log)


def _chip_date(args, files):
    from . import ta
    if getattr(args, "eac_date", None):
        return ta.parse_date(args.eac_date), "--eac-date"
    date = ta.sod_signing_time(files.get("SOD", b""))
    if date is None:
        import datetime
        return datetime.date.today(), "today (EF.SOD has no signing time)"
    return date, "EF.SOD signing time"


def build_ta_own_trust_points(args, files, mrz_info, log):
    """--eac-trust-point FILE|none (repeatable): the chip's trust points are these CVCA
    certificates whatever EF.CVCA says (a chip personalised with an EF.CVCA that does not show
    its trust points: wrong, missing or extra CARs); `none`: no trust point at all. EF.CVCA is
    served as it is and not interpreted. Raises ValueError."""
    from . import ta
    if "CVCA" not in files:
        raise ValueError("--eac-trust-point given, but the dump has no CVCA.bin (EF.CVCA)")
    anchors = []
    for path in args.eac_trust_point:
        if path == "none":
            continue
        try:
            with open(path, "rb") as f:
                cert = ta.Certificate(f.read())
        except (OSError, ValueError) as e:
            raise ValueError("--eac-trust-point %s: %s" % (path, e))
        if cert.role != ta.ROLE_CVCA or not (cert.has_domain_parameters or
                                             cert.key_oid.startswith(ta.BSI + ".2.2.2.1.")):
            raise ValueError("--eac-trust-point %s (%s) is not a CVCA certificate with its domain "
                             "parameters" % (path, cert))
        anchors.append(cert)
        log.info("Terminal Authentication trust point %s from %s (--eac-trust-point)", cert, path)
    try:
        shown = ta.ef_cvca_references(files["CVCA"])
    except (ValueError, IndexError) as e:
        shown = ["(unreadable: %s)" % e]
    log.info("EF.CVCA shows %s; the chip's trust points are %s (--eac-trust-point)",
             ", ".join(repr(r) for r in shown) or "no CAR", ", ".join(c.chr for c in anchors) or "none")
    date, origin = _chip_date(args, files)
    chip_ta = ta.TerminalAuthentication(anchors, date, mrz_info[:-14],
                                        verbose=getattr(args, "verbose", False))
    log.info("Terminal Authentication: %s (%s); DG3/DG4 need it", chip_ta.describe(), origin)
    return apply_eac_options(chip_ta, args, log)


def apply_eac_options(chip_ta, args, log):
    """--eac-document-number (ID_PICC after BAC from another document number than DG1's) and
    --eac-protect (more files that only a completed Terminal Authentication opens)."""
    from . import ta
    from .dump import logical_name
    number = getattr(args, "eac_document_number", None)
    if number:
        text = number.upper()
        if not re.fullmatch(r"[0-9A-Z<]{1,9}", text):
            raise ValueError("--eac-document-number %r: 1-9 characters 0-9 A-Z <" % number)
        text = text.ljust(9, "<")
        chip_ta.document_number = text + str(ta_check_digit(text))
        log.info("Terminal Authentication: ID_PICC after BAC from document number %s "
                 "(--eac-document-number), not DG1's", chip_ta.document_number)
    for spec in getattr(args, "eac_protect", None) or []:
        for item in spec.replace("+", ",").split(","):
            name = logical_name(item.strip()) if item.strip() else None
            if name is None or not name.startswith("DG"):
                raise ValueError("--eac-protect %s: not a data group" % item)
            chip_ta.extra_protected.add(name)
    if chip_ta.extra_protected:
        log.info("Terminal Authentication also protects %s (--eac-protect): readable after it "
                 "succeeded", ", ".join(sorted(chip_ta.extra_protected)))
    return chip_ta


def ta_check_digit(text):
    """ICAO 9303-3 check digit (weights 7 3 1)."""
    values = [int(c) if c.isdigit() else (0 if c == "<" else ord(c) - 55) for c in text]
    return sum(v * (7, 3, 1)[i % 3] for i, v in enumerate(values)) % 10


def build_ca_extra_keys(args, dg14, chip_ca, log):
    """--ca-extra-key FILE (repeatable): more of DG14's Chip Authentication keys the chip holds
    (one per keyId), next to the --ca-key one; a ca.KeyChoice."""
    from . import ca
    chips = [chip_ca] if chip_ca is not None else []
    for path in args.ca_extra_key:
        extra = build_ca(args, dg14, path, "option", log)
        if extra is None:
            raise ValueError("--ca-extra-key %s: no Chip Authentication with this key" % path)
        chips.append(extra)
    return ca.KeyChoice(chips)


def build_ca_unchecked(args, dg14, path, log):
    """--ca-key-unchecked: Chip Authentication with the --ca-key private key for DG14's first
    ChipAuthenticationInfo of its kind, though DG14's public key does not match it (or cannot be
    read): a chip whose DG14 carries a corrupted public key. ca.ChipAuthentication or None."""
    from . import ca, ecc
    from .keys import ID_PK_DH, ID_PK_ECDH
    private = load_key(path, "option", "Chip Authentication", log)
    if dg14 is None or private is None:
        raise ValueError("--ca-key-unchecked needs DG14 and --ca-key")

    class _Public:
        domain = private.domain

        def __repr__(self):
            return "%s key of --ca-key (DG14's does not match)" % private.kind
    is_dh = not isinstance(private.domain, ecc.Curve)
    pk_oid = ID_PK_DH if is_dh else ID_PK_ECDH
    key_id = next((kid for _, kid, o in dg14.ca_keys if o == pk_oid),
                  next((kid for _, _, kid in dg14.ca_infos), None))
    protocols = ca.offered_protocols(dg14, pk_oid, key_id)
    if not protocols:
        raise ValueError("--ca-key-unchecked: DG14 offers no Chip Authentication protocol for a %s key"
                         % private.kind)
    chip_ca = ca.ChipAuthentication(private, _Public(), key_id, protocols, wrong_key=args.ca_wrong_key)
    log.info("Chip Authentication (--ca-key-unchecked): %s, key %s", chip_ca.describe(), path)
    return chip_ca
