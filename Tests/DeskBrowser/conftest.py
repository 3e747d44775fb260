"""The desk driven in a real browser: Debian's Chromium (headless) through WebDriver (Selenium),
against `passport desk` and the virtual passport behind pcscd. scripts/test runs this suite after
the Swift tests; it needs the built `passport` (.build/debug, or PASSPORT_BIN)."""
import base64
import json
import os
import signal
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
PASSPORT = Path(os.environ.get("PASSPORT_BIN", ROOT / ".build/debug/passport"))
VIRTUAL_PASSPORT = ROOT / "scripts/virtual-passport"
FIXTURES = ROOT / "Fixtures"
CSCA = FIXTURES / "pki/TEST-ONLY-csca-UTO.pem"
SCREENSHOTS = ROOT / ".build-desk/screenshots"
# Waits for the page: generous, because a loaded machine may be slow; a pass never depends on them.
WAIT = float(os.environ.get("DESK_TEST_WAIT", "60"))
KEY = {"document_number": "C01X00T47", "birth": "880412", "expiry": "340930"}


def run(args, **kwargs):
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=300, **kwargs)


def check_schema(document, name):
    """The document against docs/schemas/NAME.schema.json, by an independent validator."""
    r = subprocess.run([str(ROOT / "scripts/check-json-schema"), name], input=json.dumps(document), capture_output=True, text=True)
    assert r.returncode == 0, f"not the shape of docs/schemas/{name}.schema.json: {r.stderr}"


def present(dump, *options, slot=0):
    """Places a document on the virtual reader (pcscd is started when needed)."""
    r = run([VIRTUAL_PASSPORT, "start", dump, "--slot", slot, *options])
    assert r.returncode == 0, f"virtual-passport start failed: {r.stderr}"


def eject(slot=0):
    run([VIRTUAL_PASSPORT, "eject", "--slot", slot])


class Desk:
    """`passport desk --no-browser --json` in the background, with a HOME of its own."""

    def __init__(self, *extra, home=None):
        self.home = Path(home or tempfile.mkdtemp(prefix="desk-home-"))
        self.saves = Path(tempfile.mkdtemp(prefix="desk-saves-"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
        env.update(HOME=str(self.home), PASSPORT_KEYRING="off")
        self.stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen(
            [str(PASSPORT), "desk", "--no-browser", "--json", "--csca", str(CSCA), "--save-to", str(self.saves), *extra],
            stdout=subprocess.PIPE, stderr=self.stderr, env=env, text=True)
        line = ""
        while not line.rstrip().endswith("}"):
            chunk = self.process.stdout.readline()
            if not chunk:
                self.stderr.seek(0)
                raise AssertionError(f"passport desk did not start: {self.stderr.read().decode()}")
            line += chunk
        started = json.loads(line)
        check_schema(started, "desk")
        self.address = started["address"]
        self.port = started["port"]
        self.origin = f"http://127.0.0.1:{self.port}"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()

    def request(self, path, method="GET", body=None, headers=None, cookie=None):
        """One HTTP request, as any local program could send it: (status, headers, body)."""
        headers = dict(headers or {})
        headers.setdefault("Host", f"127.0.0.1:{self.port}")
        if cookie:
            headers["Cookie"] = cookie
        req = urllib.request.Request(self.origin + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=60) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()


@pytest.fixture
def desk():
    started = Desk()
    yield started
    started.stop()


def make_browser(extra_arguments=()):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                     "--use-fake-ui-for-media-stream", *extra_arguments]:
        options.add_argument(argument)
    options.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='desk-chromium-')}")
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


@pytest.fixture
def browser():
    driver = make_browser()
    yield driver
    driver.quit()


def wait(driver, condition, message, seconds=WAIT):
    return WebDriverWait(driver, seconds, poll_frequency=0.1).until(condition, message)


def screenshot(driver, name):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))


def fetch_bytes(driver, url):
    """The bytes the page itself gets for `url` (its cookie, its origin)."""
    script = """
      const done = arguments[arguments.length - 1];
      fetch(arguments[0], {credentials: 'same-origin'}).then(r => r.arrayBuffer()).then(b => {
        let s = ''; const a = new Uint8Array(b);
        for (let i = 0; i < a.length; i += 0x8000) s += String.fromCharCode(...a.subarray(i, i + 0x8000));
        done(btoa(s));
      }).catch(e => done('ERROR ' + e));"""
    value = driver.execute_async_script(script, url)
    assert not value.startswith("ERROR"), value
    return base64.b64decode(value)


def session_cookie(driver):
    cookie = driver.get_cookie("passport_desk")
    assert cookie, "the desk set no session cookie"
    return f"passport_desk={cookie['value']}"


def cli_scan(dump_dir, *extra):
    """The command line's scan of the document on the reader (the desk must show the same)."""
    r = run([PASSPORT, "scan", "--document-number", KEY["document_number"], "--birth", KEY["birth"],
             "--expiry", KEY["expiry"], "--out", dump_dir, *extra])
    assert r.returncode in (0, 1), r.stderr
    return r
