"""Embedding groundedness: how well each answer sentence is supported by some context sentence."""

from __future__ import annotations

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, Embedder
from assay.evaluators.base import CaseResult
from assay.evaluators.claim_sentences import check_sentences
from assay.evaluators.embedding_base import (
    AnswerAgainstContext,
    SentenceVectors,
    cosine_matrix,
    cosine_metric,
    matched_sentences,
    stack,
)
from assay.evaluators.explain import quote, rounded
from assay.evaluators.registry import register


@register
class EmbGroundedness(AnswerAgainstContext):
    """Per answer sentence, the best cosine similarity to any context sentence; min and mean.

    The primary metric is the min over answer sentences, as in H2O Sonar's groundedness
    evaluator: one unsupported sentence makes an answer ungrounded, however well the others
    match. The least grounded answer sentence and its best context match are reported, so a low
    score points at the sentence to check. Sentence similarity cannot see a changed number or
    name: pair it with ``unsupported_facts``. ``sentences="claims"`` sets aside questions,
    courtesy and framing lines (:mod:`assay.evaluators.claim_sentences`); the default scores
    every sentence, as the reference does.
    """

    name = "emb_groundedness"
    description = (
        "Per answer sentence, max cosine similarity to the context sentences; min (primary, "
        "H2O Sonar's groundedness) and mean, with the least grounded sentence."
    )
    metrics = (
        cosine_metric("emb_groundedness_mean",
                      "mean over answer sentences of the max similarity to a context sentence",
                      threshold=0.6),
        # H2O Sonar's threshold is 0.75 for bge-small-en-v1.5, whose cosines of unrelated
        # sentences already sit near 0.5; all-MiniLM-L6-v2's sit near 0 (docs/reference-
        # definitions.md, embedding).
        cosine_metric("emb_groundedness_min",
                      "similarity of the least grounded answer sentence to its best context "
                      "sentence",
                      threshold=0.5, primary=True),
    )

    def __init__(self, embedder: str | Embedder = DEFAULT_SPEC, sentences: str = "all") -> None:
        super().__init__(embedder)
        self.sentences = check_sentences(sentences, "EmbGroundedness")

    def score_sentences(self, answer: list[str], context: list[str], owners: list[int],
                        vectors: SentenceVectors) -> CaseResult:
        sims = cosine_matrix(stack(vectors, answer), stack(vectors, context))
        best = sims.max(axis=1)
        worst = int(np.argmin(best))
        details = {
            "answer_sentences": matched_sentences(answer, context, sims, "context", owners),
            "least_grounded": {"index": worst, "sentence": quote(answer[worst])},
            "max_sims": rounded(best),
        }
        explanation = (
            f"least grounded answer sentence ({best[worst]:.2f}): {quote(answer[worst])!r}; "
            f"closest context: {quote(context[int(sims[worst].argmax())])!r}"
        )
        return CaseResult.ok(
            {
                "emb_groundedness_mean": float(best.mean()),
                "emb_groundedness_min": float(best[worst]),
            },
            explanation,
            details,
        )
