"""Entry points used by scripts/virtual-passport (run with /usr/bin/python3).

  serve DUMP_DIR [--no-extended-length] [--drop-during FILE] [--verbose]
        [--pace [--can N] [--mapping gm|im|cam] [--dh] [--no-bac] [--ca-key PEM]]
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


def build_pace(args, files, mrz_info, log):
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
        ca_key = pace.load_ec_private_key(args.ca_key or DEFAULT_CA_KEY)
        if not pace.ca_key_matches(cam[0], ca_key, point):
            raise ValueError("the Chip Authentication key %s does not match CardSecurity.bin"
                             % (args.ca_key or DEFAULT_CA_KEY))
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
    if not args.pace and (args.mapping or args.dh or args.no_bac or args.can or args.ca_key):
        log.error("--can, --mapping, --dh, --no-bac and --ca-key need --pace")
        return 2
    args.mapping = args.mapping or "gm"
    args.can = args.can or "123456"
    try:
        files = load_dump(args.dump_dir)
        pace_chip = None
        if args.pace:
            from .dump import mrz_information
            pace_chip = build_pace(args, files, mrz_information(files["DG1"]), log)
        chip = EmrtdOS(files, extended_length=not args.no_extended_length,
                       drop_during=drop, verbose=args.verbose, pace=pace_chip,
                       bac_enabled=not args.no_bac)
    except (OSError, ValueError, RuntimeError) as e:
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
    s.add_argument("--verbose", action="store_true")
    s.add_argument("--pace", action="store_true")
    s.add_argument("--can")
    s.add_argument("--mapping", choices=["gm", "im", "cam"])
    s.add_argument("--dh", action="store_true")
    s.add_argument("--no-bac", action="store_true")
    s.add_argument("--ca-key")
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
