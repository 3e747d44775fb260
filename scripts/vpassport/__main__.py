"""Entry points used by scripts/virtual-passport (run with /usr/bin/python3).

  serve DUMP_DIR [--no-extended-length] [--drop-during FILE] [--verbose]
        [--fault KIND@FILE[/0|/any][:once|always|N]]...
        [--pace [--can N] [--mapping gm|im|cam] [--dh] [--no-bac]]
        [--aa-key FILE] [--aa-hash H] [--aa-bad-signature]
        [--ca-key FILE] [--ca-wrong-key]
        [--ready-file PATH] [--port N]       run the card until vpcd hangs up
  reader (--present | --absent) [--name N] [--timeout S]
                                             wait for a vpcd slot's state
                                             through PC/SC, print its name
  selftest                                   ICAO 9303-11 worked examples
"""
import argparse
import logging
import os
import sys

VPCD_PORT = 0x8C7B  # CHANNELID of /etc/reader.conf.d/vpcd
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
    ecdsa_hash = aa.ecdsa_hash_of(dg14) if public.kind == "EC" else None
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
    return pace.PaceChip(profiles, mrz_info, args.can, ca_private_key=ca_key,
                         verbose=args.verbose)


def cmd_serve(args):
    from .chip import EmrtdOS
    from .dump import check_mrz_information, load_dump, logical_name
    from .vicc import connect, serve

    logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(message)s")
    log = logging.getLogger("vpassport")
    drop = None
    if args.drop_during:
        drop = logical_name(args.drop_during)
        if drop is None:
            log.error("--drop-during: unknown file %s", args.drop_during)
            return 2
    if not args.pace and (args.mapping or args.dh or args.no_bac or args.can):
        log.error("--can, --mapping, --dh and --no-bac need --pace")
        return 2
    args.mapping = args.mapping or "gm"
    args.can = args.can or "123456"
    try:
        from .keys import SecurityInfos
        files = load_dump(args.dump_dir)
        dg14 = None
        if "DG14" in files:
            try:
                dg14 = SecurityInfos(files["DG14"])
            except (ValueError, IndexError) as e:
                log.warning("DG14 unreadable (%s): no Chip Authentication", e)
        ca_key_file = key_file(args.ca_key, args.dump_dir, DUMP_CA_KEY, DEFAULT_CA_KEY)
        pace_chip = None
        if args.pace:
            from .dump import mrz_information
            pace_chip = build_pace(args, files, mrz_information(files["DG1"]), log, ca_key_file)
        chip_aa = build_aa(args, files, dg14, log)
        chip_ca = build_ca(args, dg14, *ca_key_file, log, used_by_cam=bool(
            pace_chip is not None and pace_chip.ca_private_key is not None))
        if args.aa_bad_signature and chip_aa is None:
            raise ValueError("--aa-bad-signature: this chip has no Active Authentication "
                             "(needs DG15 and its private key)")
        if args.ca_wrong_key and chip_ca is None:
            raise ValueError("--ca-wrong-key: this chip has no Chip Authentication "
                             "(needs DG14 and its private key)")
        from . import faults
        armed = [faults.parse(spec) for spec in args.fault or []]
        for fault in armed:
            if fault.file not in files and not (fault.file == "CardAccess" and pace_chip):
                log.warning("--fault %s: the dump has no %s, so it never fires",
                            fault.spec, fault.file)
        chip = EmrtdOS(files, extended_length=not args.no_extended_length,
                       drop_during=drop, verbose=args.verbose, pace=pace_chip,
                       bac_enabled=not args.no_bac, aa=chip_aa, ca=chip_ca, faults=armed)
        for fault in chip.faults.faults:
            log.info("fault armed: %s", fault.describe())
    except (OSError, ValueError, RuntimeError, IndexError) as e:
        log.error("cannot start the chip: %s", e)
        return 2
    for problem in check_mrz_information(chip.mrz_info):
        log.warning("DG1 MRZ: %s", problem)
    log.info("serving %s: %s; extended length %s; ATR %s", args.dump_dir,
             " ".join(sorted(files)), "on" if chip.extended_length else "off",
             chip.getATR().hex().upper())
    try:
        sock = connect("127.0.0.1", args.port, timeout=10)
    except OSError as e:
        log.error("%s", e)
        return 2
    log.info("connected to vpcd on port %d", args.port)

    def ready():
        # First power-up = pcscd has seen the insertion; the launcher waits for it.
        if args.ready_file and not os.path.exists(args.ready_file):
            with open(args.ready_file, "w") as f:
                f.write("%d\n" % os.getpid())

    serve(chip, sock, on_power_up=ready)
    return 0


def cmd_reader(args):
    """Wait until a vpcd reader holds a card (--present: print the first such
    reader) or until the reader --name is empty (--absent). Exit 1 on timeout,
    3 when python3-pyscard is not installed."""
    import time
    try:
        from smartcard import scard
    except ImportError:
        return 3

    deadline = time.monotonic() + args.timeout
    hctx = None
    while time.monotonic() < deadline:
        if hctx is None:
            rv, hctx = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
            if rv != scard.SCARD_S_SUCCESS:
                hctx = None
        if hctx is not None:
            rv, readers = scard.SCardListReaders(hctx, [])
            wanted = [r for r in (readers or []) if
                      (r == args.name if args.name else r.startswith("Virtual PCD"))]
            if wanted:
                rv, states = scard.SCardGetStatusChange(
                    hctx, 0, [(r, scard.SCARD_STATE_UNAWARE) for r in wanted])
                for name, state, _ in (states if rv == scard.SCARD_S_SUCCESS else []):
                    if bool(state & scard.SCARD_STATE_PRESENT) == args.present:
                        print(name)
                        scard.SCardReleaseContext(hctx)
                        return 0
            elif not args.present and args.name:
                return 0                        # reader gone: certainly empty
        time.sleep(0.05)
    return 1


def main(argv=None):
    p = argparse.ArgumentParser(prog="vpassport")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve")
    s.add_argument("dump_dir")
    s.add_argument("--no-extended-length", action="store_true")
    s.add_argument("--drop-during")
    s.add_argument("--fault", action="append", metavar="KIND@FILE[/0|/any][:COUNT]",
                   help="inject a fault (repeatable); see README.md")
    s.add_argument("--verbose", action="store_true")
    s.add_argument("--pace", action="store_true")
    s.add_argument("--can")
    s.add_argument("--mapping", choices=["gm", "im", "cam"])
    s.add_argument("--dh", action="store_true")
    s.add_argument("--no-bac", action="store_true")
    s.add_argument("--ca-key")
    s.add_argument("--aa-key")
    s.add_argument("--aa-hash", choices=["sha1", "sha224", "sha256", "sha384", "sha512"])
    s.add_argument("--aa-bad-signature", action="store_true")
    s.add_argument("--ca-wrong-key", action="store_true")
    s.add_argument("--ready-file")
    s.add_argument("--port", type=int, default=VPCD_PORT)
    r = sub.add_parser("reader")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--present", action="store_true")
    g.add_argument("--absent", dest="present", action="store_false")
    r.add_argument("--timeout", type=float, default=10)
    r.add_argument("--name", help="exact reader name (default: any Virtual PCD)")
    sub.add_parser("selftest")
    args = p.parse_args(argv)
    if args.command == "serve":
        return cmd_serve(args)
    if args.command == "reader":
        return cmd_reader(args)
    from .selftest import main as selftest
    return selftest()


if __name__ == "__main__":
    sys.exit(main())
