"""Runs cases: starts the virtual passport with the case's chip, scans it with the real `passport`
executable through pcscd, and judges what the scan reported against what the plan expects."""
from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import re
import shutil
import subprocess
import tempfile

from . import plan
from .dataset import CSCA, ROOT

LAUNCHER = os.path.join(ROOT, "scripts", "virtual-passport")
DEFAULT_PASSPORT = os.path.join(ROOT, ".build", "debug", "passport")

# Scan errors (docs/errors.md) and the step of the plan each one reports.
ERROR_STEPS = {"access_denied": "access", "card_access": "pace", "chip_error": "sm",
               "not_a_passport": "application", "dump_error": "format"}


@dataclasses.dataclass
class Result:
    case: plan.Case
    outcome: str            # pass, fail, not applicable, not built
    ours: str = ""          # what the scan reported, in a few words
    detail: str = ""        # why it failed (for the log)
    wrong_pass: bool = False


def observe(status, report):
    """What the scan reported: ("successful" or "failed", the steps that failed, a summary)."""
    steps = []
    if report is None:
        return "failed", ["crash"], "no JSON report (exit %d)" % status
    if "error" in report and "dump" not in report:
        code = (report.get("error") or {}).get("code", "?")
        steps.append(ERROR_STEPS.get(code, code))
        message = (report.get("error") or {}).get("message", "")
        if "not an ICAO passport" in message:
            steps = ["application"]
        if "malformed" in message:
            steps.append("format")
        if "Secure messaging" in message or "secure session" in message:
            steps.append("sm")
        if re.search(r"sent \d+ bytes of \S+ where \d+ were expected|offset beyond the file", message):
            steps.append("format")          # a file's TLV length and its size disagree
            # The scan stopped on that file: the check the file serves has failed with it
            # (DG14: chip authentication cannot run; EF.SOD: nothing can be verified).
            if re.search(r"\b(of|reading) DG14\b", message):
                steps.append("ca")
            if re.search(r"\b(of|reading) SOD\b", message):
                steps.append("pa")
        if "did not provide" in message:
            steps.append("format")          # a file the LDS requires (EF.COM/EF.SOD list it) is missing
        if "authentication answer is invalid" in message:
            steps.append("access")          # BAC/PACE: the chip's answer failed its check
        if "PACE" in message:
            steps.append("pace")
        # What the TLV parser says of a malformed answer depends on the bytes a fault leaves, which
        # may be random (PACE-CAM's encrypted data without its tag): the table keeps it out.
        shown = re.sub(r"Malformed TLV data: [^)]*", "Malformed TLV data", message)
        return "failed", steps, "exit %d, %s: %s" % (status, code, shown[:160])
    pa = report.get("passive_authentication") or {}
    if pa.get("passed") is not True:
        steps.append("pa")
    if (report.get("chip_authentication") or {}).get("status") == "failed":
        steps.append("ca")
    if (report.get("active_authentication") or {}).get("status") == "failed":
        steps.append("aa")
    ta = report.get("terminal_authentication")
    if ta is not None and ta.get("status") != "passed":
        steps.append("ta")
    if report.get("pace_fallback"):
        steps.append("pace")
    if report.get("data_group_list"):
        # EF.COM missing or not an EF.COM: reported, and the data groups read through EF.SOD.
        steps.append("format")
    if report.get("problems"):
        steps.append("format")
    verdict = "successful" if status == 0 and not steps else "failed"
    summary = "exit %d, %s" % (status, "all verified" if not steps else "failed: " + ", ".join(steps))
    return verdict, steps, summary


