"""LLM-judge RAG metrics: faithfulness, context precision, context recall, context relevancy.

Each has a reproducible, judge-free counterpart named in its description; prefer those for
regression gates and use these where their extra nuance matters (and calibrate them on labels).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from assay.backends.llm.client import JsonOutcome, JsonTask
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.judge_base import JudgeEvaluator, PlannedCall, context_text, share
from assay.evaluators.judge_tasks import extract_statements, numbered_verdicts, verify_statements
from assay.evaluators.registry import register
from assay.text import split_sentences


def _verdict_details(items: Sequence[str], verdicts: Sequence[tuple[bool, str]],
                     key: str) -> list[dict[str, object]]:
    return [{key: item, "verdict": flag, "reason": reason}
            for item, (flag, reason) in zip(items, verdicts, strict=True)]


@register
class JudgeFaithfulness(JudgeEvaluator):
    """Claims are extracted from the answer, then each is verified against the retrieved
    context; the score is supported claims / all claims.
    """

    name = "judge_faithfulness"
    description = (
        "LLM judge: share of the answer's claims supported by the retrieved context (claims "
        "extracted, then each verified)."
    )
    counterpart = ("emb_groundedness", "unsupported_facts")
    requires = ("question", "retrieved_context", "actual_answer")
    metrics = (
        MetricSpec("judge_faithfulness", "supported claims / all claims of the answer",
                   threshold=0.8, primary=True),
    )

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        claims = self.run([
            extract_statements(c.question or "", c.actual_answer or "")
            if (c.actual_answer or "").strip() else None
            for c in cases
        ])
        checks = self.run([
            verify_statements(o.value, context_text(c)) if o is not None and o.ok and o.value
            else None
            for c, o in zip(cases, claims, strict=True)
        ])
        return [self.finish([a, b], self._result, a, b)
                for a, b in zip(claims, checks, strict=True)]

    def _result(self, claims: JsonOutcome | None, checks: JsonOutcome | None) -> CaseResult:
        if claims is None:
            return self.skip("the answer is empty")
        if checks is None:
            return self.skip("the judge found no claims in the answer")
        flags = [flag for flag, _ in checks.value]
        value = share(flags)
        return CaseResult.ok(
            {self.name: value},
            f"{sum(flags)} of {len(flags)} claims supported by the context",
            {"claims": _verdict_details(claims.value, checks.value, "claim")},
        )

    def plan(self, case: TestCase) -> list[PlannedCall]:
        answer = case.actual_answer or ""
        stand_in = split_sentences(answer) or [answer]
        return [
            (extract_statements(case.question or "", answer).request, len(answer) // 4 + 20),
            (verify_statements(stand_in, context_text(case)).request, 25 * len(stand_in)),
        ]


@register
class JudgeContextPrecision(JudgeEvaluator):
    """Each retrieved chunk is judged useful or not for reaching the expected answer; the score
    is rank-weighted precision (average precision over the useful chunks), so useful chunks
    ranked first score higher.
    """

    name = "judge_context_precision"
    description = (
        "LLM judge: rank-weighted precision of the retrieved chunks judged useful for the "
        "expected answer."
    )
    counterpart = ("retrieval",)
    counterpart_use: ClassVar[dict[str, str]] = {
        "retrieval": "precision_at_k, average_precision, ndcg on relevant_ids",
    }
    requires = ("question", "expected_answer", "retrieved_context")
    metrics = (
        MetricSpec("judge_context_precision", "average precision of useful chunks by rank",
                   threshold=0.7, primary=True),
    )

    def _task(self, case: TestCase) -> object:
        return numbered_verdicts(
            "chunk_usefulness", case.retrieved_context or [], "chunks",
            {"question": case.question or "", "expected_answer": case.expected_answer or ""},
        )

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        outcomes = self.run([self._task(c) if c.retrieved_context else None  # type: ignore[misc]
                             for c in cases])
        return [self.finish([o], self._result, c, o)
                for c, o in zip(cases, outcomes, strict=True)]

    def _result(self, case: TestCase, outcome: JsonOutcome | None) -> CaseResult:
        if outcome is None:
            return self.skip("no retrieved context")
        flags = [flag for flag, _ in outcome.value]
        value = average_precision(flags)
        details = {"chunks": _verdict_details(case.retrieved_context or [], outcome.value,
                                              "chunk")}
        if not any(flags):
            return CaseResult.ok({self.name: value}, "no chunk was judged useful", details)
        ranks = [i for i, f in enumerate(flags, 1) if f]
        return CaseResult.ok({self.name: value},
                             f"useful chunks at ranks {ranks} of {len(flags)}", details)

    def plan(self, case: TestCase) -> list[PlannedCall]:
        return [(self._task(case).request, 25 * len(case.retrieved_context or []))]  # type: ignore[attr-defined]


def average_precision(flags: Sequence[bool]) -> float:
    """Mean of precision@k over the ranks k of useful items (0 when none is useful).

    Example:
        >>> round(average_precision([True, False, True]), 4)
        0.8333
        >>> average_precision([False, False])
        0.0
    """
    hits, total = 0, 0.0
    for rank, flag in enumerate(flags, start=1):
        if flag:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


class _SentenceShare(JudgeEvaluator):
    """Share of a text's sentences that the judge accepts, one numbered verdict per sentence in
    one call; subclasses name the sentences, the prompt and its variables."""

    prompt: ClassVar[str]
    #: The skip reason of a case without sentences.
    no_sentence: ClassVar[str]
    #: What the explanation calls the accepted sentences ("3 of 4 <accepted>").
    accepted: ClassVar[str]

    def sentences(self, case: TestCase) -> list[str]:
        """The sentences judged one by one."""
        raise NotImplementedError

    def variables(self, case: TestCase) -> dict[str, str]:
        """The prompt's other variables."""
        raise NotImplementedError

    def _task(self, case: TestCase, sentences: list[str]) -> JsonTask:
        return numbered_verdicts(self.prompt, sentences, "sentences", self.variables(case))

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        sentences = [self.sentences(c) for c in cases]
        outcomes = self.run([
            self._task(c, s) if s else None for c, s in zip(cases, sentences, strict=True)
        ])
        return [self.finish([o], self._result, s, o)
                for s, o in zip(sentences, outcomes, strict=True)]

    def _result(self, sentences: list[str], outcome: JsonOutcome | None) -> CaseResult:
        if outcome is None:
            return self.skip(self.no_sentence)
        flags = [flag for flag, _ in outcome.value]
        return CaseResult.ok(
            {self.name: share(flags)},
            f"{sum(flags)} of {len(flags)} {self.accepted}",
            {"sentences": _verdict_details(sentences, outcome.value, "sentence")},
        )

    def plan(self, case: TestCase) -> list[PlannedCall]:
        s = self.sentences(case) or [""]
        return [(self._task(case, s).request, 25 * len(s))]


