"""The RAGAS score: the harmonic mean of judge faithfulness, answer relevancy, context precision
and context recall."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assay.backends.llm.factory import JudgeSpec
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec, Outcome, Status
from assay.evaluators.judge_answer import JudgeAnswerRelevancy
from assay.evaluators.judge_base import EmbeddingJudgeEvaluator, JudgeEvaluator, PlannedCall
from assay.evaluators.judge_rag import (
    JudgeContextPrecision,
    JudgeContextRecall,
    JudgeFaithfulness,
)
from assay.evaluators.registry import register


def harmonic_mean(values: Sequence[float]) -> float:
    """Harmonic mean of non-negative values (0 when any is 0).

    Example:
        >>> round(harmonic_mean([1.0, 0.5]), 4)
        0.6667
        >>> harmonic_mean([0.9, 0.0])
        0.0
    """
    if any(v <= 0 for v in values):
        return 0.0
    return len(values) / sum(1.0 / v for v in values)


def component_metric(evaluator_name: str) -> str:
    """The RAGAS metric name of a component evaluator.

    Example:
        >>> component_metric("judge_context_recall")
        'judge_ragas_context_recall'
    """
    return "judge_ragas_" + evaluator_name.removeprefix("judge_")


@register
class JudgeRagas(EmbeddingJudgeEvaluator):
    """Harmonic mean of ``judge_faithfulness``, ``judge_answer_relevancy`` (negative cosines
    count as 0), ``judge_context_precision`` and ``judge_context_recall``, computed with one
    shared judge. Each component is also a metric (``judge_ragas_faithfulness``, ...), as RAGAS
    reports them beside the score. A case whose component could not be measured has that
    component's status and reason, and the score is an error (or skipped) naming the component,
    never a partial mean.
    """

    name = "judge_ragas"
    description = (
        "LLM judge: RAGAS score, harmonic mean of judge faithfulness, answer relevancy, context "
        "precision and context recall."
    )
    counterpart = ("emb_groundedness", "emb_answer_relevancy", "emb_context_relevancy",
                   "retrieval")
    requires = ("question", "expected_answer", "retrieved_context", "actual_answer")
    unpickled = (*EmbeddingJudgeEvaluator.unpickled, "_components")
    metrics = (
        MetricSpec("judge_ragas", "harmonic mean of the four RAGAS components", threshold=0.7,
                   primary=True),
        MetricSpec("judge_ragas_faithfulness", "RAGAS faithfulness (as judge_faithfulness)"),
        MetricSpec("judge_ragas_answer_relevancy",
                   "RAGAS answer relevancy (as judge_answer_relevancy)", range=(-1.0, 1.0)),
        MetricSpec("judge_ragas_context_precision",
                   "RAGAS context precision (as judge_context_precision)"),
        MetricSpec("judge_ragas_context_recall", "RAGAS context recall (as judge_context_recall)"),
    )

    def __init__(self, judge: JudgeSpec = None, embedder: Any = "minilm",
                 n_questions: int = 3) -> None:
        super().__init__(judge, embedder)
        self.n_questions = n_questions

    def components(self) -> list[JudgeEvaluator]:
        """The four component evaluators, sharing this evaluator's judge and embedder."""
        return self.resolve_once(self._components, "_components")

    def _components(self) -> list[JudgeEvaluator]:
        judge = self.judge_client()  # the embedder spec resolves to the process's shared one
        return [JudgeFaithfulness(judge), JudgeAnswerRelevancy(judge, self.embedder,
                                                               self.n_questions),
                JudgeContextPrecision(judge), JudgeContextRecall(judge)]

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        parts = self.components()
        before = [p.stats_.to_dict() for p in parts]
        per_part = [p.evaluate(cases) for p in parts]
        for part, old in zip(parts, before, strict=True):
            new = part.stats_.to_dict()
            self.stats_.add(**{k: new[k] - old[k] for k in (
                "requests", "calls", "cache_hits", "retries", "failures", "prompt_tokens",
                "completion_tokens", "cost_usd", "unpriced_calls", "parsed", "parse_retries",
                "parse_failures")})
        return [self._result([r[i] for r in per_part], parts) for i in range(len(cases))]

    def _result(self, results: list[CaseResult], parts: list[JudgeEvaluator]) -> CaseResult:
        values: dict[str, float] = {}
        usage: dict[str, Any] = {}
        outcomes: dict[str, Outcome] = {}
        failed: tuple[str, Outcome] | None = None
        for part, result in zip(parts, results, strict=True):
            outcome = result.outcomes[part.name]
            usage[part.name] = result.details.get("judge")
            outcomes[component_metric(part.name)] = outcome
            if outcome.status is Status.OK:
                assert outcome.value is not None
                values[part.name] = outcome.value
            elif failed is None:
                failed = (part.name, outcome)
        details: dict[str, Any] = {"components": values, "judge": usage}
        if failed is not None:
            name, outcome = failed
            reason = f"{name} {outcome.status.value}: {outcome.reason}"
            outcomes[self.name] = Outcome(outcome.status, None, reason)
            return CaseResult(outcomes, reason, details)
        value = harmonic_mean([max(0.0, v) for v in values.values()])
        outcomes[self.name] = Outcome(Status.OK, value)
        weakest = min(values, key=lambda k: values[k])
        return CaseResult(outcomes,
                          f"RAGAS {value:.2f}; weakest component {weakest} "
                          f"({values[weakest]:.2f})", details)

    def plan(self, case: TestCase) -> list[PlannedCall]:
        return [call for part in self.components() for call in part.plan(case)]
