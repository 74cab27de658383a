"""Check decisions: conservative counting, zero tolerance, and errors that never pass."""

from __future__ import annotations

import pandas as pd

from assay.verdict.cases import FAIL, PASS, REVIEW, RULE, UNMEASURED, CaseVerdicts
from assay.verdict.decide import EXIT_CODES, combine, decide_check
from assay.verdict.design import RANDOM, UNKNOWN, DesignRound, Draw, LabelRecord
from assay.verdict.looks import LookLedger
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
    assert (
        decide_check(_check(min_pass_rate=0.8), _rule([FAIL] * 30 + [PASS] * 30), "m").decision
        == "FAIL"
    )
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


def test_nothing_measured_is_never_pass_even_at_target_zero() -> None:
    check = _check(min_pass_rate=0.0, max_unmeasured=1.0)
    decision = decide_check(check, _rule([UNMEASURED] * 12), "m")
    assert decision.decision == "INCONCLUSIVE" and "nothing was measured" in decision.reason


def test_rule_checks_name_their_failing_cases() -> None:
    verdicts = _rule([PASS] * 5 + [FAIL] * 25)
    verdicts.table["failed_metric"] = "judge_qa_accuracy"
    verdicts.table["value"] = 0.2
    verdicts.table["threshold"] = 0.5
    verdicts.threshold = 0.5
    decision = decide_check(_check(min_pass_rate=0.8), verdicts, "m")
    assert decision.decision == "FAIL" and decision.n_failing == 25
    assert len(decision.failing_cases) == 20
    assert decision.failing_cases[0] == {
        "case_id": "5",
        "model": "m",
        "metric": "judge_qa_accuracy",
        "value": 0.2,
        "threshold": 0.5,
    }
    assert decision.threshold == 0.5 and decision.metric == "judge_qa_accuracy"


def _labelled(labels: dict[str, int], n: int, design: str) -> CaseVerdicts:
    """A labels-only check: ``n`` cases in scope, some labelled with ``design``."""
    ids = [f"c{i}" for i in range(n)]
    records = {
        (c, "m"): LabelRecord("ok", v, design, "suite", 1 if design != UNKNOWN else None)
        for c, v in labels.items()
    }
    rounds = (
        [DesignRound(1, "ok", "all", RANDOM, "", frozenset(), {},
                     tuple(Draw(c, "m", float("nan")) for c in labels))]
        if design == RANDOM
        else []
    )  # fmt: skip
    label = [float(labels[c]) if c in labels else float("nan") for c in ids]
    verdict = [{1.0: PASS, 0.0: FAIL}.get(v, REVIEW) for v in label]
    table = pd.DataFrame({"case_id": ids, "model": "m", "verdict": verdict, "label": label,
                          "source": ["human" if v == v else "unlabelled" for v in label],
                          "predicted": None})  # fmt: skip
    return CaseVerdicts(table, None, False, "no metric separates", records=records, rounds=rounds)


def test_a_census_of_labels_decides_exactly_when_no_metric_can() -> None:
    labels = {f"c{i}": int(i < 11) for i in range(26)}  # 11 of 26 grounded
    decision = decide_check(_check(min_pass_rate=0.9), _labelled(labels, 26, UNKNOWN), "m")
    assert decision.decision == "FAIL" and decision.n_cases == 26
    assert decision.lower == decision.upper == 11 / 26 and decision.method == "census"


def test_hand_picked_labels_alone_never_pass_beyond_the_census() -> None:
    labels = {f"c{i}": 1 for i in range(30)}  # 30 of 40 labelled, all PASS
    decision = decide_check(_check(min_pass_rate=0.8), _labelled(labels, 40, UNKNOWN), "m")
    assert decision.decision == "INCONCLUSIVE"
    assert (
        decision.lower == 30 / 40
        and "no bound may treat them as a random sample" in decision.reason
    )
    random = decide_check(_check(min_pass_rate=0.8), _labelled(labels, 40, RANDOM), "m")
    assert random.decision == "PASS" and random.method and "hypergeometric" in random.method


def test_the_verdict_states_its_look_and_a_later_look_spends_less() -> None:
    labels = {f"c{i}": int(i % 10 != 0) for i in range(40)}
    ledger = LookLedger(None)
    check = _check(min_pass_rate=0.5)
    first = decide_check(check, _labelled(labels, 200, RANDOM), "m", ledger=ledger)
    again = decide_check(check, _labelled(labels, 200, RANDOM), "m", ledger=ledger)
    more = dict(labels) | {f"c{i}": 1 for i in range(40, 60)}
    later = decide_check(check, _labelled(more, 200, RANDOM), "m", ledger=ledger)
    assert (first.look, again.look, later.look) == (1, 1, 2)
    assert first.level is not None and later.level is not None and later.level > first.level
    assert "look 2, one-sided level 99.24%" in later.reason
