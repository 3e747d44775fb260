"""Paths for the test code in this folder, and emulator/ on sys.path so that the
chip (vpassport) and the shared DER helper (der) import. Every module here
imports this first: each one may be the entry point."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EMULATOR = os.path.join(ROOT, "emulator")
LAUNCHER = os.path.join(ROOT, "scripts", "virtual-passport")

if EMULATOR not in sys.path:
    sys.path.insert(0, EMULATOR)
