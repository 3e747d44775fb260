"""`virtual-passport … --pn532`: the virtual passport behind an emulated PN532
on a pseudo-terminal, for libnfc's pn532_uart driver (no pcscd).

  start DUMP_DIR [chip options] [--pn532-type a|b] [--uid HEX]
        (re)start; prints the libnfc connstring (pn532_uart:/dev/pts/N) last
  eject     the card leaves the field; the PN532 (and its tty) stays
  stop      stop the PN532; idempotent
  status    exit 0 if the PN532 runs with a card in its field, 1 if not
  serve …   the process start runs in the background

Chip options are those of `python3 -m vpassport serve` (--no-extended-length,
--drop-during FILE, --verbose, --pace …): the chip is built by that very code
(`__main__.cmd_serve`), only the vpcd socket is replaced by the PN532 on a pty.
--pn532 itself is accepted and ignored, so the launcher can pass every word on.

State: ${VIRTUAL_PASSPORT_PN532_STATE:-${VIRTUAL_PASSPORT_STATE:-/tmp/virtual-passport}-pn532}
(pn532.pid, pn532.log, pn532.info, pn532.ready holding the connstring,
card.gone when the card dropped or was ejected).
"""
import logging
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))   # emulator/
PY = "/usr/bin/python3"
TIMEOUT = 10
OWN_VALUE_OPTIONS = ("--pn532-type", "--uid", "--state")


def state_dir():
    explicit = os.environ.get("VIRTUAL_PASSPORT_PN532_STATE")
    if explicit:
        return explicit
    return os.environ.get("VIRTUAL_PASSPORT_STATE", "/tmp/virtual-passport") + "-pn532"


class State:
    def __init__(self):
        self.dir = state_dir()
        os.makedirs(self.dir, exist_ok=True)
        p = lambda name: os.path.join(self.dir, name)   # noqa: E731
        self.pid, self.log, self.info = p("pn532.pid"), p("pn532.log"), p("pn532.info")
        self.ready, self.gone = p("pn532.ready"), p("card.gone")

    def live_pid(self):
        """pid of our running server, if the pid file names one (not a reused pid)."""
        try:
            pid = int(open(self.pid).read().strip())
            with open("/proc/%d/stat" % pid) as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return None
            with open("/proc/%d/cmdline" % pid, "rb") as f:
                if b"vpassport.pn532_main" not in f.read():
                    return None
            return pid
        except (OSError, ValueError, IndexError):
            return None

    def read(self, path):
        try:
            return open(path).read().strip()
        except OSError:
            return None


def die(msg):
    print("virtual-passport: %s" % msg, file=sys.stderr)
    sys.exit(2)


