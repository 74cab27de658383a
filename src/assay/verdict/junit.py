"""JUnit XML of an assessment: one test per system × check (FAIL a failure, INCONCLUSIVE an error).

An undecided check is reported as an *error*, never as skipped: CI systems count skipped tests as
green, and an unmeasured or undecided dimension must never read as a pass.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError
from assay.fileio import write_text
from assay.gating.junit import _finish, _suite, _text
from assay.rundir.layout import VERDICT_FILE


def load_verdict(directory: Path) -> dict[str, Any]:
    """The ``verdict.json`` of an assessment directory."""
    path = directory / VERDICT_FILE
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InvalidInputError(f"{path}: cannot read the verdict: {exc}") from exc
    if "checks" not in data or "exit_code" not in data:
        raise InvalidInputError(f"{path}: not a verdict written by `assay assess`")
    return data


def verdict_junit_xml(verdict: dict[str, Any]) -> str:
    """JUnit XML for a verdict dictionary (``verdict.json``).

    Example:
        >>> xml = verdict_junit_xml({"checks": [
        ...     {"model": "m", "dimension": "qa", "check": "correct", "decision": "INCONCLUSIVE",
        ...      "reason": "too few labels"}], "exit_code": 3})
        >>> 'errors="1"' in xml and "too few labels" in xml
        True
    """
    root = ET.Element("testsuites", name="assay.verdict")
    suite = _suite(root, "assay.verdict")
    for check in verdict["checks"]:
        name = f"{check['model']} :: {check['dimension']} :: {check['check']}"
        case = ET.SubElement(suite, "testcase", classname="assay.verdict", name=_text(name, 300))
        message = _text(f"{check['decision']}: {check['reason']}", 500)
        if check["decision"] == "FAIL":
            ET.SubElement(case, "failure", message=message).text = _text(check["reason"])
        elif check["decision"] != "PASS":
            ET.SubElement(case, "error", message=message).text = _text(check["reason"])
    totals = _finish(suite)
    for key, value in zip(("tests", "failures", "errors", "skipped"), totals, strict=True):
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_verdict_junit(directory: Path, path: Path) -> int:
    """Write the JUnit XML of the assessment in ``directory``; return the verdict's exit code."""
    verdict = load_verdict(directory)
    write_text(path, verdict_junit_xml(verdict))
    return int(verdict["exit_code"])
