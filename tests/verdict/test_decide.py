"""Check decisions: conservative counting, zero tolerance, and errors that never pass."""

from __future__ import annotations

import pandas as pd

from assay.verdict.cases import FAIL, PASS, REVIEW, RULE, UNMEASURED, CaseVerdicts
from assay.verdict.decide import EXIT_CODES, combine, decide_check
from assay.verdict.plan import Check


def _rule(verdicts: list[str]) -> CaseVerdicts:
    table = pd.DataFrame(
        {
            "case_id": [str(i) for i in range(len(verdicts))],
            "model": "m",
            "verdict": verdicts,
            "predicted": verdicts,
            "source": RULE,
            "label": float("nan"),
            "split": "none",
        }
    )
    return CaseVerdicts(table, "judge_qa_accuracy", calibrated=False)


def _check(**limit: float) -> Check:
    return Check(dimension="qa", name="accuracy", metrics=["judge_qa_accuracy"], **limit)


def test_a_metric_unmeasured_on_10_of_14_cases_is_inconclusive_not_pass() -> None:
    verdicts = [PASS] * 4 + [UNMEASURED] * 10
    decision = decide_check(_check(min_pass_rate=0.5), _rule(verdicts), "m")
    assert decision.decision == "INCONCLUSIVE"
    assert "unmeasured on 10 of 14 cases" in decision.reason
    assert EXIT_CODES[decision.decision] == 3


def test_review_and_unmeasured_count_as_failures_for_pass_and_as_passes_for_fail() -> None:
    # 40 PASS, 2 unmeasured (within a 5 % tolerance), target 0.9
    verdicts = [PASS] * 40 + [UNMEASURED] * 2
    decision = decide_check(_check(min_pass_rate=0.85, max_unmeasured=0.05), _rule(verdicts), "m")
    assert decision.lower is not None and decision.upper is not None
    assert decision.lower < 40 / 42 < decision.upper  # bounds widen by the two unknown cases
    assert decision.n_unmeasured == 2


def test_decisions_pass_fail_inconclusive() -> None:
    assert decide_check(_check(min_pass_rate=0.8), _rule([PASS] * 60), "m").decision == "PASS"
    assert decide_check(_check(min_pass_rate=0.8), _rule([FAIL] * 30 + [PASS] * 30), "m").decision == "FAIL"
    undecided = decide_check(_check(min_pass_rate=0.8), _rule([PASS] * 9 + [FAIL]), "m")
    assert undecided.decision == "INCONCLUSIVE" and "more cases" in undecided.reason


def test_zero_tolerance() -> None:
    check = _check(max_fail_rate=0.0)
    assert decide_check(check, _rule([PASS] * 20 + [FAIL]), "m").decision == "FAIL"
    assert decide_check(check, _rule([PASS] * 20), "m").decision == "PASS"
    assert decide_check(check, _rule([PASS] * 20 + [REVIEW]), "m").decision == "INCONCLUSIVE"


def test_a_system_without_cases_in_scope_is_not_measured() -> None:
    decision = decide_check(_check(min_pass_rate=0.5), _rule([PASS]), "other")
    assert decision.decision == "INCONCLUSIVE" and "not measured" in decision.reason


def test_combine() -> None:
    assert combine([]) == "INCONCLUSIVE"
    assert combine(["PASS", "PASS"]) == "PASS"
