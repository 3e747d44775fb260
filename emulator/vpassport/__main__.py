"""Entry points used by scripts/virtual-passport (run with /usr/bin/python3).

  serve DUMP_DIR [--no-extended-length] [--drop-during FILE [--return-after S]]
        [--verbose] [--fault KIND@FILE[/0|/any][:once|always|N]]... [--quirk NAME[:ARG]]...
        [--pace [--can N] [--mapping gm|im|cam] [--dh] [--no-bac]]
        [--aa-key FILE] [--aa-hash H] [--aa-bad-signature]
        [--ca-key FILE] [--ca-wrong-key] [--eac-cvca FILE]... [--eac-date YYMMDD]
        [--ready-file PATH] [--port N]       run the card until vpcd hangs up
  reader (--present | --absent) [--name N] [--timeout S]
                                             wait for a vpcd slot's state
                                             through PC/SC, print its name

The self-test (ICAO 9303-11 worked examples, in-process sessions) is test code:
Tests/vpassport-selftest/selftest.py.
"""
import argparse
import logging
import os
import sys
import time

VPCD_PORT = 0x8C7B  # CHANNELID of /etc/reader.conf.d/vpcd


def cmd_serve(args):
    from .assemble import DEFAULT_CA_KEY, DUMP_CA_KEY, build_aa, build_ca, build_pace, build_ta, key_file
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
    if args.return_after is not None and not 0 < args.return_after <= 3600:
        log.error("--return-after needs 0 < SECONDS <= 3600")
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
            pace_chip = build_pace(args, files, access_mrz_information(args, files), log, ca_key_file)
        chip_aa = build_aa(args, files, dg14, log)
        chip_ca = None if getattr(args, "ca_key_unchecked", False) else build_ca(
            args, dg14, *ca_key_file, log, used_by_cam=bool(pace_chip is not None and pace_chip.ca_private_key is not None))
        if getattr(args, "ca_key_unchecked", False):
            from .assemble import build_ca_unchecked
            chip_ca = build_ca_unchecked(args, dg14, args.ca_key, log)
        if getattr(args, "ca_extra_key", None):
            from .assemble import build_ca_extra_keys
            chip_ca = build_ca_extra_keys(args, dg14, chip_ca, log)
        if args.aa_bad_signature and chip_aa is None:
            raise ValueError("--aa-bad-signature: this chip has no Active Authentication "
                             "(needs DG15 and its private key)")
        eac2_quirk = "eac2" in [spec.partition(":")[0].lower() for spec in args.quirk or []]
        if args.ca_wrong_key and chip_ca is None and not eac2_quirk:
            raise ValueError("--ca-wrong-key: this chip has no Chip Authentication "
                             "(needs DG14 and its private key)")
        from .dump import mrz_information as _mrz_information
        chip_ta = build_ta(args, files, access_mrz_information(args, files), log)
        if chip_ta is not None and chip_ca is None and not (
                pace_chip is not None and pace_chip.ca_private_key is not None):
            log.warning("EF.CVCA but no Chip Authentication (nor PACE-CAM): Terminal Authentication "
                        "cannot be performed, DG3 and DG4 stay unreadable")
        if eac2_quirk:
            from . import eac2
            if pace_chip is None or chip_ta is None:
                raise ValueError("--quirk eac2 needs --pace and a dump with CVCA.bin")
            chip_ca = eac2.setup(files, ca_key_file, wrong_key=args.ca_wrong_key)
            chip_ca.ta, chip_ta.eac2 = chip_ta, True
        from . import faults
        from .quirks import Quirks
        quirks = Quirks(args.quirk or [])
        armed = [faults.parse(spec) for spec in args.fault or []]
        for fault in armed:
            if fault.file not in files and not (fault.file == "CardAccess" and pace_chip):
                log.warning("--fault %s: the dump has no %s, so it never fires",
                            fault.spec, fault.file)
        chip = EmrtdOS(files, extended_length=not args.no_extended_length,
                       drop_during=drop, verbose=args.verbose, pace=pace_chip,
                       bac_enabled=not args.no_bac, aa=chip_aa, ca=chip_ca, faults=armed,
                       quirks=quirks, ta=chip_ta, mrz_info=access_mrz_information(args, files))
        log.info("quirks: %s", quirks.describe())
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
    def ready():
        # First power-up = pcscd has seen the insertion; the launcher waits for it.
        if args.ready_file and not os.path.exists(args.ready_file):
            with open(args.ready_file, "w") as f:
                f.write("%d\n" % os.getpid())

    chip.return_after = args.return_after      # read by the PN532 emulator's drop too
    while True:
        try:
            sock = connect("127.0.0.1", args.port, timeout=10)
        except OSError as e:
            log.error("%s", e)
            return 2
        log.info("connected to vpcd on port %d", args.port)
        if not serve(chip, sock, on_power_up=ready) or args.return_after is None:
            return 0
        # --return-after: the passport comes back to the reader (a new power-up).
        log.info("the card returns in %g s (--return-after)", args.return_after)
        time.sleep(args.return_after)
        args.return_after = None                # once


