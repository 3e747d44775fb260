"""`virtual-passport … --usb MODEL`: the virtual passport behind an emulated USB reader, driven
by Debian's own reader driver (libccid in pcscd) through emulator/vpassport/usbshim.

  start DUMP_DIR --usb MODEL [chip options]
        (re)start: builds the shim if needed, starts the emulated device, writes
        /etc/reader.conf.d/passport-usb-emulated (libccid, DEVICENAME usb:VID/PID), restarts pcscd
        with the shim preloaded, waits for the reader and the card; prints the environment a
        libnfc client needs (`export LD_PRELOAD=…`, `export PASSPORT_USB_SOCKET=…`) and, for the
        CCID models, `# reader: NAME`. pn533, and any model with --no-pcscd, is left to libnfc.
  eject     the card leaves the field; the reader stays
  unplug    the reader leaves the USB bus (the driver's own error path); `plug` brings it back
  stop      stop the device and our pcscd, remove the reader.conf.d entry; idempotent
  status    exit 0 if the device runs with a card in its field
  serve …   the process start runs in the background

MODEL: ccid-extended (Identiv uTrust 3700 F, extended APDUs), acr122u (short APDUs; its PN532
for libnfc's acr122_usb with --no-pcscd) or pn533 (SCM SCL3711, libnfc's pn53x_usb).
Chip options are those of `python3 -m vpassport serve`; the chip is built by that code.
State: ${VIRTUAL_PASSPORT_STATE:-/tmp/virtual-passport}-usb.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # emulator/
PY = "/usr/bin/python3"
TIMEOUT = 15
SHIM_SOURCE = os.path.join(HERE, "vpassport", "usbshim", "libusb_shim.c")
READER_CONF = "/etc/reader.conf.d/passport-usb-emulated"
LIBCCID = "/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Linux/libccid.so"


def state_dir():
    return os.environ.get("VIRTUAL_PASSPORT_STATE", "/tmp/virtual-passport") + "-usb"


def die(message):
    print("virtual-passport: %s" % message, file=sys.stderr)
    sys.exit(2)


def path(name):
    return os.path.join(state_dir(), name)


def live(pid_file, marker):
    try:
        pid = int(open(path(pid_file)).read().strip())
        with open("/proc/%d/stat" % pid) as f:
            if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                return None
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return pid if marker in f.read() else None
    except (OSError, ValueError, IndexError):
        return None


def kill(pid_file, marker):
    pid = live(pid_file, marker)
    if pid:
        os.kill(pid, signal.SIGTERM)
        for _ in range(300):
            if live(pid_file, marker) is None:
                break
            time.sleep(0.01)
        else:
            os.kill(pid, signal.SIGKILL)
    try:
        os.remove(path(pid_file))
    except OSError:
        pass


def build_shim():
    """The shim, compiled once per source (its hash names the library: another checkout's
    shim in the same state folder is never taken for this one) with the system's C compiler."""
    import hashlib
    digest = hashlib.sha256(open(SHIM_SOURCE, "rb").read()).hexdigest()[:12]
    target = path("libusb_shim-%s.so" % digest)
    if os.path.exists(target):
        return target
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        die("no C compiler to build the USB shim (apt-get install gcc)")
    if not os.path.exists("/usr/include/libusb-1.0/libusb.h"):
        die("the USB shim needs libusb's header (apt-get install libusb-1.0-0-dev)")
    r = subprocess.run([compiler, "-O2", "-shared", "-fPIC", "-o", target, SHIM_SOURCE, "-lpthread"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        die("building the USB shim failed: %s" % r.stderr.strip())
    return target


def stop_pcscd():
    """Any pcscd: the one serving the emulated reader must be ours, with the shim loaded."""
    subprocess.run(["pkill", "-x", "pcscd"], capture_output=True)
    for _ in range(300):
        if subprocess.run(["pgrep", "-x", "pcscd"], capture_output=True).returncode != 0:
            break
        time.sleep(0.01)
    try:
        os.remove("/run/pcscd/pcscd.comm")
    except OSError:
        pass


def readers():
    r = subprocess.run([PY, "-c", "import smartcard.System as s; print('\\n'.join(map(str, s.readers())))"],
                       capture_output=True, text=True)
    return r.stdout.splitlines() if r.returncode == 0 else []


def cmd_start(argv):
    from .usb_device import MODELS
    model, rest, with_pcscd = None, [], True
    i = 0
    while i < len(argv):
        if argv[i] == "--no-pcscd":
            with_pcscd = False
            i += 1
            continue
        if argv[i] == "--usb":
            if i + 1 >= len(argv):
                die("--usb needs a model: %s" % ", ".join(MODELS))
            model = argv[i + 1]
            i += 2
            continue
        rest.append(argv[i])
        i += 1
    if model not in MODELS:
        die("unknown USB reader model %r: %s" % (model, ", ".join(MODELS)))
    dumps = [a for a in rest if not a.startswith("-") and os.path.isdir(a)]
    if not dumps:
        die("usage: virtual-passport start DUMP_DIR --usb MODEL [chip options]")
    rest[rest.index(dumps[0])] = os.path.abspath(dumps[0])
    os.makedirs(state_dir(), exist_ok=True)
    kill("device.pid", b"vpassport.usb_main")
    shim = build_shim()
    socket_path = path("device.sock")
    for name in ("device.ready", "card.gone"):
        try:
            os.remove(path(name))
        except OSError:
            pass
    with open(path("device.log"), "w") as log, open(os.devnull) as null:
        device = subprocess.Popen([PY, "-m", "vpassport.usb_main", "serve", "--model", model, "--socket", socket_path,
                                   "--state", state_dir()] + rest,
                                  stdin=null, stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONPATH=HERE),
                                  start_new_session=True)
    with open(path("device.pid"), "w") as f:
        f.write("%d\n" % device.pid)
    wait_for(lambda: os.path.exists(path("device.ready")), device, "the emulated device")
    spec = MODELS[model]
    environment = "export LD_PRELOAD=%s\nexport PASSPORT_USB_SOCKET=%s" % (shim, socket_path)
    if not spec.ccid or not with_pcscd:
        # A libnfc client loads the shim itself: nothing for pcscd (which would hold the reader).
        with open(path("device.info"), "w") as f:
            f.write("model=%s\nreader=libnfc\noptions=%s\n" % (model, " ".join(rest)))
        print(environment)
        return 0
    friendly = driver_name(spec)
    with open(READER_CONF, "w") as f:
        f.write("# Written by scripts/virtual-passport --usb (tests only); removed by stop.\n"
                'FRIENDLYNAME "%s"\nDEVICENAME   usb:%04x/%04x\nLIBPATH      %s\n' % (friendly, spec.vendor, spec.product, LIBCCID))
    stop_pcscd()
    os.makedirs("/run/pcscd", exist_ok=True)
    with open(path("pcscd.log"), "w") as log, open(os.devnull) as null:
        # Debian 13's pcscd asks polkit about each client; the test stack goes without it.
        help_text = subprocess.run(["pcscd", "--help"], capture_output=True, text=True)
        polkit = ["--disable-polkit"] if "--disable-polkit" in help_text.stdout + help_text.stderr else []
        pcscd = subprocess.Popen(["pcscd", "-f", "-d"] + polkit, stdin=null, stdout=log, stderr=subprocess.STDOUT,
                                 env=dict(os.environ, LD_PRELOAD=shim, PASSPORT_USB_SOCKET=socket_path), start_new_session=True)
    with open(path("pcscd.pid"), "w") as f:
        f.write("%d\n" % pcscd.pid)
    wait_for(lambda: any(r.startswith(friendly) for r in readers()), pcscd, "pcscd to list the emulated reader")
    name = next(r for r in readers() if r.startswith(friendly))
    with open(path("device.info"), "w") as f:
        f.write("model=%s\nreader=%s\noptions=%s\n" % (model, name, " ".join(rest)))
    print(environment)
    print("# reader: %s" % name)
    return 0


def driver_name(spec):
    """The name libccid's own reader list (its Info.plist) gives this vendor and product: with
    the reader declared in reader.conf.d, pcscd names it by FRIENDLYNAME, so that is taken from
    the driver rather than made up."""
    import plistlib
    info = os.path.join(os.path.dirname(os.path.dirname(LIBCCID)), "Info.plist")
    try:
        with open(info, "rb") as f:
            plist = plistlib.load(f)
        for vendor, product, name in zip(plist["ifdVendorID"], plist["ifdProductID"], plist["ifdFriendlyName"]):
            if int(vendor, 16) == spec.vendor and int(product, 16) == spec.product:
                return name
    except (OSError, KeyError, ValueError):
        pass
    die("libccid (%s) does not list %04x:%04x: is Debian's libccid installed?" % (info, spec.vendor, spec.product))


def wait_for(condition, process, what):
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if process.poll() is not None or time.monotonic() > deadline:
            tail = open(path("device.log")).read().splitlines()[-3:] if os.path.exists(path("device.log")) else []
            cmd_stop([])
            die("%s did not come up: %s" % (what, " | ".join(tail)))
        time.sleep(0.05)


def cmd_stop(argv):
    kill("device.pid", b"vpassport.usb_main")
    if live("pcscd.pid", b"pcscd"):
        kill("pcscd.pid", b"pcscd")
    try:
        os.remove(READER_CONF)
    except OSError:
        pass
    print("stopped")
    return 0


def signal_device(sig):
    pid = live("device.pid", b"vpassport.usb_main")
    if not pid:
        die("no emulated USB reader runs")
    os.kill(pid, sig)
    time.sleep(0.3)


def cmd_eject(argv):
    signal_device(signal.SIGUSR1)
    print("ejected")
    return 0


def cmd_unplug(argv):
    signal_device(signal.SIGUSR2)
    print("unplugged")
    return 0


def cmd_plug(argv):
    signal_device(signal.SIGHUP)
    print("plugged")
    return 0


def cmd_status(argv):
    pid = live("device.pid", b"vpassport.usb_main")
    if not pid:
        print("usb: not running")
        return 1
    print("usb: running (pid %d)" % pid)
    print(open(path("device.info")).read() if os.path.exists(path("device.info")) else "")
    return 1 if os.path.exists(path("card.gone")) else 0


def cmd_serve(argv):
    """Build the chip through __main__.cmd_serve, with the vpcd connection replaced by the
    emulated USB device."""
    own, rest, i = {}, [], 0
    while i < len(argv):
        if argv[i] in ("--model", "--socket", "--state"):
            own[argv[i]] = argv[i + 1]
            i += 2
            continue
        rest.append(argv[i])
        i += 1
    from . import vicc
    from . import __main__ as vp_main
    from .usb_device import MODELS, CCIDReader, PN533Stick, USBServer

    gone_file = os.path.join(own["--state"], "card.gone")

    def on_card_gone(reason):
        if reason is None:
            if os.path.exists(gone_file):
                os.remove(gone_file)
            return
        with open(gone_file, "w") as f:
            f.write(reason + "\n")

    def serve_usb(chip, sock, *args, **kwargs):
        model = MODELS[own["--model"]]
        reader = (CCIDReader if model.ccid else PN533Stick)(chip, model, on_card_gone=on_card_gone)
        server = USBServer(reader, own["--socket"], ready_file=os.path.join(own["--state"], "device.ready"))
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        signal.signal(signal.SIGUSR1, lambda *_: reader.card_gone("ejected"))
        signal.signal(signal.SIGUSR2, lambda *_: server.unplug())
        signal.signal(signal.SIGHUP, lambda *_: server.plug())
        server.run()

    vicc.connect, vicc.serve = (lambda *a, **k: None), serve_usb
    return vp_main.main(["serve"] + rest)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    commands = {"start": cmd_start, "stop": cmd_stop, "eject": cmd_eject, "unplug": cmd_unplug, "plug": cmd_plug,
                "status": cmd_status, "serve": cmd_serve}
    if not argv or argv[0] not in commands:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
