"""The holder's desk (`passport desk --holder`, issue 49 item 3): a verified document's claims shown
as a QR code that independent readers (zbarimg, through Chromium's rendering) read back and
`passport verify-vp` accepts; a verifier's QR code (polaris-oid4vp, an OpenID4VP verifier nobody
here wrote) read with the webcam or from a photo, put to the person, and answered."""
import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from conftest import FIXTURES, PASSPORT, ROOT, Desk, make_browser, present, run, screenshot, wait
from test_accessibility import serious_violations
from test_reading import shown_face, type_key, y4m_of

POLARIS = ROOT / ".build-interop/venv/bin/polaris-oid4vp"
VCT = "urn:passport-toolkit:vct:passport-derived:1"


def read_document(browser, desk):
    """The fixture passport read at the desk with the typed key, until its claims are offered."""
    present(FIXTURES / "passport-pace", "--pace")
    browser.get(desk.address)
    wait(browser, lambda d: "card present" in d.find_element(By.ID, "reader-list").text, "the reader's card was not shown")
    type_key(browser)
    shown_face(browser)
    wait(browser, lambda d: d.find_element(By.ID, "holder-ways").is_displayed(), "the holder's claims were not offered")


def qr_on_screen(browser, path):
    """The QR code as the screen shows it (Chromium drew the desk's SVG), in view as a whole."""
    image = browser.find_element(By.ID, "holder-qr-image")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", image)
    path.write_bytes(image.screenshot_as_png)
    return path


def zbar(image_path):
    r = subprocess.run(["zbarimg", "--raw", "-q", str(image_path)], capture_output=True, text=True)
    assert r.returncode == 0, f"zbarimg read no code: {r.stderr}"
    return r.stdout.rstrip("\n")


def settled_status(browser):
    """The holder's status line once a photo was read (not while it is being read)."""
    text = browser.find_element(By.ID, "holder-status").text
    return text if text and not text.startswith("Reading") else None


