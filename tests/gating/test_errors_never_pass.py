"""A metric in error on most cases never reads as a pass: gate, JUnit --check, six dimensions."""

from __future__ import annotations

import pandas as pd

from assay.analyze.dimensions import summarize_dimensions
from assay.gating import check_run
from assay.rundir.run import EvaluationRun


def _row(n_ok: int, n_error: int, value: float | None) -> dict[str, object]:
    return {
        "model": "m",
        "evaluator": "judge_qa_accuracy",
        "metric": "judge_qa_accuracy",
        "primary": True,
        "aggregation": "mean",
        "higher_is_better": True,
        "threshold": 0.5,
        "value": value,
        "n_ok": n_ok,
        "n_skipped": 0,
        "n_error": n_error,
        "n_pass": n_ok,
        "n_fail": 0,
        "pass_rate": 1.0 if n_ok else None,
    }


def _run(row: dict[str, object]) -> EvaluationRun:
    return EvaluationRun(
        manifest={},
        leaderboard=[row],
        problems=[],
        insights=[],
        _results=pd.DataFrame(columns=["case_id", "model", "metric", "passed"]),
    )


def test_ten_errors_of_fourteen_fail_the_gate() -> None:
    gate = check_run(_run(_row(4, 10, 1.0)))
    assert not gate.passed
    assert any("error rate" in c["message"] for c in gate.failures)


def test_every_case_in_error_fails_the_gate_without_require_measured() -> None:
    gate = check_run(_run(_row(0, 14, None)))
    assert not gate.passed and "14 errors" in gate.failures[0]["message"]


def test_a_dimension_whose_check_mostly_errored_is_not_a_pass() -> None:
    qa = next(
        d for d in summarize_dimensions([_row(4, 10, 1.0)], pd.DataFrame()) if d["name"] == "qa"
    )
    assert qa["models"]["m"] == "not_measured"
    assert "errored on 10 of 14 cases" in qa["checks"][0]["detail"]
    fine = next(
        d for d in summarize_dimensions([_row(14, 0, 1.0)], pd.DataFrame()) if d["name"] == "qa"
    )
    assert fine["models"]["m"] == "pass"
