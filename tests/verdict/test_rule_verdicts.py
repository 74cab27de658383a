"""Rule verdicts (no labels): a metric skipped as not applicable leaves the case out of scope."""

from __future__ import annotations

import pandas as pd

from assay.verdict.cases import FAIL, PASS, UNMEASURED, rule_verdicts
from assay.verdict.plan import Check


def _row(case_id: str, metric: str, status: str, value: float | None) -> dict[str, object]:
    return {"case_id": case_id, "model": "m", "metric": metric, "status": status,
            "value": value, "passed": None}


def test_a_case_every_metric_skipped_is_out_of_scope_not_a_pass() -> None:
    results = pd.DataFrame([
        _row("q1", "hit_at_k", "ok", 1.0), _row("q2", "hit_at_k", "ok", 0.0),
        _row("c1", "hit_at_k", "skipped", None),  # a conversation: no retrieval to score
        _row("q1", "recall_at_k", "ok", 1.0), _row("q2", "recall_at_k", "ok", 1.0),
        _row("c1", "recall_at_k", "skipped", None),
    ])
    keys = pd.MultiIndex.from_tuples([("q1", "m"), ("q2", "m"), ("c1", "m")],
                                     names=["case_id", "model"])
    check = Check(dimension="retrieval", name="hit", metrics=["hit_at_k", "recall_at_k"],
                  threshold=1.0, min_pass_rate=0.5)
    table = rule_verdicts(check, results, keys, {"hit_at_k": True, "recall_at_k": True}).table
    assert dict(zip(table["case_id"], table["verdict"], strict=True)) == {"q1": PASS, "q2": FAIL}


def test_a_skipped_case_in_scope_is_unmeasured_when_the_check_says_so() -> None:
    results = pd.DataFrame([
        _row("q1", "token_f1", "ok", 1.0), _row("q2", "token_f1", "skipped", None),
        _row("q3", "token_f1", "truncated", None),  # any status but ok: never a verdict
    ])
    keys = pd.MultiIndex.from_tuples([("q1", "m"), ("q2", "m"), ("q3", "m")],
                                     names=["case_id", "model"])
    check = Check(dimension="qa", name="f1", metrics=["token_f1"], threshold=0.5,
                  min_pass_rate=0.9, skipped="unmeasured")
    table = rule_verdicts(check, results, keys, {"token_f1": True}).table
    assert dict(zip(table["case_id"], table["verdict"], strict=True)) == {
        "q1": PASS, "q2": UNMEASURED, "q3": UNMEASURED}
    out_of_scope = rule_verdicts(check.model_copy(update={"skipped": "out_of_scope"}), results,
                                 keys, {"token_f1": True}).table
    assert set(out_of_scope["case_id"]) == {"q1", "q3"}
