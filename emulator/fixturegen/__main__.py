"""python3 -m fixturegen [--new-keys] [--check-only] [--no-check] [--no-pa]"""

from __future__ import annotations

import argparse
import os
import sys


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="make-fixtures",
                                 description="Generate the TEST-ONLY passport fixtures under Fixtures/.")
    ap.add_argument("--new-keys", action="store_true",
                    help="generate new keys (by default the keys in Fixtures/pki are reused)")
    ap.add_argument("--no-pa", action="store_true", help="only the PKI and Fixtures/passport, not Fixtures/pa")
    ap.add_argument("--no-check", action="store_true", help="skip the checks after generating")
    ap.add_argument("--check-only", action="store_true", help="only check the existing fixtures")
    ap.add_argument("--verbose", "-v", action="store_true", help="print the openssl commands and their output")
    ap.add_argument("--root", default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")),
                    help="repository root (default: this checkout)")
    args = ap.parse_args(argv)

    from . import check, generate
    if not args.check_only:
        generate.Generator(args.root, new_keys=args.new_keys).run(with_pa=not args.no_pa)
    if args.no_check:
        return 0
    failures = check.run(args.root, verbose=args.verbose)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
