"""GPTScore (Fu et al., 2023): the average log-likelihood of a target under an instruction.

``GPTScore(h | d, a, S) = mean_t log p(h_t | h_<t, T(d, a, S))``: the instruction template
``T`` states the task and the aspect, the source is filled in, and the language model scores
the tokens of the target only. The summarization and machine-translation templates are those of
the GPTScore paper (aspect-specific, ``Tl;dr`` / ``In other words,``); the question-answering
template follows the same pattern. With a reference, both directions (reference → hypothesis
and hypothesis → reference) are scored and averaged, as GPTScore does for reference-based
evaluation. Values are ≤ 0; higher is better; compare under the same model only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from assay.backends.lm import DEFAULT_LM, LanguageModel, TokenScores, score_text
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.lm_base import LMEvaluator
from assay.evaluators.registry import register
from assay.params import check

#: ``{task: {aspect: (instruction, separator)}}``; the prompt is
#: ``f"{instruction}: {source} {separator}"`` and the target follows after a space.
TEMPLATES: dict[str, dict[str, tuple[str, str]]] = {
    "summarization": {
        "consistency": ("Generate a summary with consistent facts for the following text",
                        "Tl;dr"),
        "coherence": ("Generate a coherent summary for the following text", "Tl;dr"),
        "relevance": ("Generate a relevant summary with consistent details for the following "
                      "text", "Tl;dr"),
        "fluency": ("Generate a fluent and grammatical summary for the following text", "Tl;dr"),
        "informativeness": ("Generate an informative summary that captures the key points of "
                            "the following text", "Tl;dr"),
    },
    "translation": {
        "accuracy": ("Rewrite the following text with its core information and consistent facts",
                     "In other words,"),
        "fluency": ("Rewrite the following text to make it more grammatical and well-written",
                    "In other words,"),
        "mqm": ("Rewrite the following text into high-quality text with its core information",
                "In other words,"),
    },
    "qa": {
        "correctness": ("Answer the following question correctly and factually", "Answer:"),
        "helpfulness": ("Answer the following question in a helpful and informative way",
                        "Answer:"),
    },
}


def build_prompt(task: str, aspect: str, source: str) -> str:
    """The instruction prompt preceding the target.

    Example:
        >>> build_prompt("qa", "correctness", "What is the fee?")
        'Answer the following question correctly and factually: What is the fee? Answer:'
    """
    instruction, separator = TEMPLATES[task][aspect]
    return f"{instruction}: {source.strip()} {separator}"


class _GPTScore(LMEvaluator):
    task: ClassVar[str]
    default_aspect: ClassVar[str]
    #: (source field, target field) pairs scored and averaged.
    directions: ClassVar[tuple[tuple[str, str], ...]]

    def __init__(
        self, lm: str | LanguageModel = DEFAULT_LM, aspect: str | None = None,
        stride: int | None = None,
    ) -> None:
        super().__init__(lm, stride)
        aspects = sorted(TEMPLATES[self.task])
        check(aspect is None or aspect in aspects, "aspect", type(self).__name__,
              f"None or one of {aspects}", aspect)
        self.aspect = aspect

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        model = self.resolved_lm()
        aspect = self.aspect or self.default_aspect
        metric = self.metrics[0].name
        memo: dict[tuple[str, str], TokenScores] = {}
        out: list[CaseResult] = []
        for case in cases:
            per_direction: list[dict[str, Any]] = []
            raw: list[float] = []
            for source_field, target_field in self.directions:
                source = str(getattr(case, source_field) or "").strip()
                target = str(getattr(case, target_field) or "").strip()
                if not source or not target:
                    break
                key = (build_prompt(self.task, aspect, source), " " + target)
                if key not in memo:
                    memo[key] = score_text(model, key[1], prompt=key[0], stride=self.stride)
                scores = memo[key]
                if len(scores.logprobs) == 0:
                    break
                raw.append(-scores.mean_nll)
                per_direction.append({"source": source_field, "target": target_field,
                                      "avg_logprob": round(-scores.mean_nll, 5),
                                      "n_tokens": len(scores.logprobs)})
            if len(per_direction) != len(self.directions):
                out.append(CaseResult.skipped(self.metric_names(), "an empty source or target"))
                continue
            value = min(sum(raw) / len(raw), 0.0)
            out.append(CaseResult.ok(
                {metric: value},
                f"GPTScore ({self.task}, {aspect}) {value:.3f} average log-likelihood"
                + (" over both directions" if len(per_direction) > 1 else ""),
                {"aspect": aspect, "directions": per_direction, "model": model.model_id},
            ))
        return out


def _metric(name: str, text: str) -> tuple[MetricSpec, ...]:
    return (MetricSpec(name, text, range=(float("-inf"), 0.0), primary=True),)


@register
class GPTScoreSummary(_GPTScore):
    """Summary (answer) given the document (question), no reference."""

    name = "gptscore_summary"
    description = "GPTScore of the summary (answer) given the document (question), no reference."
    requires = ("question", "actual_answer")
    task = "summarization"
    default_aspect = "consistency"
    directions = (("question", "actual_answer"),)
    metrics = _metric("gptscore_summary", "mean log p(summary tokens | instruction + document)")


@register
class GPTScoreSummaryRef(_GPTScore):
    """Summary against the reference summary, both directions averaged."""

    name = "gptscore_summary_ref"
    description = (
        "GPTScore of the summary against the reference summary (expected answer), "
        "reference->hypothesis and hypothesis->reference averaged."
    )
    requires = ("expected_answer", "actual_answer")
    task = "summarization"
    default_aspect = "consistency"
    directions = (("expected_answer", "actual_answer"), ("actual_answer", "expected_answer"))
    metrics = _metric("gptscore_summary_ref", "mean of both directions' average log-likelihood")


@register
class GPTScoreTranslation(_GPTScore):
    """Translation against the reference translation, both directions averaged."""

    name = "gptscore_translation"
    description = (
        "GPTScore of a machine translation against the reference translation (expected answer), "
        "both directions averaged."
    )
    requires = ("expected_answer", "actual_answer")
    task = "translation"
    default_aspect = "accuracy"
    directions = (("expected_answer", "actual_answer"), ("actual_answer", "expected_answer"))
    metrics = _metric("gptscore_translation", "mean of both directions' average log-likelihood")


@register
class GPTScoreQA(_GPTScore):
    """Answer given the question."""

    name = "gptscore_qa"
    description = "GPTScore of the answer given the question."
    requires = ("question", "actual_answer")
    task = "qa"
    default_aspect = "correctness"
    directions = (("question", "actual_answer"),)
    metrics = _metric("gptscore_qa", "mean log p(answer tokens | instruction + question)")
