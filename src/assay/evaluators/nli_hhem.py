"""Hallucination (HHEM-style): a factual-consistency cross-encoder, max over passages.

Any cross-encoder that scores whether a hypothesis is consistent with a premise works: Vectara's
HHEM (``vectara/hallucination_evaluation_model``, loaded with ``trust_remote_code``), a
single-logit consistency model (sigmoid), or a 3-way NLI model (P(entailment)). The answer is
the hypothesis, each retrieved passage a premise; as in the reference tool, the score is the
maximum over passages and every per-passage score is recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.backends.nli import DEFAULT_HHEM, NLIModel
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.embedding_base import chunk_sentences
from assay.evaluators.explain import quote, rounded
from assay.evaluators.nli_base import NLIEvaluator, chunks_of
from assay.evaluators.registry import register


@register
class NLIHallucinationHHEM(NLIEvaluator):
    """Factual consistency of the whole answer with its best passage (HHEM-style)."""

    name = "nli_hhem"
    description = (
        "Factual-consistency score of the answer given each retrieved passage (HHEM-style "
        "cross-encoder); max over passages, per-passage scores recorded."
    )
    requires = ("actual_answer", "retrieved_context")
    metrics = (
        MetricSpec("nli_hhem_consistency",
                   "max over passages of P(answer consistent with passage); 1 - hallucination",
                   threshold=0.5, primary=True),
    )

    def __init__(self, nli: str | NLIModel = DEFAULT_HHEM) -> None:
        super().__init__(nli)

    def texts_to_encode(self, case: TestCase) -> list[str]:
        """The whole answer and the context's sentences, for the head's prefetch."""
        answer = (case.actual_answer or "").strip()
        return [answer] + chunk_sentences(case.retrieved_context)[0] if answer else []

    def _consistency(self, premises: list[str], hypotheses: list[str]) -> np.ndarray:
        model = self.resolved_nli()
        custom = getattr(model, "consistency", None)
        if callable(custom):
            return np.asarray(custom(premises, hypotheses), dtype=np.float64)
        return model.predict(premises, hypotheses).consistency()

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        premises: list[str] = []
        hypotheses: list[str] = []
        spans: list[tuple[int, int] | str] = []
        for case in cases:
            answer = (case.actual_answer or "").strip()
            chunks = chunks_of(case.retrieved_context)
            if not answer:
                spans.append("the answer is empty")
            elif not chunks:
                spans.append("the context is empty")
            else:
                spans.append((len(premises), len(premises) + len(chunks)))
                premises.extend(chunks)
                hypotheses.extend([answer] * len(chunks))
        values = self._consistency(premises, hypotheses) if premises else np.zeros(0)
        out: list[CaseResult] = []
        for case, span in zip(cases, spans, strict=True):
            if isinstance(span, str):
                out.append(CaseResult.skipped(self.metric_names(), span))
                continue
            per_chunk = np.clip(values[span[0] : span[1]], 0.0, 1.0)
            pick = int(np.argmax(per_chunk))
            top = float(per_chunk[pick])
            chunks = chunks_of(case.retrieved_context)
            out.append(CaseResult.ok(
                {"nli_hhem_consistency": top},
                f"consistency {top:.2f} with passage {pick} ({quote(chunks[pick])!r}); "
                f"hallucination score {1 - top:.2f}",
                {"chunk_scores": rounded(per_chunk), "best_chunk": pick,
                 "hallucination_score": round(1 - top, 4), "model": self.model_name()},
            ))
        return out
