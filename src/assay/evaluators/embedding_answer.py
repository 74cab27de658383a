"""Embedding answer metrics: relevancy to the question, similarity to and accuracy against the
expected answer, all from sentence-by-sentence similarity matrices."""

from __future__ import annotations

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, Embedder
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.embedding_base import (
    EmbeddingEvaluator,
    SentenceVectors,
    WeightedEmbeddingEvaluator,
    cosine_matrix,
    cosine_metric,
    matched_sentences,
    sentence_weights,
    sentences_of,
    stack,
)
from assay.evaluators.explain import quote, rounded
from assay.evaluators.registry import register
from assay.params import check_choice, check_int
from assay.text.normalize import normalize_squad, squad_tokens

#: How :class:`EmbAnswerSimilarity` maps a negative cosine into [0, 1].
NEGATIVES = ("clip", "rescale")

SHORT_METHODS = ("edit", "exact", "jaccard")


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions of characters).

    Example:
        >>> levenshtein("kitten", "sitting")
        3
    """
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def short_answer_score(actual: str, expected: str, method: str) -> float:
    """Lexical agreement of two short answers after SQuAD normalisation, in [0, 1]:
    ``edit`` (1 - normalised edit distance), ``exact`` match or token ``jaccard``.

    Example:
        >>> short_answer_score("12 euros", "12 euro", "edit")
        0.875
        >>> short_answer_score("The 12 euros", "12 euros", "exact")
        1.0
    """
    a, b = normalize_squad(actual), normalize_squad(expected)
    if method == "exact":
        return float(a == b)
    if method == "jaccard":
        ta, tb = set(squad_tokens(actual)), set(squad_tokens(expected))
        return 1.0 if not ta and not tb else len(ta & tb) / len(ta | tb)
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest


def _answer_sentences(case: TestCase) -> tuple[list[str], list[str]] | str:
    """The actual and expected answers' sentences, or why the case is skipped."""
    actual, expected = sentences_of(case.actual_answer), sentences_of(case.expected_answer)
    if not actual or not expected:
        return f"the {'actual' if not actual else 'expected'} answer is empty"
    return actual, expected


@register
class EmbAnswerRelevancy(WeightedEmbeddingEvaluator):
    """Relevance of each answer sentence to the question (HCAT §3.4): its best similarity to any
    question sentence, summarised as mean, weighted mean, max and min over answer sentences."""

    name = "emb_answer_relevancy"
    description = (
        "Per answer sentence, max cosine similarity to a question sentence (HCAT §3.4): "
        "mean, weighted mean, max and min."
    )
    requires = ("question", "actual_answer")
    metrics = (
        cosine_metric("emb_answer_relevancy_mean",
                      "mean over answer sentences of the max similarity to a question sentence",
                      threshold=0.4, primary=True),
        cosine_metric("emb_answer_relevancy_weighted",
                      "weighted mean (weights parameter) over answer sentences of the max "
                      "similarity to a question sentence (HCAT §3.4's weighted form)"),
        cosine_metric("emb_answer_relevancy_max",
                      "similarity of the most relevant answer sentence to the question (H2O "
                      "Sonar's answer relevancy, sentence similarity)"),
        cosine_metric("emb_answer_relevancy_min",
                      "similarity of the least relevant answer sentence to the question"),
    )

    def texts_to_encode(self, case: TestCase) -> list[str]:
        return [*sentences_of(case.question), *sentences_of(case.actual_answer)]

    def score_case(self, case: TestCase, vectors: SentenceVectors) -> CaseResult | str:
        question, answer = sentences_of(case.question), sentences_of(case.actual_answer)
        if not answer or not question:
            return f"the {'answer' if not answer else 'question'} is empty"
        sims = cosine_matrix(stack(vectors, answer), stack(vectors, question)).max(axis=1)
        weights = sentence_weights(answer, self.weights, self.name)
        worst = int(np.argmin(sims))
        return CaseResult.ok(
            {
                "emb_answer_relevancy_mean": float(sims.mean()),
                "emb_answer_relevancy_weighted": float(np.average(sims, weights=weights)),
                "emb_answer_relevancy_max": float(sims.max()),
                "emb_answer_relevancy_min": float(sims[worst]),
            },
            f"least relevant answer sentence ({sims[worst]:.2f}): {quote(answer[worst])!r}",
            {
                "sentences": [quote(s) for s in answer],
                "sims": rounded(sims),
                "question_sentences": len(question),
            },
        )