def cmd_reader(args):
    """Wait until a vpcd reader holds a card (--present: print the first such
    reader) or until the reader --name is empty (--absent). Exit 1 on timeout,
    2 when PC/SC failed (e.g. pcscd restarting), 3 when python3-pyscard is not
    installed."""
    try:
        from smartcard import scard
    except ImportError:
        return 3
    try:
        return _wait_for_reader(scard, args)
    except Exception as e:                      # pyscard raises on some PC/SC failures
        print("vpassport reader: %s" % e, file=sys.stderr)
        return 2


def _wait_for_reader(scard, args):
    import time

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


def access_mrz_information(args, files):
    """MRZ information of the access key: from --mrz-key when given, else from DG1."""
    from .dump import mrz_information, mrz_key_information
    if getattr(args, "mrz_key", None):
        return mrz_key_information(args.mrz_key)
    return mrz_information(files["DG1"])


def main(argv=None):
    p = argparse.ArgumentParser(prog="vpassport")
    sub = p.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve")
    s.add_argument("dump_dir")
    s.add_argument("--no-extended-length", action="store_true")
    s.add_argument("--drop-during")
    s.add_argument("--return-after", type=float, metavar="SECONDS",
                   help="after a drop, come back to the reader this many seconds later (once)")
    s.add_argument("--quirk", action="append", metavar="NAME[:ARG]",
                   help="reproduce a field behaviour (repeatable); see README.md")
    s.add_argument("--fault", action="append", metavar="KIND@FILE[/0|/any][:COUNT]",
                   help="inject a fault (repeatable); see README.md")
    s.add_argument("--verbose", action="store_true")
    s.add_argument("--pace", action="store_true")
    s.add_argument("--can")
    s.add_argument("--mapping", choices=["gm", "im", "cam"])
    s.add_argument("--dh", action="store_true")
    s.add_argument("--no-bac", action="store_true")
    s.add_argument("--pace-refuse", metavar="SW",
                   help="answer PACE's first GENERAL AUTHENTICATE with this status (hex), BAC still works")
    s.add_argument("--ca-key")
    s.add_argument("--ca-extra-key", action="append", metavar="FILE",
                   help="another of DG14's Chip Authentication private keys (one per keyId)")
    s.add_argument("--ca-key-unchecked", action="store_true",
                   help="CA with --ca-key although DG14's public key does not match it")
    s.add_argument("--aa-key")
    s.add_argument("--aa-hash", choices=["sha1", "sha224", "sha256", "sha384", "sha512"])
    s.add_argument("--aa-bad-signature", action="store_true")
    s.add_argument("--ca-wrong-key", action="store_true")
    s.add_argument("--eac-cvca", action="append", metavar="FILE",
                   help="a trust point (CVCA CV certificate) named by EF.CVCA (repeatable); "
                        "default: looked up by CHR in Fixtures/pki/eac")
    s.add_argument("--eac-date", metavar="YYMMDD",
                   help="the chip's current date for Terminal Authentication (default: EF.SOD's signing time)")
    s.add_argument("--eac-trust-point", action="append", metavar="FILE|none",
                   help="the chip's trust point (CVCA CV certificate, repeatable) whatever EF.CVCA "
                        "names; 'none': no trust point (EF.CVCA served as it is)")
    s.add_argument("--eac-document-number", metavar="DOCNO",
                   help="the document number the chip uses for ID_PICC after BAC (default: DG1's)")
    s.add_argument("--eac-protect", action="append", metavar="DG11,DG12",
                   help="more data groups that only a completed Terminal Authentication opens")
    s.add_argument("--mrz-key", metavar="NUMBER,BIRTH,EXPIRY",
                   help="the access key (BAC, PACE with the MRZ, TA's document number) from these fields "
                        "instead of DG1's MRZ; check digits are computed (a DG1 that differs or cannot be parsed)")
    s.add_argument("--ready-file")
    s.add_argument("--port", type=int, default=VPCD_PORT)
    r = sub.add_parser("reader")
    g = r.add_mutually_exclusive_group(required=True)
    g.add_argument("--present", action="store_true")
    g.add_argument("--absent", dest="present", action="store_false")
    r.add_argument("--timeout", type=float, default=10)
    r.add_argument("--name", help="exact reader name (default: any Virtual PCD)")
    args = p.parse_args(argv)
    if args.command == "serve":
        return cmd_serve(args)
    return cmd_reader(args)


if __name__ == "__main__":
    sys.exit(main())
