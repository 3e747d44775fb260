"""Recorded dumps dropped on the page, and the security of a loopback server that holds passport
data (issue 50, browser tests 4 and 5)."""
import io
import json
import os
import shutil
import struct
import zipfile
import zlib

from selenium.webdriver.common.by import By

from conftest import CSCA, FIXTURES, PASSPORT, KEY, check_schema, present, run, screenshot, session_cookie, wait


def choose_files(driver, paths):
    driver.find_element(By.ID, "dump-files").send_keys("\n".join(str(p) for p in paths))


def shown_verdicts(driver, label):
    wait(driver, lambda d: label in d.find_element(By.ID, "result-verdict").text, f"no result for {label}")
    return {item.get_attribute("data-check"): item.get_attribute("data-status")
            for item in driver.find_elements(By.CSS_SELECTOR, "#verdicts li.verdict")}


def cli_verify(dump):
    r = run([PASSPORT, "verify", dump, "--csca", CSCA, "--json"])
    return json.loads(r.stdout)


def expect_same_as_verify(verdicts, report):
    passive = report["passive_authentication"]
    assert verdicts["passive_authentication"] == ("passed" if passive["passed"] else "failed")
    assert verdicts["sod_signature"] == {"passed": "passed", "failed": "failed", "not_checked": "neutral"}[passive["signature"]]
    assert verdicts["chain"] in ({"passed": "passed", "failed": "failed", "not_checked": "neutral"}[passive["chain"]], "failed")
    bad = [g for g in passive["data_groups"] if g["status"] in ("mismatch", "missing", "not_listed")]
    assert verdicts["hashes"] == ("failed" if bad else "passed")


def test_a_dump_folder_and_a_zip_give_the_verdicts_of_passport_verify(desk, browser, tmp_path):
    browser.get(desk.address)
    files = sorted((FIXTURES / "passport").glob("*.bin"))
    choose_files(browser, files)
    verdicts = shown_verdicts(browser, "the chosen files")
    expect_same_as_verify(verdicts, cli_verify(FIXTURES / "passport"))
    assert "failed" not in verdicts.values()
    assert browser.execute_script("const f = document.getElementById('face'); return f.complete && f.naturalWidth > 0")
    status, _, body = desk.request(browser.find_element(By.ID, "download-report").get_attribute("href").removeprefix(desk.origin),
                                   cookie=session_cookie(browser))
    report = json.loads(body)
    check_schema(report, "desk-result")
    assert report["verify"]["passive_authentication"] == cli_verify(FIXTURES / "passport")["passive_authentication"]
    screenshot(browser, "08-dump-verified")

    tampered = tmp_path / "tampered"
    shutil.copytree(FIXTURES / "passport", tampered)
    dg1 = bytearray((tampered / "DG1.bin").read_bytes())
    dg1[10] ^= 0x01
    (tampered / "DG1.bin").write_bytes(bytes(dg1))
    archive = tmp_path / "tampered.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
        for file in sorted(tampered.iterdir()):
            z.write(file, f"tampered/{file.name}")
    choose_files(browser, [archive])
    verdicts = shown_verdicts(browser, "tampered.zip")
    expect_same_as_verify(verdicts, cli_verify(tampered))
    assert verdicts["hashes"] == "failed"
    hashes = browser.find_element(By.CSS_SELECTOR, "#verdicts li[data-check='hashes']").text
    assert "DG1 MISMATCH" in hashes
    screenshot(browser, "09-dump-tampered")


def test_files_dropped_on_the_page_are_verified(desk, browser):
    """A drop event carrying the dump's files, as the browser delivers one (Selenium cannot drag
    files from the desktop, so the page gets a DataTransfer built from the fixture's bytes)."""
    import base64
    browser.get(desk.address)
    files = {path.name: base64.b64encode(path.read_bytes()).decode() for path in sorted((FIXTURES / "passport").glob("*.bin"))}
    browser.execute_script("""
        const transfer = new DataTransfer();
        for (const [name, data] of Object.entries(arguments[0])) {
          const bytes = Uint8Array.from(atob(data), c => c.charCodeAt(0));
          transfer.items.add(new File([bytes], name));
        }
        const zone = document.getElementById('drop-zone');
        zone.dispatchEvent(new DragEvent('dragover', {dataTransfer: transfer, bubbles: true, cancelable: true}));
        zone.dispatchEvent(new DragEvent('drop', {dataTransfer: transfer, bubbles: true, cancelable: true}));""", files)
    verdicts = shown_verdicts(browser, "recorded dump")
    expect_same_as_verify(verdicts, cli_verify(FIXTURES / "passport"))
    assert "failed" not in verdicts.values()


def test_an_nfcpassportreader_export_is_verified(desk, browser, tmp_path):
    export = tmp_path / "export.json"
    mapping = {"COM": "COM.bin", "DG1": "DG1.bin", "DG2": "DG2.bin", "DG11": "DG11.bin", "DG12": "DG12.bin",
               "DG14": "DG14.bin", "DG15": "DG15.bin", "SOD": "SOD.bin"}
    import base64
    export.write_text(json.dumps({key: base64.b64encode((FIXTURES / "passport" / name).read_bytes()).decode()
                                  for key, name in mapping.items()}))
    assert run([PASSPORT, "verify", export, "--csca", CSCA]).returncode == 0, "the command line verifies the export"
    browser.get(desk.address)
    choose_files(browser, [export])
    verdicts = shown_verdicts(browser, "export.json")
    assert "failed" not in verdicts.values(), verdicts


# --- security ---------------------------------------------------------------------------------

