"""A metric in error or skipped on its cases never reads as a pass: gate, JUnit --check, verdict."""

from __future__ import annotations

import pandas as pd

from assay.gating import check_run
from assay.rundir.run import EvaluationRun
from assay.verdict.implicit import CaseKey, assess_run


def _run(n_ok: int, n_error: int) -> EvaluationRun:
    """A judge metric measured (and passing) on ``n_ok`` cases, in error on ``n_error``."""
    n = n_ok + n_error
    results = pd.DataFrame(
        {
            "case_id": [f"c{i}" for i in range(n)],
            "model": "m",
            "evaluator": "judge_qa_accuracy",
            "metric": "judge_qa_accuracy",
            "primary": True,
            "status": ["ok"] * n_ok + ["error"] * n_error,
            "value": [1.0] * n_ok + [None] * n_error,
            "passed": [True] * n_ok + [None] * n_error,
            "threshold": 0.95,
            "reason": [None] * n_ok + ["JudgeParseError: no JSON object in the reply"] * n_error,
        }
    )
    row = {
        "model": "m", "evaluator": "judge_qa_accuracy", "metric": "judge_qa_accuracy",
        "primary": True, "aggregation": "mean", "higher_is_better": True, "threshold": 0.95,
        "value": 1.0 if n_ok else None, "n_ok": n_ok, "n_skipped": 0, "n_error": n_error,
        "n_pass": n_ok, "n_fail": 0, "pass_rate": 1.0 if n_ok else None,
    }  # fmt: skip
    return EvaluationRun(
        manifest={},  # type: ignore[typeddict-item]
        leaderboard=[row],  # type: ignore[list-item]
        problems=[],
        insights=[],
        case_keys=[CaseKey(f"c{i}", "m") for i in range(n)],
        _results=results,
    )


def test_ten_errors_of_seventy_leave_the_check_undecided_and_fail_the_gate() -> None:
    gate = check_run(_run(60, 10))
    assert not gate.passed and gate.exit_code == 3
    assert "unmeasured on 10 of 70 cases" in gate.failures[0]["message"]


def test_every_case_in_error_fails_the_gate() -> None:
    gate = check_run(_run(0, 14))
    assert not gate.passed and "none of the 14 cases has a PASS or FAIL" in gate.failures[0]["message"]


def test_the_verdict_names_why_cases_were_unmeasured() -> None:
    verdict = assess_run(_run(60, 10))
    [problem] = verdict.problems
    assert problem["kind"] == "verdict_inconclusive"
    assert "JudgeParseError: no JSON object in the reply (10)" in problem["message"]
    fine = assess_run(_run(70, 0))
    assert fine.assessment.decision == "PASS" and not fine.problems
