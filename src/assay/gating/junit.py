"""JUnit XML export: pass / fail per gate check and per metric × case, for any CI system.

Layout: a ``assay.gate`` test suite with one test per gate check (see
:func:`assay.gating.check.check_run`: one per system × check of the run's verdict; FAIL is a
failure, INCONCLUSIVE an *error* — never a skipped test, which CI counts as green — unless the gate
allows undecided checks), then one test suite per (model, metric) with one test per case: a
failure when the case is below the metric's threshold, ``skipped`` when the case could not be
scored (with the reason), ``error`` when the evaluator failed.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.fileio import write_text
from assay.gating.check import FAIL, INCONCLUSIVE, GateResult, check_run

if TYPE_CHECKING:
    from assay.rundir.run import EvaluationRun

_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _text(value: Any, limit: int = 2000) -> str:
    text = _INVALID_XML.sub("\ufffd", "" if value is None else str(value))
    return text if len(text) <= limit else text[:limit] + "…"


def _fmt(value: Any) -> str:
    return "n/a" if value is None else f"{float(value):.4g}"


def _suite(parent: ET.Element, name: str) -> ET.Element:
    return ET.SubElement(parent, "testsuite", name=_text(name, 200))


def _finish(suite: ET.Element) -> tuple[int, int, int, int]:
    cases = suite.findall("testcase")
    counts = (
        len(cases),
        sum(c.find("failure") is not None for c in cases),
        sum(c.find("error") is not None for c in cases),
        sum(c.find("skipped") is not None for c in cases),
    )
    for key, value in zip(("tests", "failures", "errors", "skipped"), counts, strict=True):
        suite.set(key, str(value))
    return counts


def junit_xml(
    run: EvaluationRun | str | Path,
    *,
    gate: GateResult | None = None,
    include_cases: bool = True,
    primary_only: bool = False,
) -> str:
    """The JUnit XML document of a run (gate checks and per-case outcomes).

    Args:
        run: an evaluated run or the path of a run directory.
        gate: gate result to report (default: :func:`check_run` with its defaults).
        include_cases: add one test per metric × case.
        primary_only: per-case tests for primary metrics only.

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a", expected_answer="b")],
        ...                ["exact_match"])
        >>> xml = junit_xml(run)  # the gate's check undecided (an error), the case a failure
        >>> '<testsuites name="assay" tests="2" failures="1" errors="1"' in xml
        True
    """
    if isinstance(run, str | Path):
        from assay.rundir.run import load_run

        run = load_run(run)
    gate = gate if gate is not None else check_run(run)
    root = ET.Element("testsuites", name="assay")
    suite = _suite(root, "assay.gate")
    for check in gate.checks:
        case = ET.SubElement(
            suite, "testcase", classname="assay.gate", name=_text(check["name"], 300)
        )
        if check["status"] == FAIL:
            ET.SubElement(case, "failure", message=_text(check["message"], 500)).text = _text(
                check["message"]
            )
        elif check["status"] == INCONCLUSIVE and gate.require_measured:
            ET.SubElement(case, "error", message=_text(check["message"], 500)).text = _text(
                check["message"]
            )
        elif check["status"] == INCONCLUSIVE:
            ET.SubElement(case, "skipped", message=_text(check["message"], 500))
    if include_cases:
        _case_suites(root, run, primary_only)
    totals = [0, 0, 0, 0]
    for s in root.findall("testsuite"):
        totals = [a + b for a, b in zip(totals, _finish(s), strict=True)]
    for key, value in zip(("tests", "failures", "errors", "skipped"), totals, strict=True):
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _case_suites(root: ET.Element, run: EvaluationRun, primary_only: bool) -> None:
    results = run.results
    if primary_only:
        results = results[results["primary"] == True]  # noqa: E712
    for (model, metric), group in results.groupby(["model", "metric"], sort=True):
        classname = f"assay.{model or 'unnamed'}.{metric}"
        suite = _suite(root, classname)
        for row in group.itertuples(index=False):
            case = ET.SubElement(
                suite, "testcase", classname=_text(classname, 300), name=_text(row.case_id, 300)
            )
            if row.status == "skipped":
                ET.SubElement(case, "skipped", message=_text(row.reason, 500))
            elif row.status == "error":
                ET.SubElement(case, "error", message=_text(row.reason, 500)).text = _text(
                    row.reason
                )
            elif _failed(row.passed):
                message = f"{metric} = {_fmt(row.value)}, threshold {_fmt(row.threshold)}"
                failure = ET.SubElement(case, "failure", message=_text(message, 500))
                failure.text = _text(row.explanation or message)


def _failed(passed: Any) -> bool:
    """True for a False verdict (None / NaN mean no verdict)."""
    return passed is not None and passed == passed and not bool(passed)


def write_junit(run: EvaluationRun | str | Path, path: str | Path, **options: Any) -> Path:
    """Write :func:`junit_xml` to ``path`` atomically and return the path."""
    return write_text(path, junit_xml(run, **options))
