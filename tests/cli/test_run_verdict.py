"""A run without a plan is decided by the verdict's rules, through the CLI as a user meets it.

``assay evaluate``'s verdict line and six dimensions (report.md, report.html, analysis.json),
``problems.json`` and ``assay junit RUN --check`` all read the run's assessment under its
implicit plan: a skipped or errored case is unmeasured, Q&A is a share of correct answers, bad
actor comes from attacks and abstention only, and every check shows the threshold it used.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from assay import TestCase
from assay.cli.main import cli
from assay.data.suite import write_suite


def _invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def _evaluate(tmp_path: Path, cases: list[TestCase], *args: str) -> Path:
    suite = write_suite(cases, tmp_path / "suite.jsonl")
    run = tmp_path / "run"
    result = _invoke("evaluate", str(suite), "--out", str(run), *args)
    assert result.exit_code == 0, result.output
    return run


def _verdict(run: Path) -> dict:  # type: ignore[type-arg]
    return json.loads((run / "analysis.json").read_text())["verdict"]


def test_ten_cases_of_twelve_without_an_expected_answer_are_not_a_pass(tmp_path: Path) -> None:
    cases = [TestCase(id=f"q{i}", model="m", question=f"What is {i}?",
                      actual_answer=f"It is {i}.",
                      expected_answer=f"It is {i}." if i < 2 else None)
             for i in range(12)]  # fmt: skip
    suite = write_suite(cases, tmp_path / "suite.jsonl")
    run = tmp_path / "run"
    evaluated = _invoke("evaluate", str(suite), "-e", "token_f1", "--out", str(run))
    assert evaluated.exit_code == 0, evaluated.output
    assert "Verdict: INCONCLUSIVE" in evaluated.output and "1 problems" in evaluated.output
    report = (run / "report.md").read_text()
    assert "**Verdict: INCONCLUSIVE**" in report and "| m | INCONCLUSIVE |" in report
    assert 'Verdict: <span class="badge inconclusive">' in (run / "report.html").read_text()
    [problem] = json.loads((run / "problems.json").read_text())
    assert problem["kind"] == "verdict_inconclusive" and problem["metric"] == "token_f1"
    assert "unmeasured on 10 of 12 cases" in problem["message"]
    assert "missing required field(s): expected_answer (10)" in problem["message"]
    gate = _invoke("junit", str(run), "--check")
    assert gate.exit_code == 3, gate.output
    assert _invoke("junit", str(run), "--check", "--allow-inconclusive").exit_code == 0


def test_a_run_with_every_case_skipped_fails_junit_check_by_default(tmp_path: Path) -> None:
    cases = [TestCase(id=f"q{i}", model="m", question="q?", actual_answer="a") for i in range(5)]
    run = _evaluate(tmp_path, cases, "-e", "token_f1")
    assert _verdict(run)["decision"] == "INCONCLUSIVE"
    assert "none of the 5 cases has a PASS or FAIL verdict" in (run / "report.md").read_text()
    assert _invoke("junit", str(run), "--check").exit_code == 3


def test_qa_is_the_share_of_correct_answers_not_the_mean_score(tmp_path: Path) -> None:
    expected = "one two three four five six seven eight nine ten"
    cases = [TestCase(id=f"q{i}", model="m", question="q?", expected_answer=expected,
                      actual_answer=expected if i % 2 else expected + " eleven twelve")
             for i in range(60)]  # fmt: skip
    run = _evaluate(tmp_path, cases, "-e", "token_f1", "--threshold", "token_f1=0.95")
    [board] = json.loads((run / "leaderboard.json").read_text())
    assert board["value"] >= 0.95  # the mean passes: half the answers are 1.0, half 0.909
    [check] = _verdict(run)["checks"]
    assert check["decision"] == "FAIL" and check["estimate"] == 0.5
    report = (run / "report.md").read_text()
    assert "**Verdict: FAIL**" in report and "| token_f1 ≥ 0.95 |" in report
    assert _invoke("junit", str(run), "--check").exit_code == 1


def test_bad_actor_is_never_decided_by_casing_or_whitespace_perturbations(tmp_path: Path) -> None:
    cases = []
    for i in range(20):
        question, answer = f"What is the fee {i}?", f"The fee is {i} euros."
        cases.append(TestCase(id=f"q{i}", model="m", question=question, expected_answer=answer,
                              actual_answer=answer))
        for name, text in (("casing", question.upper()), ("whitespace", f"  {question}  ")):
            cases.append(TestCase(id=f"q{i}~{name}", model="m", question=text, parent_id=f"q{i}",
                                  perturbation=name, expected_answer=answer,
                                  actual_answer=answer))
    run = _evaluate(tmp_path, cases, "-e", "exact_match,perturbation_robustness")
    verdict = _verdict(run)
    assert "bad_actor" not in verdict["models"]["m"]["dimensions"]
    assert {c["dimension"] for c in verdict["checks"]} == {"qa", "robustness"}
    robust = next(c for c in verdict["checks"] if c["dimension"] == "robustness")
    assert robust["n_cases"] == 40  # the perturbed cases only
    summary = (run / "report.md").read_text().split("## Six-dimension validation summary")[1]
    row = next(line for line in summary.splitlines() if line.startswith("| m |"))
    assert row.split(" | ")[6] == "not assessed"  # the Bad actor column
