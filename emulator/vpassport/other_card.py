"""A card that is not a passport, in a vpcd slot: one of vsmartcard's own card types
(`iso7816`; Debian's `cryptoflex` fails under Python 3), served by the library's VirtualICC. Tests use it to show what the
toolkit says about a card with no eMRTD application (`passport doctor`, `scan`).

    /usr/bin/python3 -m vpassport.other_card TYPE [--port PORT]   (from emulator/)

PORT: vpcd slot 0 is 35963 (0x8C7B), slot 1 is 35964 (0x8C7C, the default here).
"""
import argparse
import logging

from . import libvsc  # noqa: F401  (bridges Debian's virtualsmartcard and Cryptodome)
from virtualsmartcard.VirtualSmartcard import VirtualICC


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # Debian's cryptoflex type sends its ATR as str under Python 3 and stops at once.
    parser.add_argument("type", choices=["iso7816"])
    parser.add_argument("--port", type=int, default=0x8C7C)
    args = parser.parse_args()
    VirtualICC(None, args.type, "localhost", args.port, logginglevel=logging.WARNING).run()


if __name__ == "__main__":
    main()
