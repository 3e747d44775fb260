"""Access to Debian's python3-virtualsmartcard without editing system files.

Debian installs the package as /usr/lib/python3/site-packages/virtualsmartcard/
virtualsmartcard/ (outside the default sys.path; its own absolute imports need
the outer folder on the path), and it imports
PyCrypto's `Crypto` namespace while Debian ships pycryptodome as `Cryptodome`;
both are bridged here, before the library is first imported.
"""
import importlib
import sys

LIBRARY_PATH = "/usr/lib/python3/site-packages/virtualsmartcard"

if LIBRARY_PATH not in sys.path:
    sys.path.append(LIBRARY_PATH)

if "Crypto" not in sys.modules:
    import Cryptodome
    sys.modules["Crypto"] = Cryptodome
    # Alias the subpackages too, so `from Crypto.X import Y` finds the very
    # same module objects instead of loading Cryptodome a second time.
    for sub in ("Cipher", "Hash", "Util", "PublicKey", "Random", "Protocol"):
        sys.modules["Crypto." + sub] = importlib.import_module("Cryptodome." + sub)

from virtualsmartcard.VirtualSmartcard import (  # noqa: E402
    Iso7816OS, SmartcardOS, VPCD_CTRL_ATR, VPCD_CTRL_OFF, VPCD_CTRL_ON,
    VPCD_CTRL_RESET)
from virtualsmartcard.utils import hexdump  # noqa: E402

__all__ = ["Iso7816OS", "SmartcardOS", "VPCD_CTRL_ATR", "VPCD_CTRL_OFF",
           "VPCD_CTRL_ON", "VPCD_CTRL_RESET", "hexdump"]