@register
class JudgeContextRecall(_SentenceShare):
    """The expected answer is split into sentences; each is judged attributable to the retrieved
    context or not; the score is attributable sentences / all.
    """

    name = "judge_context_recall"
    description = (
        "LLM judge: share of the expected answer's sentences attributable to the retrieved "
        "context."
    )
    counterpart = ("retrieval", "emb_context_relevancy")
    counterpart_use: ClassVar[dict[str, str]] = {
        "retrieval": "recall_at_k on relevant_ids",
        "emb_context_relevancy": "emb_context_soft_recall",
    }
    requires = ("expected_answer", "retrieved_context")
    metrics = (
        MetricSpec("judge_context_recall", "attributable expected-answer sentences / all",
                   threshold=0.8, primary=True),
    )
    prompt = "attribute_sentences"
    no_sentence = "the expected answer has no sentence"
    accepted = "expected-answer sentences found in the context"

    def sentences(self, case: TestCase) -> list[str]:
        return split_sentences(case.expected_answer)

    def variables(self, case: TestCase) -> dict[str, str]:
        return {"context": context_text(case)}


@register
class JudgeContextRelevancy(_SentenceShare):
    """The retrieved context is split into sentences; each is judged relevant to the question or
    not; the score is relevant sentences / all (low values mean noisy retrieval).
    """

    name = "judge_context_relevancy"
    description = (
        "LLM judge: share of retrieved-context sentences relevant to the question."
    )
    counterpart = ("emb_context_relevancy",)
    requires = ("question", "retrieved_context")
    metrics = (
        MetricSpec("judge_context_relevancy", "relevant context sentences / all",
                   threshold=0.5, primary=True),
    )
    prompt = "relevant_sentences"
    no_sentence = "the retrieved context has no sentence"
    accepted = "context sentences relevant to the question"

    def sentences(self, case: TestCase) -> list[str]:
        return [s for chunk in case.retrieved_context or [] for s in split_sentences(chunk)]

    def variables(self, case: TestCase) -> dict[str, str]:
        return {"question": case.question or ""}