def keystore_env(home):
    """The environment of a desk with HOME `home`: `passport keys` then sees its key store."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")}
    env.update(HOME=str(home), PASSPORT_KEYRING="off")
    return env


def test_a_presentation_shown_as_a_qr_code_is_read_back_and_verified(tmp_path):
    desk = Desk("--holder")
    browser = make_browser()
    try:
        read_document(browser, desk)
        claims = browser.find_element(By.ID, "holder-claims-list").text
        assert "age_over_18: true" in claims and "is_human: true" in claims and "nationality: UTO" in claims, claims
        # Nationality is offered but not ticked: it is disclosed only when the person ticks it.
        assert not browser.find_element(By.ID, "holder-claim-nationality").is_selected()
        browser.find_element(By.ID, "holder-audience").send_keys("https://shop.example")
        browser.find_element(By.ID, "holder-nonce").send_keys("n-7f3a")
        browser.find_element(By.ID, "holder-make-qr").click()
        wait(browser, lambda d: d.execute_script(
            "const i = document.getElementById('holder-qr-image');"
            "return !document.getElementById('holder-qr').hidden && i.complete && i.naturalWidth > 0;"), "no QR code was shown")
        assert serious_violations(browser) == []
        # What the screen shows, as pixels: zbarimg reads it.
        shot = tmp_path / "qr-on-screen.png"
        token = zbar(qr_on_screen(browser, shot))
        screenshot(browser, "16-holder-qr-code")
        caption = browser.find_element(By.ID, "holder-qr-caption").text
        assert f"{len(token)} bytes" in caption, caption

        verified = run([PASSPORT, "verify-vp", token, "--aud", "https://shop.example", "--nonce", "n-7f3a",
                        "--require-level", "L1", "--json"])
        assert verified.returncode == 0, verified.stderr
        report = json.loads(verified.stdout)
        assert report["claims"]["age_over_18"] is True and report["claims"]["is_human"] is True
        assert "nationality" not in report["claims"], "an unticked claim was disclosed"
        assert report["issuer"] in caption, "the presentation is not under the DID the page names"
        # Another verifier's nonce or origin is refused: the code is bound to this verifier.
        assert run([PASSPORT, "verify-vp", token, "--aud", "https://shop.example", "--nonce", "n-other",
                    "--require-level", "L1"]).returncode == 1
        assert run([PASSPORT, "verify-vp", token, "--aud", "https://elsewhere.example", "--nonce", "n-7f3a",
                    "--require-level", "L1"]).returncode == 1

        # Ticked, the nationality is disclosed; another verifier gets another (pairwise) DID.
        browser.find_element(By.ID, "holder-claim-nationality").click()
        audience = browser.find_element(By.ID, "holder-audience")
        audience.clear()
        audience.send_keys("https://bank.example")
        browser.find_element(By.ID, "holder-make-qr").click()
        wait(browser, lambda d: "https://bank.example" in d.find_element(By.ID, "holder-qr-caption").text
             and d.execute_script("const i = document.getElementById('holder-qr-image'); return i.complete && i.naturalWidth > 0;"),
             "no second QR code was shown")
        second = json.loads(run([PASSPORT, "verify-vp", zbar(qr_on_screen(browser, shot)), "--aud", "https://bank.example", "--nonce", "n-7f3a",
                                 "--require-level", "L1", "--json"]).stdout)
        assert second["claims"]["nationality"] == "UTO"
        assert second["issuer"] != report["issuer"], "two verifiers saw the same DID"

        # Bad input: an empty nonce, a claim the document does not give, nothing ticked.
        nonce = browser.find_element(By.ID, "holder-nonce")
        nonce.clear()
        browser.find_element(By.ID, "holder-make-qr").click()
        wait(browser, lambda d: "nonce is empty" in d.find_element(By.ID, "holder-status").text, "an empty nonce was not refused")
    finally:
        browser.quit()
        desk.stop()


def test_an_inspection_desk_makes_no_presentation(desk, browser):
    """Without --holder the page offers nothing and the routes refuse: an operator's desk never
    signs with the key store of the machine it runs on."""
    present(FIXTURES / "passport-pace", "--pace")
    browser.get(desk.address)
    type_key(browser)
    shown_face(browser)
    assert not browser.find_element(By.ID, "holder").is_displayed()
    cookie = f"passport_desk={browser.get_cookie('passport_desk')['value']}"
    result = browser.find_element(By.ID, "download-report").get_attribute("href").split("/")[-2]
    status, _, body = desk.request(f"/api/results/{result}/presentation", method="POST", cookie=cookie,
                                   body=b'{"audience":"https://a.example","nonce":"n","disclose":["age_over_18"]}',
                                   headers={"Origin": desk.origin, "Content-Type": "application/json"})
    assert status == 404 and json.loads(body)["error"]["code"] == "holder_disabled", body
    assert not [p for p in desk.home.rglob("*") if p.is_file()], "the desk wrote under its HOME (a key?)"


class Polaris:
    """polaris-oid4vp: keygen once, then `serve --once` for one request asking age_over_18."""

    def __init__(self, home, folder):
        self.folder = folder
        self.pki = folder / "pki"
        r = run([POLARIS, "keygen", "--out", self.pki, "--host", "localhost"])
        assert r.returncode == 0, r.stderr
        self.client_id = next(line for line in r.stdout.splitlines() if "client_id" in line).split()[-1]
        # polaris trusts the holder's self-issued credential by its key: this verifier's pairwise key.
        keys = run([PASSPORT, "keys", "show", "--aud", self.client_id, "--jwk"], env=keystore_env(home))
        assert keys.returncode == 0, keys.stderr
        (folder / "issuer-jwks.json").write_text(keys.stdout)
        self.processes = []

    def serve(self, claim="age_over_18=true"):
        port = 20000 + int.from_bytes(os.urandom(2), "big") % 20000
        log = tempfile.NamedTemporaryFile(prefix="polaris-", suffix=".log", dir=self.folder, delete=False)
        process = subprocess.Popen([str(POLARIS), "serve", "--bind", "127.0.0.1", "--host", "localhost", "--port", str(port),
                                    "--once", "--verbose", "--pki", str(self.pki), "--issuer-jwks", str(self.folder / "issuer-jwks.json"),
                                    "--claim", claim, "--vct", VCT],
                                   stdout=subprocess.PIPE, stderr=log, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.processes.append(process)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line:
                break
            link = next((word for word in line.split() if word.startswith("openid4vp://")), None)
            if link:
                return link, Path(log.name)
        process.kill()
        raise AssertionError(f"polaris-oid4vp gave no link: {Path(log.name).read_text()}")

    def stop(self):
        for process in self.processes:
            process.kill()

    def ca_flags(self):
        return ["--verifier-ca", self.pki / "tls.pem", "--verifier-ca", self.pki / "anchor.pem"]


def qr_image(text, path):
    r = run(["qrencode", "-l", "M", "-s", "8", "-o", path, text])
    assert r.returncode == 0, r.stderr


needs_polaris = pytest.mark.skipif(not POLARIS.exists() and os.environ.get("PASSPORT_REQUIRE_E2E") != "1",
                                   reason="polaris-oid4vp is not installed (scripts/setup)")


@pytest.fixture
def verifier(tmp_path):
    """A holder's desk trusting polaris-oid4vp's CAs, and polaris serving one request for
    age_over_18: (desk, polaris, its link, its log)."""
    home = Path(tempfile.mkdtemp(prefix="desk-home-"))
    polaris = Polaris(home, tmp_path)
    desk = Desk("--holder", *polaris.ca_flags(), home=home)
    link, log = polaris.serve()
    yield desk, polaris, link, log
    polaris.stop()
    desk.stop()


@needs_polaris
def test_a_verifiers_qr_code_read_by_the_webcam_is_answered_after_consent(tmp_path, verifier):
    desk, polaris, link, log = verifier
    qr_image(link, tmp_path / "request.png")
    # The verifier's screen as the webcam sees it: its QR code on a white page.
    video = tmp_path / "request.y4m"
    y4m_of(tmp_path / "request.png", video, frame="scale=560:560:flags=neighbor,pad=1280:720:360:80:white")
    browser = make_browser(["--use-fake-device-for-media-stream", f"--use-file-for-fake-video-capture={video}"])
    try:
        read_document(browser, desk)
        browser.find_element(By.ID, "holder-scan-start").click()
        wait(browser, lambda d: d.find_element(By.ID, "holder-consent").is_displayed(), "the verifier's request was not put to the person",
             seconds=180)
        consent = browser.find_element(By.ID, "holder-consent-lines").text
        assert polaris.client_id in consent and "asks for: age_over_18" in consent, consent
        assert "The answer goes to host localhost" in consent and "level L1" in consent, consent
        assert "POST /response" not in log.read_text(), "something was sent before the person agreed"
        screenshot(browser, "17-holder-verifier-request")
        browser.find_element(By.ID, "holder-send").click()
        status = wait(browser, lambda d: d.find_element(By.ID, "holder-status").text
                      if d.find_element(By.ID, "holder-status").text.startswith(("Sent", "Not sent")) else None, "no answer was sent")
        assert status.startswith("Sent age_over_18") and "HTTP 200" in status, f"{status}\npolaris: {log.read_text()}"
        # The desk said "accepted" because polaris answered 200 to the response it checked.
        assert "POST /response" in log.read_text() and "refused" not in log.read_text(), log.read_text()
    finally:
        browser.quit()


@needs_polaris
def test_a_photo_of_a_verifiers_qr_code_can_be_declined_and_other_codes_are_refused(tmp_path, verifier):
    desk, polaris, link, log = verifier
    browser = make_browser()
    try:
        read_document(browser, desk)
        photo = browser.find_element(By.ID, "holder-request-photo")
        # QR codes that are not a verifier's request: refused, their text escaped, nothing fetched.
        for name, text, said in [("escapes", "hello\x1b[31m", "control characters"),
                                 ("web-link", "https://example.com/offer", "openid4vp://")]:
            qr_image(text, tmp_path / f"{name}.png")
            browser.execute_script("document.getElementById('holder-status').textContent = ''")
            photo.send_keys(str(tmp_path / f"{name}.png"))
            status = wait(browser, settled_status, f"the {name} code was not refused")
            assert said in status and "\x1b" not in status, status
            assert not browser.find_element(By.ID, "holder-consent").is_displayed()

        qr_image(link, tmp_path / "request.png")
        photo.send_keys(str(tmp_path / "request.png"))
        wait(browser, lambda d: d.find_element(By.ID, "holder-consent").is_displayed(), "the request in the photo was not put to the person")
        assert serious_violations(browser) == []
        browser.find_element(By.ID, "holder-decline").click()
        wait(browser, lambda d: d.find_element(By.ID, "holder-status").text.startswith("Declined"), "declining was not said")
        # The desk sends only from request-send, which was not called: nothing reached polaris.
        assert "POST /response" not in log.read_text(), "a declined request was answered"
        cookie = f"passport_desk={browser.get_cookie('passport_desk')['value']}"
        result = browser.find_element(By.ID, "download-report").get_attribute("href").split("/")[-2]
        status_code, _, body = desk.request(f"/api/results/{result}/request-send", method="POST", cookie=cookie, body=b"{}",
                                            headers={"Origin": desk.origin, "Content-Type": "application/json"})
        assert status_code == 422 and json.loads(body)["error"]["code"] == "no_pending_request", body

        # A verifier asking for the nationality, which is not ticked: refused, nothing put to the
        # person; once ticked, the request names it.
        polaris.stop()
        link, log = polaris.serve(claim="nationality")
        qr_image(link, tmp_path / "nationality.png")
        browser.execute_script("document.getElementById('holder-status').textContent = ''")
        photo.send_keys(str(tmp_path / "nationality.png"))
        status = wait(browser, settled_status, "a request beyond the ticked claims was not refused")
        assert "asks for nationality, more than you agreed to disclose" in status, status
        assert not browser.find_element(By.ID, "holder-consent").is_displayed()
        browser.find_element(By.ID, "holder-claim-nationality").click()
        photo.send_keys(str(tmp_path / "nationality.png"))
        wait(browser, lambda d: d.find_element(By.ID, "holder-consent").is_displayed(), "the ticked claim's request was not put to the person")
        assert "asks for: nationality" in browser.find_element(By.ID, "holder-consent-lines").text
    finally:
        browser.quit()
