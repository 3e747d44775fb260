"""scripts/bench-desk: figures of the desk in Chromium (see the shell script's header)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "Tests/DeskBrowser"))
release = ROOT / ".build/release/passport"
os.environ.setdefault("PASSPORT_BIN", str(release if release.exists() else ROOT / ".build/debug/passport"))

import conftest  # noqa: E402  (the browser tests' harness: the desk, the browser, the virtual passport)
from conftest import FIXTURES, KEY, Desk, eject, make_browser, present, session_cookie, wait  # noqa: E402


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def js_heap(driver):
    driver.execute_cdp_cmd("Performance.enable", {})
    driver.execute_cdp_cmd("HeapProfiler.collectGarbage", {})
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "JSHeapUsedSize")


def page_weight(desk, driver):
    """The bytes of the page and of every part it loaded from the desk (not the API's answers, not
    the face), fetched again by path; and whatever it loaded from elsewhere (must be nothing)."""
    cookie = session_cookie(driver)
    entries = driver.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    external = [url for url in entries if not url.startswith(desk.origin)]
    paths = ["/"] + sorted({url[len(desk.origin):].split("?")[0] for url in entries
                            if url.startswith(desk.origin) and url[len(desk.origin):].startswith("/assets/")})
    sizes = {path: len(desk.request(path, cookie=cookie)[2]) for path in paths}
    return sizes, external


def placed_to_face(desk, driver, runs):
    """Seconds from the read's start (the desk saw the card, a key waiting) to the face's load
    event in the page; both clocks are this machine's."""
    times = []
    headers = {"Origin": desk.origin, "Content-Type": "application/json"}
    cookie = session_cookie(driver)
    for _ in range(runs):
        eject()
        desk.request("/api/clear", method="POST", body=b"{}", cookie=cookie, headers=headers)
        wait(driver, lambda d: not d.find_element(By.ID, "result-body").is_displayed(), "the result was not cleared")
        driver.execute_script("window.faceAt = null; document.getElementById('face').addEventListener('load', () => { window.faceAt = Date.now(); }, {once: true});")
        desk.request("/api/key", method="POST", body=json.dumps(KEY).encode(), cookie=cookie, headers=headers)
        present(FIXTURES / "passport-pace", "--pace")
        shown = wait(driver, lambda d: d.execute_script("return window.faceAt"), "the face was not shown")
        started = json.loads(desk.request("/api/state", cookie=cookie)[2])["reading"]["started_at_ms"]
        times.append((shown - started) / 1000)
    return times


def cli_scan_times(runs):
    times = []
    for _ in range(runs):
        out = Path(f"/tmp/bench-desk-scan-{os.getpid()}")
        subprocess.run(["rm", "-rf", str(out)])
        started = time.time()
        r = subprocess.run([os.environ["PASSPORT_BIN"], "scan", "--document-number", KEY["document_number"], "--birth", KEY["birth"],
                            "--expiry", KEY["expiry"], "--csca", str(conftest.CSCA), "--out", str(out)], capture_output=True)
        times.append(time.time() - started)
        assert r.returncode == 0, r.stderr
        subprocess.run(["rm", "-rf", str(out)])
    return times


def soak(desk, driver, documents):
    headers = {"Origin": desk.origin, "Content-Type": "application/json"}
    cookie = session_cookie(driver)
    desk.request("/api/keep-reading", method="POST", body=b'{"on": true}', cookie=cookie, headers=headers)
    marks = {}

    def newest():
        results = json.loads(desk.request("/api/state", cookie=cookie)[2])["results"]
        return results[0]["id"] if results else 0

    started = time.time()
    for number in range(1, documents + 1):
        # Each document is waited for as a new result (ids go on across the earlier measurements).
        before = newest()
        eject()
        desk.request("/api/key", method="POST", body=json.dumps(KEY).encode(), cookie=cookie, headers=headers)
        try:
            present(FIXTURES / "passport-pace", "--pace")
        except AssertionError as error:
            raise AssertionError(f"soak document {number}: {error}") from None
        if number % 50 == 0:
            print(f"soak: {number} documents read", file=sys.stderr)
        wait(driver, lambda d: newest() > before and d.execute_script(
            "return document.querySelectorAll('#history li.ok').length > 0 && document.getElementById('face').complete"),
            f"document {number} was not read")
        if number in (10, documents):
            marks[number] = (rss_kib(desk.process.pid), js_heap(driver))
    return marks, time.time() - started


from selenium.webdriver.common.by import By  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    print(f"passport: {os.environ['PASSPORT_BIN']}")
    desk = Desk()
    driver = make_browser()
    try:
        driver.get(desk.address)
        wait(driver, lambda d: d.find_element(By.ID, "reader-list").text, "the page did not load")
        sizes, external = page_weight(desk, driver)
        print(f"page weight without the face: {sum(sizes.values()) / 1024:.1f} KiB "
              f"({', '.join(f'{p} {s / 1024:.1f}' for p, s in sizes.items())}); external requests: {len(external)} {external}")
        desk_times = placed_to_face(desk, driver, args.runs)
        cli_times = cli_scan_times(args.runs)
        d, c = statistics.median(desk_times), statistics.median(cli_times)
        print(f"card seen → face on screen: median {d * 1000:.0f} ms (min {min(desk_times) * 1000:.0f}, max {max(desk_times) * 1000:.0f}), "
              f"{args.runs} runs; passport scan of the same card (whole process, --csca): median {c * 1000:.0f} ms; "
              f"desk minus CLI: {(d - c) * 1000:+.0f} ms")
        marks, seconds = soak(desk, driver, args.documents)
        (rss0, heap0), (rss1, heap1) = marks[10], marks[args.documents]
        print(f"soak: {args.documents} documents in keep-reading mode in {seconds:.0f} s; server RSS after 10: {rss0 / 1024:.1f} MiB, "
              f"after {args.documents}: {rss1 / 1024:.1f} MiB (growth {(rss1 - rss0) / 1024:+.2f} MiB); "
              f"page JS heap after GC: {heap0 / 1e6:.2f} MB → {heap1 / 1e6:.2f} MB ({(heap1 / heap0 - 1) * 100:+.1f}%)")
    finally:
        driver.quit()
        desk.stop()
        eject()


if __name__ == "__main__":
    main()
