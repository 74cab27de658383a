"""Faithfulness (NLI): the share of answer claims entailed by the retrieved context.

Each answer sentence is a claim (with ``sentences="claims"``, questions, courtesy and framing
lines are set aside: :mod:`assay.evaluators.claim_sentences`); it is supported when
``P(entailment | passage, claim) > tau`` for its best passage.
Faithfulness = supported / total; hallucination rate = 1 − faithfulness.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

from assay.backends.nli import DEFAULT_NLI, ENTAILMENT, NLIModel, NLIScores
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.claim_sentences import check_sentences
from assay.evaluators.explain import quote
from assay.evaluators.nli_base import (
    NLIEvaluator,
    SentencePlan,
    plan_sentences,
    truncation_problems,
)
from assay.evaluators.registry import register
from assay.params import check


@register
class NLIFaithfulness(NLIEvaluator):
    """Supported claims / all claims, a claim being supported when P(entailment) > tau."""

    name = "nli_faithfulness"
    description = (
        "Share of answer sentences entailed (P(entailment) > tau) by their best retrieved "
        "passage; hallucination rate = 1 - faithfulness."
    )
    requires = ("actual_answer", "retrieved_context")
    metrics = (
        MetricSpec("nli_faithfulness", "supported claims / all claims", threshold=0.75,
                   primary=True),
        MetricSpec("nli_hallucination_rate", "unsupported claims / all claims",
                   higher_is_better=False, threshold=0.25),
    )

    def __init__(
        self, nli: str | NLIModel = DEFAULT_NLI, tau: float = 0.5, sentences: str = "all"
    ) -> None:
        super().__init__(nli)
        check(isinstance(tau, int | float) and 0.0 <= tau < 1.0, "tau", "NLIFaithfulness",
              "a number in [0, 1)", tau)
        self.tau = tau
        self.sentences = check_sentences(sentences, "NLIFaithfulness")

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return self.score_planned(
            cases, partial(plan_sentences, unit="claims", mode=self.sentences), self._result)

    def _result(self, plan: SentencePlan, scores: NLIScores) -> CaseResult:
        claims, rows = plan
        entail = scores.prob(ENTAILMENT)
        best = [float(entail[r].max()) for r in rows]
        supported = [p > self.tau for p in best]
        faithfulness = sum(supported) / len(claims)
        unsupported = [quote(c) for c, ok in zip(claims, supported, strict=True) if not ok]
        explanation = f"{sum(supported)} of {len(claims)} claims supported (P(entailment) > " \
            f"{self.tau})" + (f"; first unsupported: {unsupported[0]!r}" if unsupported else "")
        return CaseResult.ok(
            {"nli_faithfulness": faithfulness, "nli_hallucination_rate": 1.0 - faithfulness},
            explanation,
            {"claims": [{"claim": quote(c), "p_entailment": round(p, 4), "supported": ok}
                        for c, p, ok in zip(claims, best, supported, strict=True)],
             "tau": self.tau, "model": self.model_name(),
             "problems": truncation_problems(scores, rows)},
        )