def zip_with(entries):
    """A zip whose entries are (name, bytes, external attributes, deflate)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, data, attributes, deflate in entries:
            info = zipfile.ZipInfo(name)
            info.compress_type = zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED
            info.create_system = 3
            info.external_attr = attributes
            z.writestr(info, data)
    return buffer.getvalue()


def test_security_of_the_loopback_server(desk, browser, tmp_path):
    browser.get(desk.address)
    wait(browser, lambda d: d.find_element(By.ID, "reader-list").text, "the page did not load")
    cookie = session_cookie(browser)
    same = {"Origin": desk.origin, "Content-Type": "application/json"}

    # No token, no cookie: 403 for the page, its parts and the API.
    for path in ["/", "/assets/desk.js", "/api/state", "/api/events", "/api/results/1/face.png"]:
        status, _, _ = desk.request(path)
        assert status == 403, f"{path} without the session: {status}"
    # The token works once: a second use (another browser, another user) is refused.
    status, _, body = desk.request("/" + desk.address.split("/", 3)[3])
    assert status == 403 and b"opened once already" in body
    status, _, body = desk.request("/api/state")
    assert status == 403 and json.loads(body)["error"]["code"] == "no_session"
    # A wrong token.
    status, _, _ = desk.request("/?token=" + "0" * 64)
    assert status == 403
    # With the cookie, the state is there.
    status, headers, _ = desk.request("/api/state", cookie=cookie)
    assert status == 200
    # DNS rebinding: another Host, even with the cookie.
    status, _, _ = desk.request("/api/state", cookie=cookie, headers={"Host": f"attacker.example:{desk.port}"})
    assert status == 403
    # Cross-origin requests that change something, or that listen to the events.
    status, _, body = desk.request("/api/clear", method="POST", body=b"{}", cookie=cookie,
                                   headers={"Origin": "http://attacker.example", "Content-Type": "application/json"})
    assert status == 403 and b"origin" in body
    status, _, _ = desk.request("/api/clear", method="POST", body=b"{}", cookie=cookie, headers={"Content-Type": "application/json"})
    assert status == 403, "a POST without Origin"
    status, _, _ = desk.request("/api/events", cookie=cookie, headers={"Origin": "http://attacker.example"})
    assert status == 403
    status, _, _ = desk.request("/api/state", cookie=cookie, headers={"Sec-Fetch-Site": "cross-site"})
    assert status == 403
    # The page's headers: strict CSP, no caching, no framing, no referrer.
    status, headers, _ = desk.request("/", cookie=cookie)
    assert status == 200
    csp = headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "unsafe-inline" not in csp
    assert headers["Cache-Control"] == "no-store" and headers["Referrer-Policy"] == "no-referrer"
    # The cookie as set: HttpOnly, SameSite=Strict.
    set_cookie = browser.get_cookie("passport_desk")
    assert set_cookie["httpOnly"] and set_cookie["sameSite"] == "Strict"

    def upload(data, type="application/zip"):
        return desk.request("/api/dump?name=x", method="POST", body=data, cookie=cookie,
                            headers={"Origin": desk.origin, "Content-Type": type})

    sod = (FIXTURES / "passport/SOD.bin").read_bytes()
    # ../ in a zip entry's name: refused, nothing read.
    status, _, body = upload(zip_with([("../../etc/SOD.bin", sod, 0o100644 << 16, False)]))
    assert status == 422 and b"outside the dump folder" in body
    status, _, body = upload(zip_with([("/abs/SOD.bin", sod, 0o100644 << 16, False)]))
    assert status == 422 and b"outside the dump folder" in body
    # A link in the archive.
    status, _, body = upload(zip_with([("dump/SOD.bin", b"/etc/passwd", 0o120777 << 16, False)]))
    assert status == 422 and b"link or a special file" in body
    # A zip bomb: 200 MB of zeros declared as DG1 (64 KiB bound) and, lying, as 100 bytes.
    bomb = zip_with([("dump/DG2.bin", bytes(200 << 20), 0o100644 << 16, True)])
    assert len(bomb) < 1 << 20
    status, _, body = upload(bomb)
    assert status == 422 and b"larger than such a file may be" in body
    lying = bytearray(bomb)
    central = lying.rfind(b"PK\x01\x02")
    struct.pack_into("<I", lying, central + 24, 100)
    status, _, body = upload(bytes(lying))
    assert status == 422 and b"larger than such a file may be" in body
    # Too large a request: refused before it is read.
    status, _, body = upload(b"\0" * (40 << 20))
    assert status == 413
    # Malformed uploads: 4xx with a message, and nothing changed.
    status, _, body = upload(b"not a zip")
    assert status == 422 and b"not a zip archive" in body
    status, _, body = upload(b"{", type="application/json")
    assert status == 422
    status, _, body = desk.request("/api/key", method="POST", body=b"{\"document_number\": 5}", cookie=cookie, headers=same)
    assert status == 400
    status, _, body = desk.request("/api/state", cookie=cookie)
    assert json.loads(body)["results"] == [] and json.loads(body)["key"] is None

    # Nothing written under the desk's HOME (no log, no cache of personal data) without Save dump.
    present(FIXTURES / "passport-pace", "--pace")
    desk.request("/api/key", method="POST", body=json.dumps(KEY).encode(), cookie=cookie, headers=same)
    wait(browser, lambda d: d.find_element(By.ID, "face").get_attribute("src"), "the document was not read")
    written = [str(p) for p in desk.home.rglob("*")]
    assert written == [], f"the desk wrote under HOME: {written}"
    assert list(desk.saves.iterdir()) == []
    screenshot(browser, "10-security-read")
