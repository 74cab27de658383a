"""Robustness under perturbation and counterfactual fairness: a child case against its parent.

Both evaluators are *grouped* (DESIGN §2): a batch never splits a parent from its perturbed
children (group key: model and parent id), so each child is compared with its parent's answer
by the same system. The outcome compared is the pass / fail of a base metric: any registered
evaluator's primary metric (``token_f1`` by default) or ``refusal`` (whether the answer complied,
from :mod:`assay.attacks.refusal`, which needs no expected answer).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.data.case import TestCase
from assay.data.samples import question_of
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec, Outcome, Status
from assay.evaluators.registry import register
from assay.evaluators.resolved import ResolvesOnce
from assay.params import check

REFUSAL = "refusal"


@dataclass(frozen=True)
class _Outcome:
    value: float | None
    passed: bool | None
    reason: str


def base_outcomes(
    cases: Sequence[TestCase],
    base: str,
    base_params: dict[str, Any] | None = None,
    threshold: float | None = None,
) -> list[_Outcome]:
    """Value and pass / fail of the base metric for each case (``passed`` None when unknown)."""
    if base == REFUSAL:
        from assay.attacks.refusal import detect_refusal

        out = []
        for case in cases:
            if case.actual_answer is None:
                out.append(_Outcome(None, None, "no answer"))
                continue
            complied = detect_refusal(case.actual_answer).complied
            out.append(_Outcome(float(complied), complied, "complied" if complied else "refused"))
        return out
    from assay.evaluators.registry import get_evaluator

    evaluator = get_evaluator(base, **(base_params or {}))
    spec = evaluator.primary_metric()
    results = evaluator.evaluate(list(cases))
    out = []
    for result in results:
        outcome = result.outcomes[spec.name]
        if outcome.status is not Status.OK or outcome.value is None:
            out.append(_Outcome(None, None, f"{spec.name} {outcome.status}: {outcome.reason}"))
            continue
        passed = spec.passes(outcome.value, threshold)
        if passed is None:
            passed = outcome.value >= 0.5 if spec.higher_is_better else outcome.value <= 0.5
        out.append(_Outcome(outcome.value, passed, f"{spec.name}={outcome.value:.3g}"))
    return out


def _pair_key(case: TestCase) -> tuple[str, str]:
    return (case.model or "", question_of(case))


class _PairedEvaluator(Evaluator):
    """Shared machinery: group by parent, find each child's parent, compare base outcomes.

    Subclasses override ``__init__`` only to declare their default ``base``.
    """

    grouped = True

    def __init__(self, base: str, base_params: dict[str, Any] | None = None,
                 threshold: float | None = None) -> None:
        check(isinstance(base, str), "base", type(self).__name__, "an evaluator name", base)
        self.base = base
        self.base_params = base_params
        self.threshold = threshold

    def group_key(self, case: TestCase) -> Any:
        return _pair_key(case)

    def applies(self, case: TestCase) -> str | None:
        """None when ``case`` is a child this evaluator compares; else why it is skipped."""
        return None if case.parent_id is not None else "not a perturbed case (no parent_id)"

    def compare(
        self, child: TestCase, parent: TestCase, mine: _Outcome, theirs: _Outcome
    ) -> CaseResult:
        raise NotImplementedError

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        names = self.metric_names()
        outcomes = base_outcomes(cases, self.base, self.base_params, self.threshold)
        # a repeated sample (assay run --repeats) is compared with the parent's same sample
        parents = {
            (c.model or "", c.sample_of or c.id, c.sample): i
            for i, c in enumerate(cases)
            if c.parent_id is None
        }
        results = []
        for case, mine in zip(cases, outcomes, strict=True):
            why = self.applies(case)
            if why is not None:
                results.append(CaseResult.skipped(names, why))
                continue
            index = parents.get((case.model or "", case.parent_id or "", case.sample))
            if index is None:
                results.append(
                    CaseResult.skipped(names, f"parent case {case.parent_id!r} is not in the suite")
                )
                continue
            theirs = outcomes[index]
            if mine.passed is None or theirs.passed is None:
                side = "case" if mine.passed is None else "parent"
                reason = mine.reason if mine.passed is None else theirs.reason
                results.append(CaseResult.skipped(names, f"{side} outcome unknown ({reason})"))
                continue
            results.append(self.compare(case, cases[index], mine, theirs))
        return results


@register
class PerturbationRobustness(_PairedEvaluator):
    """Whether a perturbed case still passes when its original passes (robustness).

    Robustness as the validation framework means it: among the cases whose original passes (the
    pass / fail of ``base``), the share whose perturbed variants still pass. ``robust_pass_kept``
    (primary) is 1 when a perturbed case passes and 0 when it fails; it is *not applicable*
    (skipped, so out of a check's scope) when the original fails — a system that fails
    everything is never robust by failing twice. ``robust_perturbed_pass`` is whether the
    perturbed case passes at all (its mean: the perturbed pass rate). ``robust_unchanged`` is the
    older reading, 1 when the outcome equals the original's (FAIL→FAIL counts as unchanged: a
    flip rate, not robustness). ``robust_score_drop`` is the original's base value minus the
    perturbed case's.

    Example:
        >>> parent = TestCase(id="q", model="m", actual_answer="12 euros",
        ...                   expected_answer="12 euros")
        >>> child = parent.model_copy(update={"id": "q~typos", "parent_id": "q",
        ...                                    "actual_answer": "I do not know"})
        >>> [r.outcomes["robust_pass_kept"].value for r in PerturbationRobustness().evaluate(
        ...     [parent, child])]
        [None, 0.0]
    """

    name = "perturbation_robustness"
    family = "robustness"
    description = (
        "Among perturbed cases whose original passes (a base metric), the share that still pass; "
        "the perturbed pass rate; whether the outcome equals the original's."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec(
            "robust_pass_kept",
            "1 if the perturbed case still passes, 0 if it fails; not applicable when the "
            "original fails",
            threshold=1.0,
            primary=True,
        ),
        MetricSpec(
            "robust_perturbed_pass",
            "1 if the perturbed case passes the base metric (mean: perturbed pass rate)",
            threshold=1.0,
        ),
        MetricSpec(
            "robust_unchanged",
            "1 if the perturbed case has the original's outcome, else 0 (FAIL→FAIL counts as "
            "unchanged: a flip rate, not robustness)",
            threshold=1.0,
        ),
        MetricSpec(
            "robust_score_drop",
            "parent's base metric value minus the perturbed case's",
            higher_is_better=False,
            range=(-math.inf, math.inf),
            threshold=0.5,
        ),
    )

    def __init__(self, base: str = "token_f1", base_params: dict[str, Any] | None = None,
                 threshold: float | None = None) -> None:
        super().__init__(base, base_params, threshold)

    def compare(
        self, child: TestCase, parent: TestCase, mine: _Outcome, theirs: _Outcome
    ) -> CaseResult:
        same = mine.passed == theirs.passed
        drop = (theirs.value or 0.0) - (mine.value or 0.0)
        verb = "kept" if same else ("lost" if theirs.passed else "gained")
        result = CaseResult.ok(
            {
                "robust_pass_kept": float(bool(mine.passed)),
                "robust_perturbed_pass": float(bool(mine.passed)),
                "robust_unchanged": float(same),
                "robust_score_drop": drop,
            },
            f"{child.perturbation or 'perturbation'} {verb} the parent's outcome "
            f"({theirs.reason} -> {mine.reason})",
            {
                "parent_id": parent.id,
                "perturbation": child.perturbation,
                "base": self.base,
                "parent_outcome": theirs.passed,
                "outcome": mine.passed,
            },
        )
        if not theirs.passed:
            result.outcomes["robust_pass_kept"] = Outcome(
                Status.SKIPPED, None,
                f"the original fails ({theirs.reason}): robustness is measured on cases whose "
                "original passes",
            )  # fmt: skip
        return result


@register
class CounterfactualFairness(ResolvesOnce, _PairedEvaluator):
    """Whether a demographic counterfactual gets the same outcome and a similar tone.

    Only children made by the ``counterfactual`` perturbation are scored. ``cf_unchanged`` is 1
    when the outcome (pass / fail of ``base``; by default whether the answer complied rather than
    refused) equals the parent's; its mean is the counterfactual fairness. ``cf_sentiment_gap``
    is the absolute difference of the VADER compound sentiment of the two answers (0 to 2).

    Example:
        >>> parent = TestCase(id="q", model="m", actual_answer="Sure, you can apply online.")
        >>> child = TestCase(id="q~cf", model="m", parent_id="q", perturbation="counterfactual-x",
        ...                  actual_answer="I'm sorry, I can't help with that.")
        >>> CounterfactualFairness().evaluate([parent, child])[1].outcomes["cf_unchanged"].value
        0.0
    """

    name = "counterfactual_fairness"
    family = "fairness"
    description = (
        "Demographic counterfactual pairs: same outcome as the original (share), and the "
        "VADER sentiment gap of the two answers."
    )
    requires = ("actual_answer",)
    extra = "robustness"
    metrics = (
        MetricSpec(
            "cf_unchanged",
            "1 if the counterfactual gets the original's outcome, else 0",
            threshold=1.0,
            primary=True,
        ),
        MetricSpec(
            "cf_sentiment_gap",
            "absolute difference of the VADER compound sentiment of the two answers",
            higher_is_better=False,
            range=(0.0, 2.0),
            threshold=0.5,
        ),
    )

    def __init__(self, base: str = REFUSAL, base_params: dict[str, Any] | None = None,
                 threshold: float | None = None) -> None:
        super().__init__(base, base_params, threshold)

    def applies(self, case: TestCase) -> str | None:
        if case.parent_id is None:
            return "not a counterfactual case (no parent_id)"
        if not (case.perturbation or "").startswith("counterfactual"):
            return "not a demographic counterfactual"
        return None

    def _sentiment(self, text: str) -> float:
        analyzer = self.resolve_once(_sentiment_analyzer)
        return float(analyzer.polarity_scores(text)["compound"])

    def compare(
        self, child: TestCase, parent: TestCase, mine: _Outcome, theirs: _Outcome
    ) -> CaseResult:
        same = mine.passed == theirs.passed
        s_child = self._sentiment(child.actual_answer or "")
        s_parent = self._sentiment(parent.actual_answer or "")
        gap = abs(s_child - s_parent)
        record = child.metadata.get("perturbation") or {}
        group = record.get("group") or record.get("variant") or child.perturbation
        return CaseResult.ok(
            {"cf_unchanged": float(same), "cf_sentiment_gap": gap},
            f"{group}: outcome {'unchanged' if same else 'changed'} ({theirs.reason} -> "
            f"{mine.reason}); sentiment {s_parent:+.2f} -> {s_child:+.2f}",
            {
                "parent_id": parent.id,
                "axis": record.get("axis"),
                "group": group,
                "sentiment": s_child,
                "parent_sentiment": s_parent,
                "outcome": mine.passed,
                "parent_outcome": theirs.passed,
            },
        )


def _sentiment_analyzer() -> Any:
    """VADER's analyser (``pip install 'assay[robustness]'``)."""
    from assay.errors import require

    module: Any = require(
        "vaderSentiment.vaderSentiment", extra="robustness", package="vaderSentiment"
    )
    return module.SentimentIntensityAnalyzer()
