"""The implicit plan of a run without one: which metrics decide, how, and what it says."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import assay
from assay import TestCase
from assay.verdict.implicit import assess_run, implicit_plan


def _row(metric: str, evaluator: str, *, primary: bool = True, threshold: float | None = 0.5,
         higher: bool = True, aggregation: str = "mean") -> dict[str, Any]:
    return {"model": "m", "metric": metric, "evaluator": evaluator, "primary": primary,
            "threshold": threshold, "higher_is_better": higher, "aggregation": aggregation}


def _run(*rows: dict[str, Any], thresholds: dict[str, float] | None = None) -> Any:
    return SimpleNamespace(leaderboard=list(rows), manifest={"thresholds": thresholds or {}})


def _checks(run: Any, **kwargs: Any) -> dict[str, Any]:
    return {c.check.metrics[0]: c for c in implicit_plan(run, **kwargs).checks}


def test_every_answer_leak_is_a_zero_tolerance_check_and_context_leaks_only_when_asked() -> None:
    run = _run(
        _row("pii_generation_leak", "pii_leakage", threshold=0.0, higher=False),
        _row("pii_retrieval_leak", "pii_leakage", primary=False, threshold=0.0, higher=False),
        _row("secret_generation_leak", "secrets_leakage", threshold=0.0, higher=False),
    )
    checks = _checks(run)
    assert set(checks) == {"pii_generation_leak", "secret_generation_leak"}
    assert all(c.check.zero_tolerance and c.check.scope == "all" for c in checks.values())
    assert checks["pii_generation_leak"].as_dict()["rule"] == "pii_generation_leak ≤ 0"
    asked = _checks(_run(*run.leaderboard, thresholds={"pii_retrieval_leak": 0.0}))
    assert "pii_retrieval_leak" in asked


def test_one_metric_decides_a_criterion_unless_the_run_set_another_ones_threshold() -> None:
    run = _run(_row("token_f1", "token_f1"), _row("exact_match", "exact_match", threshold=1.0),
               _row("bleu1", "bleu", threshold=0.75))
    implicit = implicit_plan(run)
    assert [c.check.name for c in implicit.checks] == ["correct answers (token_f1)"]
    assert implicit.checks[0].check.min_pass_rate == 0.95  # the framework's share correct
    assert implicit.not_deciding == {"exact_match": "correct answers (token_f1)",
                                     "bleu1": "correct answers (token_f1)"}
    overridden = _checks(run, thresholds={"bleu1": 0.3})
    assert set(overridden) == {"token_f1", "bleu1"} and overridden["bleu1"].check.threshold == 0.3


def test_bad_actor_and_robustness_come_from_their_own_metrics_and_scopes() -> None:
    run = _run(_row("attack_success", "attack_success", threshold=0.0, higher=False),
               _row("abstained", "abstention", threshold=1.0),
               _row("robust_pass_kept", "perturbation_robustness", threshold=1.0))
    checks = _checks(run)
    assert {m: (c.check.dimension, c.check.scope) for m, c in checks.items()} == {
        "attack_success": ("bad_actor", "attacks"),
        "abstained": ("bad_actor", "abstain"),
        "robust_pass_kept": ("robustness", "perturbed"),
    }
    # undefined when the original fails: such a case is out of scope, not unmeasured
    assert checks["robust_pass_kept"].check.skipped == "out_of_scope"
    assert checks["attack_success"].check.skipped == "unmeasured"


def test_metrics_without_a_threshold_or_per_system_are_descriptive() -> None:
    run = _run(_row("type_token_ratio", "text_statistics", threshold=None),
               _row("clf_accuracy", "classification", aggregation="corpus"))
    implicit = implicit_plan(run)
    assert implicit.checks == [] and implicit.descriptive == ["type_token_ratio", "clf_accuracy"]


def test_a_run_with_nothing_to_decide_is_inconclusive_and_says_why() -> None:
    cases = [TestCase(id=f"q{i}", model="m", actual_answer="Fine, thanks.") for i in range(3)]
    verdict = assess_run(assay.evaluate(cases, ["text_statistics"]))
    assert verdict.assessment.decision == "INCONCLUSIVE" and verdict.assessment.exit_code == 3
    [problem] = verdict.problems
    assert problem["kind"] == "verdict_not_judged" and "type_token_ratio" in problem["message"]


def test_conversation_metrics_are_decided_on_conversations_only() -> None:
    from assay.data import Turn

    turns = [Turn(role="user", content="I paid 250 euros on 3 May."),
             Turn(role="assistant", content="Thanks."),
             Turn(role="user", content="How much did I pay?"),
             Turn(role="assistant", content="You paid 250 euros on 3 May.")]
    cases = [TestCase(id=f"c{i}", model="m", turns=turns) for i in range(3)]
    cases += [TestCase(id=f"q{i}", model="m", question="q?", expected_answer="a",
                       actual_answer="a") for i in range(3)]
    verdict = assess_run(assay.evaluate(cases, ["conversation", "exact_match"]))
    by_check = {d.check: d for d in verdict.assessment.decisions}
    retention = next(d for name, d in by_check.items() if "knowledge_retention" in name)
    assert retention.n_cases == 3 and retention.n_unmeasured == 0  # the QA cases are not its kind
    exact = next(d for name, d in by_check.items() if "exact_match" in name)
    assert exact.n_cases == 3 and exact.n_unmeasured == 0  # nor the conversations exact_match's


def test_attack_success_without_an_attack_case_is_undecided_never_a_pass() -> None:
    cases = [TestCase(id=f"q{i}", model="m", question="Fee?", expected_answer="5",
                      actual_answer="5") for i in range(3)]
    verdict = assess_run(assay.evaluate(cases, ["attack_success", "exact_match"]))
    attacks = next(d for d in verdict.assessment.decisions if d.dimension == "bad_actor")
    assert attacks.decision == "INCONCLUSIVE" and "scope" in attacks.reason
