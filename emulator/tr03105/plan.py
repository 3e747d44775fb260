"""The test plan's cases as records, and the registry the suite modules fill."""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

# What the plan expects of the inspection system ("MRTD inspection procedure successful" or
# "... failed", with the step that must be reported), and what a case may additionally require.
SUCCESSFUL = "successful"
FAILED = "failed"
EITHER = "either"           # the plan accepts both; the reader must only stay operational

# Steps a failure is attributed to (the runner knows how `passport scan --json` shows each).
STEPS = ("access", "sm", "pa", "ca", "aa", "ta", "pace", "format", "application")


@dataclasses.dataclass
class Config:
    """A case's chip: the dump folder (built by `dataset`), the virtual passport's options, and
    the scan's own options (access key, trust anchors and terminal certificates are added by
    the runner from `access`, `trust` and `terminal`)."""
    dump: str
    chip: list = dataclasses.field(default_factory=list)
    scan: list = dataclasses.field(default_factory=list)
    access: str = "mrz"                 # mrz, can
    terminal: Optional[str] = None      # a folder of CV certificates (--eac), when TA is expected
    trust: list = dataclasses.field(default_factory=list)   # scan options; default: the UTO CSCA


@dataclasses.dataclass
class Case:
    id: str                             # the plan's id, e.g. LDS_H_05
    title: str                          # the plan's title
    expect: str                         # SUCCESSFUL, FAILED or EITHER
    step: Optional[str] = None          # with FAILED: the step that must be reported (STEPS)
    deviation: str = ""                 # what the case changes, in a few words
    build: Optional[Callable] = None    # build(workdir) -> Config
    requires: dict = dataclasses.field(default_factory=dict)  # extra checks: {"json.path": value}
    not_applicable: Optional[str] = None    # why the case cannot be made here
    not_built: Optional[str] = None         # why the case is not made yet (counted as failing)
    inferred: bool = False              # True: the plan (v1.5) gives only the title (moved to ICAO)

    @property
    def suite(self):
        return self.id.rsplit("_", 1)[0]

    @property
    def number(self):
        return int(self.id.rsplit("_", 1)[1])


REGISTRY: dict[str, Case] = {}


def add(case: Case) -> Case:
    if case.id in REGISTRY:
        raise ValueError("case %s defined twice" % case.id)
    if case.expect not in (SUCCESSFUL, FAILED, EITHER):
        raise ValueError("%s: expect must be successful, failed or either" % case.id)
    if case.expect == FAILED and case.step not in STEPS:
        raise ValueError("%s: a failure names its step, one of %s" % (case.id, ", ".join(STEPS)))
    if sum(x is not None for x in (case.build, case.not_applicable, case.not_built)) != 1:
        raise ValueError("%s: exactly one of build, not_applicable, not_built" % case.id)
    REGISTRY[case.id] = case
    return case


def case(id, title, expect, step=None, deviation="", requires=None, inferred=False):
    """Decorator: the function builds the case's chip configuration in a work folder."""
    def register(build):
        add(Case(id, title, expect, step, deviation, build, requires or {}, inferred=inferred))
        return build
    return register


def left(id, title, expect, step=None, *, reason, deviation="", inferred=False):
    """A case not made yet, with the reason (it counts as failing)."""
    add(Case(id, title, expect, step, deviation, not_built=reason, inferred=inferred))


def not_applicable(id, title, reason, expect=SUCCESSFUL, inferred=False):
    add(Case(id, title, expect, None, "", not_applicable=reason, inferred=inferred))


def cases(suite=None, ids=None):
    from . import suites  # noqa: F401  (fills REGISTRY)
    selected = [c for c in REGISTRY.values()
                if (suite is None or c.suite == suite) and (ids is None or c.id in ids)]
    return sorted(selected, key=lambda c: (SUITE_ORDER.index(c.suite) if c.suite in SUITE_ORDER else 99, c.number))


SUITE_ORDER = ["ISO7816_A", "ISO7816_B", "ISO7816_C", "ISO7816_D", "ISO7816_E", "ISO7816_F",
               "ISO7816_G", "LDS_A", "LDS_B", "LDS_C", "LDS_D", "LDS_E", "LDS_F", "LDS_G", "LDS_H",
               "LDS_I", "LDS_J", "LDS_K"]