@register
class EmbAnswerSimilarity(EmbeddingEvaluator):
    """Semantic similarity of the actual to the expected answer, whole and sentence by sentence,
    in ``[0, 1]`` as the evaluator catalogue defines it.

    Args:
        embedder: The embedding model (spec or instance).
        negative: How a cosine below 0 (unrelated answers) becomes a similarity in ``[0, 1]``:
            ``"clip"`` (default: 0, positive cosines unchanged) or ``"rescale"`` (``(1 + cos) /
            2`` throughout). The raw cosine of the whole answers is kept in the details.
    """

    name = "emb_answer_similarity"
    description = (
        "Similarity in [0, 1] of the whole actual and expected answers (cosine, negatives "
        "clipped), and per actual sentence the max similarity to an expected sentence."
    )
    requires = ("actual_answer", "expected_answer")
    metrics = (
        MetricSpec("emb_answer_similarity",
                   "cosine similarity of the whole actual and expected answers, in [0, 1]",
                   threshold=0.7, primary=True),
        MetricSpec("emb_answer_sentence_similarity_mean",
                   "mean over actual sentences of the max similarity to an expected sentence, "
                   "in [0, 1]"),
        MetricSpec("emb_answer_sentence_similarity_min",
                   "min over actual sentences of the max similarity to an expected sentence, "
                   "in [0, 1]"),
    )

    def __init__(self, embedder: str | Embedder = DEFAULT_SPEC, negative: str = "clip") -> None:
        super().__init__(embedder)
        check_choice(negative, NEGATIVES, "negative", "EmbAnswerSimilarity")
        self.negative = negative

    def _unit(self, cosine: float) -> float:
        """A cosine as a similarity in [0, 1]."""
        return max(0.0, cosine) if self.negative == "clip" else (1.0 + cosine) / 2.0

    def texts_to_encode(self, case: TestCase) -> list[str]:
        actual, expected = (case.actual_answer or "").strip(), (case.expected_answer or "").strip()
        sentences = [*sentences_of(case.actual_answer), *sentences_of(case.expected_answer)]
        return [actual, expected, *sentences]

    def score_case(self, case: TestCase, vectors: SentenceVectors) -> CaseResult | str:
        parts = _answer_sentences(case)
        if isinstance(parts, str):
            return parts
        act_s, exp_s = parts
        actual, expected = (case.actual_answer or "").strip(), (case.expected_answer or "").strip()
        cosine = float(cosine_matrix(vectors[actual][None, :], vectors[expected][None, :])[0, 0])
        whole = self._unit(cosine)
        sims = cosine_matrix(stack(vectors, act_s), stack(vectors, exp_s))
        best = sims.max(axis=1)
        worst = int(np.argmin(best))
        return CaseResult.ok(
            {
                "emb_answer_similarity": whole,
                "emb_answer_sentence_similarity_mean": float(np.mean([self._unit(float(b))
                                                                      for b in best])),
                "emb_answer_sentence_similarity_min": self._unit(float(best[worst])),
            },
            f"whole-answer similarity {whole:.2f} (cosine {cosine:.2f}); least matched actual "
            f"sentence ({best[worst]:.2f}): {quote(act_s[worst])!r}",
            {"cosine": round(cosine, 4),
             "actual_sentences": matched_sentences(act_s, exp_s, sims, "expected")},
        )


@register
class EmbAnswerAccuracy(EmbeddingEvaluator):
    """Min over actual sentences of the best similarity to an expected sentence, with a lexical
    fallback for short answers (where sentence embeddings are unreliable)."""

    name = "emb_answer_accuracy"
    description = (
        "Min over actual sentences of the max similarity to an expected sentence; when both "
        "answers are at most short_answer_chars long, a lexical score (edit, exact or jaccard)."
    )
    requires = ("actual_answer", "expected_answer")
    metrics = (
        cosine_metric("emb_answer_accuracy",
                      "min over actual sentences of the max similarity to an expected sentence "
                      "(lexical score in [0, 1] for short answers)", threshold=0.7, primary=True),
    )

    def __init__(
        self,
        embedder: str | Embedder = DEFAULT_SPEC,
        short_answer_chars: int = 30,
        short_answer_method: str = "edit",
    ) -> None:
        super().__init__(embedder)
        where = type(self).__name__
        check_int(short_answer_chars, "short_answer_chars", where, minimum=0)
        check_choice(short_answer_method, SHORT_METHODS, "short_answer_method", where)
        self.short_answer_chars = short_answer_chars
        self.short_answer_method = short_answer_method

    def _short(self, actual: str, expected: str) -> bool:
        return max(len(actual.strip()), len(expected.strip())) <= self.short_answer_chars

    def texts_to_encode(self, case: TestCase) -> list[str]:
        if self._short(case.actual_answer or "", case.expected_answer or ""):
            return []  # scored by the short-answer fallback, not by embeddings
        return [*sentences_of(case.actual_answer), *sentences_of(case.expected_answer)]

    def score_case(self, case: TestCase, vectors: SentenceVectors) -> CaseResult | str:
        parts = _answer_sentences(case)
        if isinstance(parts, str):
            return parts
        act_s, exp_s = parts
        actual, expected = case.actual_answer or "", case.expected_answer or ""
        if self._short(actual, expected):
            value = short_answer_score(actual, expected, self.short_answer_method)
            return CaseResult.ok(
                {"emb_answer_accuracy": value},
                f"short answers: {self.short_answer_method} score {value:.2f} of "
                f"{normalize_squad(actual)!r} vs {normalize_squad(expected)!r}",
                {"method": self.short_answer_method},
            )
        sims = cosine_matrix(stack(vectors, act_s), stack(vectors, exp_s))
        best = sims.max(axis=1)
        worst = int(np.argmin(best))
        return CaseResult.ok(
            {"emb_answer_accuracy": float(best[worst])},
            f"least supported actual sentence ({best[worst]:.2f}): {quote(act_s[worst])!r}",
            {
                "method": "embedding",
                "actual_sentences": matched_sentences(act_s, exp_s, sims, "expected"),
            },
        )
