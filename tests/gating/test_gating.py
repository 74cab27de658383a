"""CI gating: check_run / assert_run_passes, JUnit XML, the pytest plugin and the CLI."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

import assay
from assay import TestCase
from assay.cli.main import cli
from assay.gating import RunGateError, assert_run_passes, check_run, junit_xml
from assay.rundir.run import EvaluationRun


def _cases() -> list[TestCase]:
    cases = []
    for i in range(10):
        cases.append(TestCase(id=f"q{i}", model="good", expected_answer="yes", actual_answer="yes"))
        answer = "yes" if i < 6 else "no"
        cases.append(
            TestCase(id=f"q{i}", model="weak", expected_answer="yes", actual_answer=answer)
        )
    cases.append(TestCase(id="q10", model="weak", question="no answer"))  # skipped
    return cases


@pytest.fixture(scope="module")
def gated_run(tmp_path_factory: pytest.TempPathFactory) -> EvaluationRun:
    out = tmp_path_factory.mktemp("gate") / "run"
    return assay.evaluate(
        _cases(), ["exact_match", "token_f1"], out=out, thresholds={"exact_match": 0.9}
    )


def test_check_run_reports_each_model_metric(gated_run: EvaluationRun) -> None:
    result = check_run(gated_run)
    status = {c["name"]: c["status"] for c in result.checks}
    assert status == {
        "good::exact_match": "pass",
        "weak::exact_match": "fail",
        "good::token_f1": "pass",
        "weak::token_f1": "pass",
    }
    assert not result.passed and "weak::exact_match: 0.6 (needs ≥ 0.9" in result.message()
    assert check_run(gated_run, models=["good"]).passed
    assert check_run(gated_run, thresholds={"exact_match": 0.5}).passed


def test_assert_run_passes_raises_an_assertion_error(gated_run: EvaluationRun) -> None:
    with pytest.raises(RunGateError, match="weak::exact_match") as info:
        assert_run_passes(gated_run.path)
    assert isinstance(info.value, AssertionError)
    assert assert_run_passes(gated_run.path, metrics=["token_f1"]).passed


def test_unknown_metric_or_missing_threshold_fails_rather_than_passing_silently(
    gated_run: EvaluationRun,
) -> None:
    result = check_run(gated_run, metrics=["exact_matc"])
    assert [c["message"] for c in result.failures] == ["metric not in this run"]


def test_dimensions_gate(gated_run: EvaluationRun) -> None:
    accuracy = {
        "dimensions": {
            "qa": {
                "title": "Q&A",
                "checks": [{"label": "accuracy", "metrics": ["exact_match"], "threshold": 0.95}],
            }
        }
    }
    result = check_run(
        gated_run, metrics=["token_f1"], dimensions=["qa"], dimension_config=accuracy
    )
    assert {c["name"] for c in result.failures} == {"weak::dimension::qa"}
    # A named dimension that nothing measured fails the gate.
    named = check_run(gated_run, metrics=["token_f1"], dimensions=["retrieval"])
    assert {c["name"] for c in named.failures} == {
        "good::dimension::retrieval",
        "weak::dimension::retrieval",
    }
    # With every dimension, unmeasured ones are reported, not failed.
    with_all = check_run(gated_run, metrics=["token_f1"], dimensions=True)
    assert with_all.passed
    skipped = {c["name"].split("::")[-1] for c in with_all.checks if c["status"] == "not_measured"}
    assert skipped == {"retrieval", "qa", "tone", "risk", "hallucination", "bad_actor"}


def test_junit_xml_has_gate_checks_and_per_case_outcomes(gated_run: EvaluationRun) -> None:
    root = ET.fromstring(junit_xml(gated_run).split("\n", 1)[1])
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert suites["assay.gate"].get("failures") == "1"
    weak = suites["assay.weak.exact_match"]
    assert (weak.get("tests"), weak.get("failures"), weak.get("skipped")) == ("11", "4", "1")
    failed = [c.get("name") for c in weak.findall("testcase") if c.find("failure") is not None]
    assert failed == ["q6", "q7", "q8", "q9"]
    skipped = weak.find("testcase[@name='q10']/skipped")
    assert "missing required field" in skipped.get("message")
    total = sum(int(s.get("tests")) for s in suites.values())
    assert root.get("tests") == str(total)


def test_junit_text_is_valid_xml_even_with_control_characters(tmp_path: Path) -> None:
    case = TestCase(id="a\x01<&>", model="m\x1b", expected_answer="x", actual_answer="y")
    run = assay.evaluate([case], ["exact_match"])
    root = ET.fromstring(junit_xml(run).split("\n", 1)[1])
    names = [c.get("name") for c in root.iter("testcase")]
    assert "a\ufffd<&>" in names


def test_junit_cli_writes_the_file_and_sets_the_exit_status(
    gated_run: EvaluationRun, tmp_path: Path
) -> None:
    out = tmp_path / "junit.xml"
    runner = CliRunner()
    ok = runner.invoke(cli, ["junit", str(gated_run.path), "--out", str(out), "--no-cases"])
    assert ok.exit_code == 0 and out.is_file()
    assert len(ET.parse(out).getroot().findall("testsuite")) == 1
    failing = runner.invoke(cli, ["junit", str(gated_run.path), "--out", str(out), "--check"])
    assert failing.exit_code == 1
    passing = runner.invoke(
        cli,
        [
            "junit",
            str(gated_run.path),
            "--out",
            str(out),
            "--check",
            "--threshold",
            "exact_match=0.5",
        ],
    )
    assert passing.exit_code == 0


def test_pytest_plugin_turns_gate_checks_into_tests(
    gated_run: EvaluationRun, tmp_path: Path
) -> None:
    (tmp_path / "test_team.py").write_text(
        "def test_with_fixture(assay_gate):\n"
        f"    assay_gate({str(gated_run.path)!r}, models=['good'])\n"
    )
    junit = tmp_path / "pytest-junit.xml"
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        str(tmp_path),
        "--rootdir",
        str(tmp_path),
        "--assay-run",
        str(gated_run.path),
        f"--junitxml={junit}",
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "1 failed, 4 passed" in out.stdout
    assert "weak::exact_match: 0.6 (needs ≥ 0.9" in out.stdout
    cases = ET.parse(junit).getroot().iter("testcase")
    assert sum(1 for c in cases if c.find("failure") is not None) == 1
    relaxed = subprocess.run(
        [*cmd, "--assay-threshold", "exact_match=0.5"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert relaxed.returncode == 0, relaxed.stdout + relaxed.stderr
