"""Paths for the test code in this folder, and scripts/ on sys.path so that the
chip (vpassport) and the shared DER helper (der) import. Every module here
imports this first: each one may be the entry point."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(ROOT, "scripts")
LAUNCHER = os.path.join(SCRIPTS, "virtual-passport")

if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)
