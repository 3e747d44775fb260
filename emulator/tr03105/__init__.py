"""BSI TR-03105 Part 5.1 (v1.5, "Test plan for ICAO compliant Inspection Systems with EACv1") run
against `passport`: each test case of the plan becomes a chip configuration of the virtual
passport (a dump folder built from Fixtures/ with the case's deviation, re-signed with the
TEST-ONLY PKI in place of the plan's, and the chip's options), scanned through pcscd by the real
`passport` executable, and judged against the verdict the plan expects.

  plan.py     the Case record, the verdicts, the registry
  dataset.py  a dump folder to change: data groups, EF.COM, EF.SOD re-signed
  runner.py   start the chip, scan, judge; the result table
  suites/     one module per suite of the plan (ISO7816_A … LDS_K)

Run: `scripts/tr03105 [--suite S] [--case ID] [--table FILE] [--json]` (docs/tr03105.md).
"""
