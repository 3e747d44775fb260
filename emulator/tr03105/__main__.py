"""python3 -m tr03105 list | run [--suite S] [--case ID]... [--table FILE] [--json FILE] [--keep DIR]"""
import argparse
import json
import os
import sys

from . import plan, report, runner


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tr03105", description="BSI TR-03105 Part 5.1 against passport")
    ap.add_argument("command", choices=["list", "run"])
    ap.add_argument("--suite")
    ap.add_argument("--case", action="append")
    ap.add_argument("--passport", default=os.environ.get("PASSPORT", runner.DEFAULT_PASSPORT))
    ap.add_argument("--table", help="write the result table (Markdown) here")
    ap.add_argument("--json", help="write the summary (JSON) here")
    ap.add_argument("--keep", help="build the cases in this folder and keep it")
    args = ap.parse_args(argv)
    cases = plan.cases(args.suite, set(args.case) if args.case else None)
    if not cases:
        print("no such case", file=sys.stderr)
        return 2
    if args.command == "list":
        for c in cases:
            state = "not applicable" if c.not_applicable else "not built" if c.not_built else "built"
            print("%-14s %-14s %-24s %s" % (c.id, state, report.expected(c), c.title))
        return 0
    if not os.access(args.passport, os.X_OK):
        print("tr03105: no passport executable at %s (swift build first, or --passport)" % args.passport, file=sys.stderr)
        return 2
    results = runner.run(cases, args.passport, log=lambda line: print(line, file=sys.stderr, flush=True), keep=args.keep)
    if args.table:
        with open(args.table, "w") as f:
            f.write(report.table(results))
    summary = report.summary(results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2, sort_keys=True)
    print(json.dumps({k: v for k, v in summary.items() if k != "failing"}))
    return 1 if summary["wrong_passes"] else 0


if __name__ == "__main__":
    sys.exit(main())
