"""LLM-judge answer metrics: answer relevancy, answer correctness, Q&A accuracy, completeness.

Each has a reproducible, judge-free counterpart named in its description.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.backends.llm.client import JsonOutcome, JsonTask
from assay.backends.llm.factory import JudgeSpec
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.judge_base import EmbeddingJudgeEvaluator, JudgeEvaluator, PlannedCall, share
from assay.evaluators.judge_one_call import OneCallJudge
from assay.evaluators.judge_tasks import (
    extract_statements,
    generate_questions,
    score_task,
    verify_statements,
)
from assay.evaluators.registry import register
from assay.params import check, check_int
from assay.text import split_sentences


@register
class JudgeAnswerRelevancy(EmbeddingJudgeEvaluator):
    """The judge writes ``n_questions`` questions that the answer answers; the score is their
    mean cosine similarity to the original question (embedded with ``embedder``). A
    noncommittal answer (evasive, "I don't know") scores 0, and says so.
    """

    name = "judge_answer_relevancy"
    description = (
        "LLM judge + embeddings: mean cosine between the question and questions generated from "
        "the answer (0 when the answer is noncommittal)."
    )
    counterpart = ("emb_answer_relevancy",)
    requires = ("question", "actual_answer")
    metrics = (
        MetricSpec("judge_answer_relevancy", "mean cosine of generated questions to the question",
                   range=(-1.0, 1.0), threshold=0.7, primary=True),
    )

    def __init__(self, judge: JudgeSpec = None, embedder: Any = "minilm",
                 n_questions: int = 3) -> None:
        super().__init__(judge, embedder)
        check_int(n_questions, "n_questions", type(self).__name__)
        self.n_questions = n_questions

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        outcomes = self.run([
            generate_questions(c.actual_answer or "", self.n_questions)
            if (c.actual_answer or "").strip() else None
            for c in cases
        ])
        return [self.finish([o], self._result, c, o)
                for c, o in zip(cases, outcomes, strict=True)]

    def _result(self, case: TestCase, outcome: JsonOutcome | None) -> CaseResult:
        if outcome is None:
            return self.skip("the answer is empty")
        questions, noncommittal = outcome.value
        if noncommittal:
            return CaseResult.ok({self.name: 0.0}, "the judge found the answer noncommittal",
                                 {"questions": questions, "noncommittal": True})
        rows = self.embed([case.question or "", *questions])
        cosines = [float(c) for c in np.clip(rows[1:] @ rows[0], -1.0, 1.0)]  # float32 rounding
        return CaseResult.ok(
            {self.name: float(np.mean(cosines))},
            f"{len(questions)} generated questions, mean cosine {np.mean(cosines):.2f}",
            {"questions": [{"question": q, "cosine": round(c, 4)}
                           for q, c in zip(questions, cosines, strict=True)],
             "noncommittal": False},
        )

    def plan(self, case: TestCase) -> list[PlannedCall]:
        task = generate_questions(case.actual_answer or "", self.n_questions)
        return [(task.request, 25 * self.n_questions + 10)]


def factual_f1(tp: int, fp: int, fn: int) -> float:
    """Factuality F1 = TP / (TP + 0.5 (FP + FN)) (0 when there is nothing to compare).

    Example:
        >>> factual_f1(3, 1, 1)
        0.75
    """
    denominator = tp + 0.5 * (fp + fn)
    return tp / denominator if denominator else 0.0


@register
class JudgeAnswerCorrectness(EmbeddingJudgeEvaluator):
    """Statements are extracted from the answer and from the expected answer; answer statements
    supported by the expected answer are true positives (else false positives), expected
    statements the answer does not cover are false negatives. Correctness is
    ``weights[0] * F1 + weights[1] * similarity`` (weights normalised; default 0.75 / 0.25), where
    similarity is the embedding cosine of the two answers (negative cosines count as 0).
    """

    name = "judge_answer_correctness"
    description = (
        "LLM judge + embeddings: 0.75 x factuality F1 (TP / (TP + 0.5 (FP + FN)) over extracted "
        "statements) + 0.25 x semantic similarity; weights configurable."
    )
    counterpart = ("emb_answer_similarity", "emb_answer_accuracy", "token_f1")
    requires = ("question", "expected_answer", "actual_answer")
    metrics = (
        MetricSpec("judge_answer_correctness", "weighted factuality F1 and semantic similarity",
                   threshold=0.7, primary=True),
        MetricSpec("judge_factual_f1", "F1 of answer statements against expected statements",
                   threshold=0.7),
    )

    def __init__(self, judge: JudgeSpec = None, embedder: Any = "minilm",
                 weights: Sequence[float] = (0.75, 0.25)) -> None:
        super().__init__(judge, embedder)
        ok = (len(weights) == 2 and all(isinstance(w, int | float) and w >= 0 for w in weights)
              and sum(weights) > 0)
        check(ok, "weights", type(self).__name__,
              "two non-negative numbers (factuality, similarity) with a positive sum", weights)
        self.weights = tuple(float(w) for w in weights)

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        extracted = self.run([
            task
            for c in cases
            for task in (extract_statements(c.question or "", c.actual_answer or ""),
                         extract_statements(c.question or "", c.expected_answer or ""))
        ])
        mine, theirs = extracted[0::2], extracted[1::2]
        checks = self.run([
            task
            for c, a, e in zip(cases, mine, theirs, strict=True)
            for task in (
                verify_statements(a.value, c.expected_answer or "")
                if a is not None and a.ok and a.value and e is not None and e.ok else None,
                verify_statements(e.value, c.actual_answer or "")
                if e is not None and e.ok and e.value and a is not None and a.ok else None,
            )
        ])
        similarity = self._similarities(cases) if self.weights[1] > 0 else [0.0] * len(cases)
        return [
            self.finish([a, e, pa, pe], self._result, a, e, pa, pe, s)
            for a, e, pa, pe, s in zip(mine, theirs, checks[0::2], checks[1::2], similarity,
                                       strict=True)
        ]

    def _similarities(self, cases: Sequence[TestCase]) -> list[float]:
        pairs = [(c.actual_answer or "", c.expected_answer or "") for c in cases]
        rows = self.embed([t for pair in pairs for t in pair])
        return [float(np.clip(rows[2 * i] @ rows[2 * i + 1], -1.0, 1.0)) for i in range(len(pairs))]

    def _result(self, mine: JsonOutcome | None, theirs: JsonOutcome | None,
                mine_checked: JsonOutcome | None, theirs_checked: JsonOutcome | None,
                cosine: float) -> CaseResult:
        assert mine is not None and theirs is not None
        answer_flags = [f for f, _ in mine_checked.value] if mine_checked else []
        expected_flags = [f for f, _ in theirs_checked.value] if theirs_checked else []
        if not answer_flags and not expected_flags:
            return self.skip("the judge found no statements in either answer")
        tp = sum(answer_flags)
        fp = len(answer_flags) - tp
        fn = len(expected_flags) - sum(expected_flags)
        f1 = factual_f1(tp, fp, fn)
        similarity = max(0.0, cosine)
        w_fact, w_sim = self.weights
        value = (w_fact * f1 + w_sim * similarity) / (w_fact + w_sim)
        return CaseResult.ok(
            {self.name: value, "judge_factual_f1": f1},
            f"TP={tp} FP={fp} FN={fn}, factual F1 {f1:.2f}, similarity {similarity:.2f}",
            {
                "answer_statements": [{"statement": s, "in_expected": f} for s, f in
                                      zip(mine.value, answer_flags, strict=False)],
                "expected_statements": [{"statement": s, "in_answer": f} for s, f in
                                        zip(theirs.value, expected_flags, strict=False)],
                "tp": tp, "fp": fp, "fn": fn,
                "similarity": similarity, "cosine": cosine, "weights": list(self.weights),
            },
        )

    def plan(self, case: TestCase) -> list[PlannedCall]:
        q, a, e = case.question or "", case.actual_answer or "", case.expected_answer or ""
        sa, se = split_sentences(a) or [a], split_sentences(e) or [e]
        return [
            (extract_statements(q, a).request, len(a) // 4 + 20),
            (extract_statements(q, e).request, len(e) // 4 + 20),
            (verify_statements(sa, e).request, 25 * len(sa)),
            (verify_statements(se, a).request, 25 * len(se)),
        ]


@register
class JudgeQAAccuracy(OneCallJudge):
    """The judge scores the semantic equivalence of the answer with the expected answer from 0
    to 1; a case passes at 0.95 or more by default.
    """

    name = "judge_qa_accuracy"
    description = (
        "LLM judge: semantic equivalence of the answer with the expected answer (0-1; passes at "
        "0.95)."
    )
    counterpart = ("emb_answer_accuracy", "exact_match", "token_f1")
    requires = ("question", "expected_answer", "actual_answer")
    metrics = (
        MetricSpec("judge_qa_accuracy", "judged equivalence with the expected answer",
                   threshold=0.95, primary=True),
    )

    def judge_task(self, case: TestCase) -> JsonTask:
        return score_task("equivalence", {"question": case.question or "",
                                          "expected_answer": case.expected_answer or "",
                                          "answer": case.actual_answer or ""}, 0.0, 1.0)

    def read_reply(self, outcome: JsonOutcome) -> CaseResult:
        value, reason = outcome.value
        return CaseResult.ok({self.name: value}, reason or f"equivalence {value:.2f}",
                             {"reason": reason})


@register
class JudgeCompleteness(JudgeEvaluator):
    """The expected answer is broken into facts; each is judged mentioned by the answer or not;
    completeness is facts covered / all facts.
    """

    name = "judge_completeness"
    description = (
        "LLM judge: share of the expected answer's facts that the answer mentions (facts "
        "covered / all)."
    )
    counterpart = ("emb_completeness",)
    requires = ("question", "expected_answer", "actual_answer")
    metrics = (
        MetricSpec("judge_completeness", "expected facts covered by the answer / all",
                   threshold=0.8, primary=True),
    )

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        facts = self.run([extract_statements(c.question or "", c.expected_answer or "")
                          for c in cases])
        checks = self.run([
            verify_statements(f.value, c.actual_answer or "")
            if f is not None and f.ok and f.value else None
            for c, f in zip(cases, facts, strict=True)
        ])
        return [self.finish([f, k], self._result, f, k)
                for f, k in zip(facts, checks, strict=True)]

    def _result(self, facts: JsonOutcome | None, checks: JsonOutcome | None) -> CaseResult:
        assert facts is not None
        if checks is None:
            return self.skip("the judge found no facts in the expected answer")
        flags = [flag for flag, _ in checks.value]
        return CaseResult.ok(
            {self.name: share(flags)},
            f"{sum(flags)} of {len(flags)} expected facts covered",
            {"facts": [{"fact": s, "covered": f, "reason": r}
                       for s, (f, r) in zip(facts.value, checks.value, strict=True)]},
        )

    def plan(self, case: TestCase) -> list[PlannedCall]:
        q, a, e = case.question or "", case.actual_answer or "", case.expected_answer or ""
        se = split_sentences(e) or [e]
        return [(extract_statements(q, e).request, len(e) // 4 + 20),
                (verify_statements(se, a).request, 25 * len(se))]