def lookup(report, path):
    value = report
    for part in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def judge(case, status, report):
    verdict, steps, summary = observe(status, report)
    if status not in (0, 1) or "crash" in steps:
        return "fail", summary, "the scan did not end with a verdict (exit %d)" % status, False
    unmet = [(path, want, lookup(report or {}, path)) for path, want in case.requires.items()
             if lookup(report or {}, path) != want]
    if case.expect == plan.EITHER:
        return "pass", summary, "", False
    if case.expect == plan.SUCCESSFUL:
        if verdict != "successful":
            return "fail", summary, "expected successful", False
        if unmet:
            return "fail", summary, "; ".join("%s is %r, not %r" % (p, got, want) for p, want, got in unmet), False
        return "pass", summary, "", False
    if verdict == "successful":
        return "fail", summary, "expected failed (%s): a wrong 'passed'" % case.step, True
    if case.step not in steps:
        return "fail", summary, "expected failed (%s), reported %s" % (case.step, ", ".join(steps)), False
    if unmet:
        return "fail", summary, "; ".join("%s is %r, not %r" % (p, got, want) for p, want, got in unmet), False
    return "pass", summary, "", False


def access_options(config, dump):
    if config.access == "can":
        return ["--can", "123456"]
    with open(os.path.join(dump, "mrz.txt")) as f:
        return ["--mrz", f.read().strip()]


# One virtual reader: a case holds it from the chip's start to the scan's end.
READER_LOCK = "/tmp/tr03105-reader.lock"


def run_case(case, work, passport, log=print):
    with open(READER_LOCK, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return _run_case(case, work, passport, log)
        finally:
            subprocess.run([LAUNCHER, "eject"], capture_output=True, timeout=60)


def _run_case(case, work, passport, log=print):
    if case.not_applicable:
        return Result(case, "not applicable", detail=case.not_applicable)
    if case.not_built:
        return Result(case, "not built", detail=case.not_built)
    folder = os.path.join(work, case.id)
    os.makedirs(folder, exist_ok=True)
    try:
        config = case.build(folder)
    except Exception as e:                              # a broken case, not a reader failure
        return Result(case, "fail", "case not built", "building the case failed: %r" % e)
    if isinstance(config, list):
        return _run_variants(case, config, folder, passport)
    return _scan(case, config, folder, passport)


def _run_variants(case, configs, folder, passport):
    """A case the plan runs once per variant ("successful for each"): every variant is judged
    alone; the first that does not pass is the case's result."""
    for number, config in enumerate(configs, 1):
        result = _scan(case, config, os.path.join(folder, "variant-%d" % number), passport)
        if result.outcome != "pass" or number == len(configs):
            result.ours = "variant %d/%d (%s): %s" % (number, len(configs), getattr(config, "label", ""), result.ours)
            return result
        subprocess.run([LAUNCHER, "eject"], capture_output=True, timeout=60)


def _scan(case, config, folder, passport):
    os.makedirs(folder, exist_ok=True)
    start = subprocess.run([LAUNCHER, "start", config.dump] + config.chip, capture_output=True, text=True, timeout=90)
    if start.returncode != 0:
        return Result(case, "fail", "chip did not start", start.stderr.strip()[-400:])
    out = os.path.join(folder, "scan-out")
    command = [passport, "scan", "--json", "--out", out, "--no-default-trust"]
    command += config.trust or ["--csca", CSCA]
    command += access_options(config, config.dump)
    if config.terminal:
        command += ["--eac", config.terminal]
    command += config.scan
    try:
        scan = subprocess.run(command, capture_output=True, text=True, timeout=180)
        status, stdout, stderr = scan.returncode, scan.stdout, scan.stderr
    except subprocess.TimeoutExpired:
        status, stdout, stderr = -1, "", "timed out after 180 s"
    try:
        report = json.loads(stdout)
    except ValueError:
        report = None
    outcome, ours, why, wrong = judge(case, status, report)
    if outcome == "fail":
        why += " | stderr: " + stderr.strip()[-300:]
    return Result(case, outcome, ours, why, wrong)


def run(cases, passport=DEFAULT_PASSPORT, log=print, keep=None):
    work = keep or tempfile.mkdtemp(prefix="tr03105-")
    results = []
    try:
        for case in cases:
            result = run_case(case, work, passport, log)
            results.append(result)
            log("%-14s %-15s %s%s" % (case.id, result.outcome, result.ours,
                                      (" — " + result.detail) if result.outcome != "pass" and result.detail else ""))
    finally:
        with open(READER_LOCK, "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            subprocess.run([LAUNCHER, "stop"], capture_output=True, timeout=60)
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return results
