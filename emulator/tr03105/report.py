"""The result table (docs/tr03105.md) and the JSON summary."""
from __future__ import annotations

import collections

from . import plan

STEP_NAMES = {"access": "access control", "sm": "secure messaging", "pa": "passive authentication",
              "ca": "chip authentication", "aa": "active authentication", "ta": "terminal authentication",
              "pace": "PACE", "format": "file format", "application": "application selection"}


def expected(case):
    if case.expect == plan.FAILED:
        return "failed: " + STEP_NAMES[case.step]
    return {"successful": "read and verified", "either": "either, no crash"}[case.expect]


def totals(results):
    per_suite = collections.OrderedDict()
    for r in results:
        counts = per_suite.setdefault(r.case.suite, collections.Counter())
        counts[r.outcome] += 1
        counts["wrong"] += r.wrong_pass
    return per_suite


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def table(results):
    lines = ["| suite | pass | fail | of which a wrong 'passed' | not built | not applicable | applicable passing |",
             "|---|---|---|---|---|---|---|"]
    grand = collections.Counter()
    for suite, counts in totals(results).items():
        grand.update(counts)
        lines.append("| %s | %d | %d | %d | %d | %d | %s |" % (suite, counts["pass"], counts["fail"], counts["wrong"],
                                                             counts["not built"], counts["not applicable"], ratio(counts)))
    lines.append("| **total** | **%d** | **%d** | **%d** | **%d** | **%d** | **%s** |" % (
        grand["pass"], grand["fail"], grand["wrong"], grand["not built"], grand["not applicable"], ratio(grand)))
    lines += ["", "| suite | case | title | expected | ours | result |", "|---|---|---|---|---|---|"]
    for r in results:
        c = r.case
        ours = r.ours if r.outcome in ("pass", "fail") else r.detail
        result = r.outcome + (" (a wrong 'passed')" if r.wrong_pass else "")
        lines.append("| %s | %s%s | %s | %s | %s | %s |" % (c.suite, c.id, " *" if c.inferred else "", cell(c.title),
                                                          expected(c), cell(ours), result))
    return "\n".join(lines) + "\n"


def ratio(counts):
    applicable = counts["pass"] + counts["fail"] + counts["not built"]
    if not applicable:
        return "-"
    # Rounded down, to a tenth where needed: 329 of 330 is 99.6%, never "100%".
    tenths = 1000 * counts["pass"] // applicable
    share = "%d" % (tenths // 10) if tenths % 10 == 0 else "%d.%d" % divmod(tenths, 10)
    return "%d/%d (%s%%)" % (counts["pass"], applicable, share)


def summary(results):
    grand = collections.Counter(r.outcome for r in results)
    return {"pass": grand["pass"], "fail": grand["fail"], "not_built": grand["not built"],
            "not_applicable": grand["not applicable"],
            "wrong_passes": [r.case.id for r in results if r.wrong_pass],
            "failing": {r.case.id: r.detail for r in results if r.outcome in ("fail", "not built")}}
