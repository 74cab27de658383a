"""CI gating reads the verdict: check_run / assert_run_passes, JUnit XML, the pytest plugin, CLI.

A run without a plan is decided by its implicit plan through the verdict's rules
(``assay.verdict.implicit``); every gate check is one system × check of that assessment.
"""

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

#: Enough cases for the exact bound to show a 95 % pass rate when every case passes (n ≥ 69 at
#: the first look's one-sided level, 96.96 %).
N = 80
GOOD = "good::qa::correct answers (exact_match)"
WEAK = "weak::qa::correct answers (exact_match)"


def _cases() -> list[TestCase]:
    cases = []
    for i in range(N):
        cases.append(TestCase(id=f"q{i}", model="good", expected_answer="yes", actual_answer="yes"))
        answer = "yes" if i < 40 else "no"
        cases.append(
            TestCase(id=f"q{i}", model="weak", expected_answer="yes", actual_answer=answer)
        )
    return cases


@pytest.fixture(scope="module")
def gated_run(tmp_path_factory: pytest.TempPathFactory) -> EvaluationRun:
    out = tmp_path_factory.mktemp("gate") / "run"
    return assay.evaluate(_cases(), ["exact_match"], out=out)


def test_each_gate_check_is_a_system_and_check_of_the_verdict(gated_run: EvaluationRun) -> None:
    result = check_run(gated_run)
    status = {c["name"]: c["status"] for c in result.checks}
    assert status == {GOOD: "pass", WEAK: "fail"}
    assert not result.passed and result.exit_code == 1
    weak = next(c for c in result.checks if c["name"] == WEAK)
    assert weak["threshold"] == 1.0 and "exact_match ≥ 1" in weak["message"]
    assert "pass rate ≤" in weak["message"]  # the verdict's bound, not a mean
    assert check_run(gated_run, models=["good"]).passed
    relaxed = check_run(gated_run, thresholds={"exact_match": 0.0})  # every case passes
    assert relaxed.passed and {c["status"] for c in relaxed.checks} == {"pass"}


def test_assert_run_passes_raises_an_assertion_error(gated_run: EvaluationRun) -> None:
    with pytest.raises(RunGateError, match="weak::qa") as info:
        assert_run_passes(gated_run.path)
    assert isinstance(info.value, AssertionError)
    assert assert_run_passes(gated_run.path, models=["good"]).passed


def test_unknown_metric_fails_rather_than_passing_silently(gated_run: EvaluationRun) -> None:
    result = check_run(gated_run, metrics=["exact_matc"])
    assert [c["message"] for c in result.failures] == ["metric not in this run"]


def test_too_few_cases_to_decide_fail_the_gate_unless_allowed() -> None:
    run = assay.evaluate(_cases()[:20], ["exact_match"])  # 10 correct answers of 10: undecided
    gate = check_run(run, models=["good"])
    assert [c["status"] for c in gate.checks] == ["inconclusive"]
    assert not gate.passed and gate.exit_code == 3
    assert "straddles the target" in gate.checks[0]["message"]
    assert check_run(run, models=["good"], require_measured=False).passed


def test_junit_xml_has_gate_checks_and_per_case_outcomes(gated_run: EvaluationRun) -> None:
    root = ET.fromstring(junit_xml(gated_run).split("\n", 1)[1])
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert suites["assay.gate"].get("failures") == "1"
    weak = suites["assay.weak.exact_match"]
    assert (weak.get("tests"), weak.get("failures")) == (str(N), str(N - 40))
    failed = [c.get("name") for c in weak.findall("testcase") if c.find("failure") is not None]
    assert failed == [f"q{i}" for i in range(40, N)]
    total = sum(int(s.get("tests")) for s in suites.values())
    assert root.get("tests") == str(total)


def test_an_undecided_check_is_a_junit_error_never_a_skipped_test() -> None:
    run = assay.evaluate(_cases()[:20], ["exact_match"])
    gate = ET.fromstring(junit_xml(run).split("\n", 1)[1]).find("testsuite[@name='assay.gate']")
    assert gate.get("errors") == "2" and gate.get("skipped") == "0"  # both systems: 10 of 10


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
    assert "weak::qa::correct answers (exact_match): FAIL [exact_match ≥ 1" in failing.output
    passing = runner.invoke(
        cli,
        ["junit", str(gated_run.path), "--out", str(out), "--check", "--threshold",
         "exact_match=0"],
    )  # fmt: skip
    assert passing.exit_code == 0, passing.output


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
    assert "1 failed, 2 passed" in out.stdout
    assert f"{WEAK}: FAIL" in out.stdout
    cases = ET.parse(junit).getroot().iter("testcase")
    assert sum(1 for c in cases if c.find("failure") is not None) == 1
    relaxed = subprocess.run(
        [*cmd, "--assay-threshold", "exact_match=0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert relaxed.returncode == 0, relaxed.stdout + relaxed.stderr
