"""Embedding context metrics: how relevant the retrieved context is to the question.

* context relevancy (``emb_context_relevancy``, primary): the validation framework's definition,
  the mean over the retrieved chunks of the cosine similarity of the whole question with the whole
  chunk;
* sentence coverage (the evaluator catalogue's context relevancy, assay's earlier default): per
  question sentence, the best similarity to any context sentence, aggregated by mean, weighted
  mean and minimax (the least covered question sentence);
* soft recall / precision: a chunk's relevancy is the best similarity of the whole question to
  one of its sentences; recall takes the best chunk, precision the mean over chunks;
* context mean reciprocal rank: the first chunk (within the top ``k``) whose relevancy reaches
  ``relevance_threshold``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, Embedder
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.embedding_base import (
    EmbeddingEvaluator,
    SentenceVectors,
    WeightedEmbeddingEvaluator,
    chunk_sentences,
    cosine_matrix,
    cosine_metric,
    matched_sentences,
    sentence_weights,
    sentences_of,
    stack,
)
from assay.evaluators.explain import quote, rounded
from assay.evaluators.registry import register
from assay.params import check, check_int


def chunk_relevancy(
    question_vec: np.ndarray, context: np.ndarray, owners: Sequence[int], n_chunks: int
) -> np.ndarray:
    """Per chunk, the max similarity of the question to the chunk's sentences (-1 when empty).

    Example:
        >>> q = np.array([1.0, 0.0])
        >>> chunk_relevancy(q, np.array([[1.0, 0.0], [0.0, 1.0]]), [1, 1], 3).tolist()
        [-1.0, 1.0, -1.0]
    """
    sims = cosine_matrix(question_vec[None, :], context)[0] if len(context) else np.zeros(0)
    out = np.full(n_chunks, -1.0)
    np.maximum.at(out, np.asarray(owners, dtype=int), sims)
    return out


def _whole_chunks(case: TestCase) -> list[str]:
    """The retrieved chunks with text, whole (stripped)."""
    return [c.strip() for c in case.retrieved_context or [] if c.strip()]


@register
class EmbContextRelevancy(WeightedEmbeddingEvaluator):
    """Relevance of the retrieved chunks to the question (validation framework: mean cosine of
    the question with each chunk), coverage of the question sentence by sentence (the catalogue's
    form) and soft recall / precision."""

    name = "emb_context_relevancy"
    description = (
        "Mean cosine of the question with each retrieved chunk (validation framework); per "
        "question sentence, max similarity to a context sentence (mean, weighted mean, minimax); "
        "chunk relevancy soft recall (best chunk) and precision (mean over chunks)."
    )
    requires = ("question", "retrieved_context")
    metrics = (
        cosine_metric("emb_context_relevancy",
                      "mean over retrieved chunks of the cosine similarity of the question and "
                      "the chunk (validation framework)", threshold=0.5, primary=True),
        cosine_metric("emb_context_relevancy_mean",
                      "mean over question sentences of the max similarity to a context sentence",
                      threshold=0.5),
        cosine_metric("emb_context_relevancy_weighted",
                      "weighted mean over question sentences (weights parameter) of the max "
                      "similarity"),
        cosine_metric("emb_context_relevancy_minimax",
                      "min over question sentences of the max similarity to a context "
                      "sentence"),
        cosine_metric("emb_context_soft_recall",
                      "max over chunks of the chunk relevancy (best question-to-sentence "
                      "similarity)"),
        cosine_metric("emb_context_soft_precision", "mean over chunks of the chunk relevancy"),
    )

    def texts_to_encode(self, case: TestCase) -> list[str]:
        question, context = case.question or "", chunk_sentences(case.retrieved_context)[0]
        return [question.strip(), *sentences_of(question), *context, *_whole_chunks(case)]

    def score_case(self, case: TestCase, vectors: SentenceVectors) -> CaseResult | str:
        question, q_sents = case.question or "", sentences_of(case.question)
        context, owners = chunk_sentences(case.retrieved_context)
        if not q_sents:
            return "the question has no sentences"
        if not context:
            return "the context has no sentences"
        ctx = stack(vectors, context)
        sims = cosine_matrix(stack(vectors, q_sents), ctx)
        best = sims.max(axis=1)
        weights = sentence_weights(q_sents, self.weights, self.name)
        n_chunks = len(case.retrieved_context or [])
        chunks = chunk_relevancy(vectors[question.strip()], ctx, owners, n_chunks)
        worst, top = int(np.argmin(best)), int(np.argmax(chunks))
        whole = cosine_matrix(vectors[question.strip()][None, :],
                              stack(vectors, _whole_chunks(case)))[0]
        values = {
            "emb_context_relevancy": float(whole.mean()),
            "emb_context_relevancy_mean": float(best.mean()),
            "emb_context_relevancy_weighted": float(np.average(best, weights=weights)),
            "emb_context_relevancy_minimax": float(best[worst]),
            "emb_context_soft_recall": float(chunks.max()),
            "emb_context_soft_precision": float(chunks.mean()),
        }
        details = {
            "question_sentences": matched_sentences(q_sents, context, sims, "context", owners),
            "chunk_relevancy": rounded(chunks),
            "chunk_cosine": rounded(whole),
        }
        explanation = (
            f"mean question-to-chunk cosine {whole.mean():.2f}; least covered question sentence "
            f"({best[worst]:.2f}): {quote(q_sents[worst])!r}; "
            f"most relevant chunk #{top} ({chunks[top]:.2f}) of {n_chunks}"
        )
        return CaseResult.ok(values, explanation, details)


@register
class EmbContextMRR(EmbeddingEvaluator):
    """Reciprocal rank of the first chunk semantically relevant to the question."""

    name = "emb_context_mrr"
    description = (
        "Reciprocal rank of the first retrieved chunk (within the top k) with a sentence whose "
        "similarity to the question reaches relevance_threshold; 0 when none does."
    )
    requires = ("question", "retrieved_context")
    metrics = (
        MetricSpec(
            "emb_context_mrr",
            "1/rank of the first relevant chunk within the top k (0 when none)",
            threshold=0.5,
            primary=True,
        ),
    )

    def __init__(
        self,
        embedder: str | Embedder = DEFAULT_SPEC,
        relevance_threshold: float = 0.7,
        k: int = 10,
    ) -> None:
        super().__init__(embedder)
        where = type(self).__name__
        check(
            isinstance(relevance_threshold, int | float) and -1 <= relevance_threshold <= 1,
            "relevance_threshold",
            where,
            "a number in [-1, 1]",
            relevance_threshold,
        )
        check_int(k, "k", where)
        self.relevance_threshold = relevance_threshold
        self.k = k

    def texts_to_encode(self, case: TestCase) -> list[str]:
        context = chunk_sentences((case.retrieved_context or [])[: self.k])[0]
        return [(case.question or "").strip(), *context]

    def score_case(self, case: TestCase, vectors: SentenceVectors) -> CaseResult | str:
        question = (case.question or "").strip()
        context, owners = chunk_sentences((case.retrieved_context or [])[: self.k])
        n_chunks = min(len(case.retrieved_context or []), self.k)
        if not question:
            return "the question is empty"
        if not context:
            return "the context has no sentences"
        chunks = chunk_relevancy(vectors[question], stack(vectors, context), owners, n_chunks)
        relevant = np.flatnonzero(chunks >= self.relevance_threshold)
        rank = int(relevant[0]) + 1 if len(relevant) else None
        explanation = (
            f"first relevant chunk at rank {rank} (similarity {chunks[rank - 1]:.2f})"
            if rank
            else f"no chunk in the top {self.k} reaches {self.relevance_threshold} "
            f"(best {chunks.max():.2f})"
        )
        return CaseResult.ok(
            {"emb_context_mrr": 1.0 / rank if rank else 0.0},
            explanation,
            {"chunk_relevancy": rounded(chunks), "first_relevant_rank": rank},
        )