def split_args(argv):
    """Own options out, the rest (chip options and DUMP_DIR) passed on."""
    own, rest, i = {}, [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--pn532":
            pass
        elif a in OWN_VALUE_OPTIONS:
            if i + 1 >= len(argv):
                die("%s needs a value" % a)
            own[a] = argv[i + 1]
            i += 1
        else:
            rest.append(a)
        i += 1
    return own, rest


def stop_server(st):
    pid = st.live_pid()
    if pid:
        os.kill(pid, signal.SIGTERM)
        for _ in range(300):
            if st.live_pid() is None:
                break
            time.sleep(0.01)
        else:
            os.kill(pid, signal.SIGKILL)
    for path in (st.pid, st.ready, st.info, st.gone):
        try:
            os.remove(path)
        except OSError:
            pass


def cmd_start(argv):
    own, rest = split_args(argv)
    dumps = [a for a in rest if not a.startswith("-") and os.path.isdir(a)]
    if not dumps:
        die("usage: virtual-passport start DUMP_DIR --pn532 [chip options] "
            "[--pn532-type a|b] [--uid HEX]")
    dump = os.path.abspath(dumps[0])
    rest[rest.index(dumps[0])] = dump
    if own.get("--pn532-type", "a").lower() not in ("a", "b"):
        die("--pn532-type must be a or b")
    st = State()
    stop_server(st)
    cmd = [PY, "-m", "vpassport.pn532_main", "serve", "--state", st.dir]
    for k in ("--pn532-type", "--uid"):
        if k in own:
            cmd += [k, own[k]]
    env = dict(os.environ, PYTHONPATH=HERE)
    with open(st.log, "w") as logf, open(os.devnull) as null:
        proc = subprocess.Popen(cmd + rest, stdin=null, stdout=logf, stderr=subprocess.STDOUT,
                                env=env, start_new_session=True)
    with open(st.pid, "w") as f:
        f.write("%d\n" % proc.pid)
    deadline = time.monotonic() + TIMEOUT
    while not os.path.exists(st.ready):
        if proc.poll() is not None:
            tail = (st.read(st.log) or "").splitlines()[-3:]
            stop_server(st)
            die("the PN532 did not start: %s" % " | ".join(tail))
        if time.monotonic() > deadline:
            stop_server(st)
            die("the PN532 did not start within %ds (see %s)" % (TIMEOUT, st.log))
        time.sleep(0.01)
    connstring = st.read(st.ready)
    with open(st.info, "w") as f:
        f.write("dump=%s\nconnstring=%s\noptions=%s\n" % (
            dump, connstring, " ".join(a for a in argv if a != dumps[0])))
    print(connstring)
    return 0


def cmd_stop(argv):
    stop_server(State())
    print("stopped")
    return 0


def cmd_eject(argv):
    st = State()
    pid = st.live_pid()
    if pid:
        os.kill(pid, signal.SIGUSR1)
        for _ in range(200):             # the server writes card.gone when it has seen it
            if os.path.exists(st.gone):
                break
            time.sleep(0.01)
    print("ejected")
    return 0


def cmd_status(argv):
    st = State()
    pid = st.live_pid()
    if not pid:
        print("pn532: not running")
        print("card: not running")
        return 1
    print("pn532: running (pid %d) on %s" % (pid, st.read(st.ready)))
    gone = st.read(st.gone)
    if gone:
        print("card: not in the field (%s)" % gone)
        return 1
    print("card: running (in the field)")
    for line in (st.read(st.info) or "").splitlines():
        print("  " + line)
    return 0


def cmd_serve(argv):
    """Build the chip through __main__.cmd_serve, with the vpcd connection
    replaced by the PN532 pty loop."""
    own, rest = split_args(argv)
    state = own.get("--state") or state_dir()
    card_type = own.get("--pn532-type", "a").upper()
    uid = None
    if "--uid" in own:
        try:
            uid = bytes.fromhex(own["--uid"])
        except ValueError:
            uid = b""
        if len(uid) not in ((4, 7) if card_type == "A" else (4,)):
            print("--uid: 4 or 7 bytes (type A) or 4 bytes (type B) in hex", file=sys.stderr)
            return 2

    from . import vicc
    from . import __main__ as vp_main
    from .pn532 import Pn532, PtyServer

    gone_file = os.path.join(state, "card.gone")
    ready_file = os.path.join(state, "pn532.ready")

    def on_card_gone(reason):
        if reason is None:                  # back in the field (--return-after)
            if os.path.exists(gone_file):
                os.remove(gone_file)
            return
        with open(gone_file, "w") as f:
            f.write(reason + "\n")

    def no_vpcd(*args, **kwargs):
        return None

    def serve_pn532(chip, sock, *args, **kwargs):
        pn = Pn532(chip, card_type=card_type, uid=uid, on_card_gone=on_card_gone)
        server = PtyServer(pn, ready_file=ready_file)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        server.run()

    class NoVpcdMessage(logging.Filter):
        def filter(self, record):
            return not str(record.msg).startswith("connected to vpcd")

    logging.getLogger("vpassport").addFilter(NoVpcdMessage())
    vicc.connect, vicc.serve = no_vpcd, serve_pn532
    return vp_main.main(["serve"] + rest)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    commands = {"start": cmd_start, "stop": cmd_stop, "eject": cmd_eject,
                "status": cmd_status, "serve": cmd_serve}
    if not argv or argv[0] not in commands:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
