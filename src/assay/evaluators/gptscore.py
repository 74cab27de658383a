"""GPTScore (Fu et al., 2023): the average log-likelihood of a target under an instruction.

``GPTScore(h | d, a, S) = mean_t log p(h_t | h_<t, T(d, a, S))``: the instruction template
``T`` states the task and the aspect, the source is filled in, and the language model scores
the tokens of the target only. Every aspect of the reference catalogue (H2O Sonar's GPTScore
evaluators, which take the GPTScore paper's templates) is a metric, all scored in one run by
default (``aspects`` selects a subset); the first aspect is the primary metric, as in the
reference:

- ``gptscore_summary`` (no reference): semantic coverage, factuality, consistency,
  informativeness, coherence, relevance, fluency; ``"<instruction>: {src}\\n\\nTl;dr\\n"``
  followed by the summary.
- ``gptscore_summary_ref`` and ``gptscore_translation`` (against the expected answer): each
  instruction ``"... {ref_hypo} In other words, "`` is scored in both directions (reference →
  hypothesis and hypothesis → reference) and the two averaged.
- ``gptscore_qa``: the GPTScore dialogue aspects (interest, engagement, understandability,
  relevance, specific, correctness, semantically appropriate, fluency): the conversation
  ``"\\nhuman: {question}\\nAI: {answer}"`` fills a yes / no question about the AI's responses
  and the target is ``"Answer: Yes"``.

Values are the paper's average log-likelihood (≤ 0, higher is better); H2O Sonar reports its
negation, the average negative log-likelihood (lower is better). Compare under the same model
only: no default threshold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from assay.backends.lm import DEFAULT_LM, LanguageModel, TokenScores, score_text
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.lm_base import LMEvaluator
from assay.evaluators.registry import register
from assay.evaluators.summary_source import DEFAULT_SUMMARY_SOURCE, check_source, source_text
from assay.params import check

_TLDR = "\n\nTl;dr\n"
_DIALOGUE = (
    "Answer the question based on the conversation between a human and AI.\n"
    "Question: Are the responses of AI {what}? (a) Yes. (b) No.\nConversation: {{src}}\n"
)

#: ``{task: {aspect: template}}``; ``{src}`` is the source, the target follows the template.
#: The reference's aspects in its order (the first is the primary metric).
TEMPLATES: dict[str, dict[str, str]] = {
    "summarization": {
        "semantic_coverage": "Generate a summary with as much semantic coverage as possible "
        "for the following text: {src}" + _TLDR,
        "factuality": "Generate a summary with consistent facts for the following text: {src}"
        + _TLDR,
        "consistency": "Generate factually consistent summary for the following text: {src}"
        + _TLDR,
        "informativeness": "Generate an informative summary that captures the key points of "
        "the following text: {src}" + _TLDR,
        "coherence": "Generate a coherent summary for the following text: {src}" + _TLDR,
        "relevance": "Generate a relevant summary with consistent details for the following "
        "text: {src}" + _TLDR,
        "fluency": "Generate a fluent and grammatical summary for the following text: {src}"
        + _TLDR,
    },
    "summarization_ref": {
        "semantic_coverage": "Rewrite the following text with the same semantics. {src} "
        "In other words, ",
        "factuality": "Rewrite the following text with consistent facts. {src} In other words, ",
        "informativeness": "Rewrite the following text with its core information. {src} "
        "In other words, ",
        "coherence": "Rewrite the following text into a coherent text. {src} In other words, ",
        "relevance": "Rewrite the following text with consistent details. {src} In other words, ",
        "fluency": "Rewrite the following text into a fluent and grammatical text. {src} "
        "In other words, ",
    },
    "translation": {
        "accuracy": "Rewrite the following text with its core information and consistent "
        "facts: {src} In other words, ",
        "fluency": "Rewrite the following text to make it more grammatical and well-written: "
        "{src} In other words, ",
        "mqm": "Rewrite the following text into high-quality text with its core information: "
        "{src} In other words, ",
    },
    "qa": {
        aspect: _DIALOGUE.format(what=what)
        for aspect, what in (
            ("interest", "interesting"),
            ("engagement", "engaging"),
            ("understandability", "understandable"),
            ("relevance", "relevant to the conversation"),
            ("specific", "generic or specific to the conversation"),
            ("correctness", "correct to conversations"),
            ("semantically_appropriate", "semantically appropriate"),
            ("fluency", "fluently written"),
        )
    },
}

#: What each aspect measures (the reference's metric descriptions).
_MEANING = {
    "semantic_coverage": "semantic content units of the source covered",
    "factuality": "factual statements of the source preserved",
    "consistency": "consistency of the information given",
    "informativeness": "key ideas of the source captured",
    "coherence": "how much the text makes sense",
    "relevance": "relevance to the source",
    "fluency": "well-written and grammatical",
    "accuracy": "no inaccurate, missing or unfactual content",
    "mqm": "overall quality (multidimensional quality metrics)",
    "interest": "the AI's responses are interesting",
    "engagement": "the AI's responses are engaging",
    "understandability": "the AI's responses are understandable",
    "specific": "the AI's responses are specific to the conversation",
    "correctness": "the AI's responses are correct",
    "semantically_appropriate": "the AI's responses are semantically appropriate",
}


def build_prompt(task: str, aspect: str, source: str) -> str:
    """The instruction prompt preceding the target.

    Example:
        >>> build_prompt("translation", "fluency", "Le prix est 12 euros.")
        'Rewrite the following text to make it more grammatical and well-written: Le prix est 12 euros. In other words, '
    """  # noqa: E501
    return TEMPLATES[task][aspect].format(src=source)


def conversation(question: str, answer: str) -> str:
    """The QA aspects' ``{src}``: the question and the answer as a two-turn conversation.

    Example:
        >>> conversation("What is the fee?", "12 euros.")
        '\\nhuman: What is the fee?\\nAI: 12 euros.'
    """
    return f"\nhuman: {question.strip()}\nAI: {answer.strip()}"


def aspect_metrics(name: str, task: str) -> dict[str, MetricSpec]:
    """The metric of each aspect of ``task`` for the evaluator ``name``, in the reference's
    order (the first is primary).

    Example:
        >>> {a: m.name for a, m in aspect_metrics("gptscore_translation", "translation").items()}
        {'accuracy': 'gptscore_translation_accuracy', 'fluency': 'gptscore_translation_fluency', 'mqm': 'gptscore_translation_mqm'}
    """  # noqa: E501
    return {
        aspect: MetricSpec(f"{name}_{aspect}",
                           f"GPTScore, {aspect.replace('_', ' ')}: {_MEANING[aspect]} "
                           "(mean log-likelihood)",
                           range=(float("-inf"), 0.0), primary=index == 0)
        for index, aspect in enumerate(TEMPLATES[task])
    }


class _GPTScore(LMEvaluator):
    """A GPTScore evaluator: a subclass declares its ``name`` and ``task``; its metrics (one per
    aspect of the task, ``aspect_metric`` maps them) are derived from both, once."""

    task: ClassVar[str]
    #: Each aspect's metric name (derived from ``name`` and ``task``).
    aspect_metric: ClassVar[dict[str, str]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        name, task = getattr(cls, "name", None), getattr(cls, "task", None)
        if name is not None and task is not None:  # a concrete evaluator, not a shared base
            specs = aspect_metrics(name, task)
            cls.metrics = tuple(specs.values())
            cls.aspect_metric = {aspect: spec.name for aspect, spec in specs.items()}

    def __init__(
        self, lm: str | LanguageModel = DEFAULT_LM, aspects: Sequence[str] | None = None,
        stride: int | None = None,
    ) -> None:
        super().__init__(lm, stride)
        known = list(TEMPLATES[self.task])
        check(aspects is None or (not isinstance(aspects, str) and bool(aspects)
                                  and all(a in known for a in aspects)),
              "aspects", type(self).__name__, f"None (all) or a non-empty list of {known}",
              aspects)
        self.aspects = None if aspects is None else list(dict.fromkeys(aspects))

    def pairs(self, case: TestCase, template: str) -> list[tuple[str, str]]:
        """The (prompt, target) pairs scored and averaged for one aspect of ``case``."""
        raise NotImplementedError

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        model = self.resolved_lm()
        chosen = self.aspects or list(TEMPLATES[self.task])
        memo: dict[tuple[str, str], TokenScores] = {}
        out: list[CaseResult] = []
        for case in cases:
            values: dict[str, float] = {}
            per_aspect: dict[str, Any] = {}
            reason = None
            for aspect in chosen:
                pairs = self.pairs(case, TEMPLATES[self.task][aspect])
                if not all(p.strip() and t.strip() for p, t in pairs):
                    reason = "an empty source or target"
                    break
                raw: list[float] = []
                for key in pairs:
                    if key not in memo:
                        memo[key] = score_text(model, key[1], prompt=key[0], stride=self.stride)
                    if len(memo[key].logprobs) == 0:
                        reason = "the target has no tokens"
                        break
                    raw.append(-memo[key].mean_nll)
                if reason:
                    break
                values[self.aspect_metric[aspect]] = min(sum(raw) / len(raw), 0.0)
                per_aspect[aspect] = {"avg_logprob": [round(v, 5) for v in raw],
                                      "n_tokens": [len(memo[k].logprobs) for k in pairs]}
            if reason:
                out.append(CaseResult.skipped(self.metric_names(), reason))
                continue
            out.append(self._result(values, per_aspect, model.model_id))
        return out

    def _result(self, values: dict[str, float], per_aspect: dict[str, Any],
                model_id: str) -> CaseResult:
        skipped = [m for m in self.metric_names() if m not in values]
        result = CaseResult.ok(
            values,
            "GPTScore " + ", ".join(
                f"{a.replace('_', ' ')} {values[self.aspect_metric[a]]:.3f}" for a in per_aspect),
            {"aspects": per_aspect, "directions": len(next(iter(per_aspect.values()))["n_tokens"]),
             "model": model_id},
        )
        if skipped:
            result.outcomes.update(CaseResult.skipped(
                skipped, f"aspect not selected (aspects={self.aspects})").outcomes)
        return result


@register
class GPTScoreSummary(_GPTScore):
    """Summary (answer) given the source document, no reference; every summarization aspect."""

    name = "gptscore_summary"
    description = (
        "GPTScore of the summary (answer) given the source document (retrieved context by "
        "default), no reference: semantic coverage (primary), factuality, consistency, "
        "informativeness, coherence, relevance, fluency."
    )
    requires = (DEFAULT_SUMMARY_SOURCE, "actual_answer")
    task = "summarization"

    def __init__(
        self, lm: str | LanguageModel = DEFAULT_LM, aspects: Sequence[str] | None = None,
        stride: int | None = None, source: str = DEFAULT_SUMMARY_SOURCE,
    ) -> None:
        super().__init__(lm, aspects, stride)
        self.source = check_source(source, type(self).__name__)
        self.requires = (self.source, "actual_answer")  # type: ignore[misc]

    def pairs(self, case: TestCase, template: str) -> list[tuple[str, str]]:
        document = source_text(case, self.source)
        return [(template.format(src=document.strip()), (case.actual_answer or "").strip())]


class _BothDirections(_GPTScore):
    requires = ("expected_answer", "actual_answer")

    def pairs(self, case: TestCase, template: str) -> list[tuple[str, str]]:
        ref, hyp = (case.expected_answer or "").strip(), (case.actual_answer or "").strip()
        return [(template.format(src=ref), hyp), (template.format(src=hyp), ref)]


@register
class GPTScoreSummaryRef(_BothDirections):
    """Summary against the reference summary, both directions averaged; every aspect."""

    name = "gptscore_summary_ref"
    description = (
        "GPTScore of the summary against the reference summary (expected answer), "
        "reference->hypothesis and hypothesis->reference averaged: semantic coverage (primary), "
        "factuality, informativeness, coherence, relevance, fluency."
    )
    task = "summarization_ref"


@register
class GPTScoreTranslation(_BothDirections):
    """Translation against the reference translation, both directions averaged; every aspect."""

    name = "gptscore_translation"
    description = (
        "GPTScore of a machine translation against the reference translation (expected answer), "
        "both directions averaged: accuracy (primary), fluency, MQM."
    )
    task = "translation"


@register
class GPTScoreQA(_GPTScore):
    """The question and answer as a conversation, scored on the GPTScore dialogue aspects."""

    name = "gptscore_qa"
    description = (
        "GPTScore of 'Answer: Yes' to questions about the conversation (question, answer): "
        "interest (primary), engagement, understandability, relevance, specific, correctness, "
        "semantically appropriate, fluency."
    )
    requires = ("question", "actual_answer")
    task = "qa"

    def pairs(self, case: TestCase, template: str) -> list[tuple[str, str]]:
        if not (case.actual_answer or "").strip():
            return [("", "")]
        history = conversation(case.question or "", case.actual_answer or "")
        return [(template.format(src=history), "Answer: Yes")]
