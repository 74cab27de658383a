"""BERTScore-style token matching with the configured embedding model.

Precision is the mean over candidate tokens of the best cosine similarity to a reference token,
recall the same the other way round, F1 their harmonic mean (Zhang et al., 2020, without IDF
weighting or baseline rescaling). The token vectors are the configured sentence model's
contextual token embeddings (special tokens removed), each sentence encoded on its own so that
the tokens come from the same cached forward pass as the sentence vectors. This is therefore
*BERTScore-style*, not the roberta-large BERTScore, and its values are not comparable with it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult
from assay.evaluators.embedding_base import (
    EmbeddingEvaluator,
    chunk_sentences,
    cosine_matrix,
    cosine_metric,
    sentences_of,
)
from assay.evaluators.explain import quote, rounded
from assay.evaluators.registry import register


def bertscore(
    candidate: np.ndarray, reference: np.ndarray
) -> tuple[float, float, float, np.ndarray]:
    """Greedy-matching precision, recall and F1 of unit token rows, plus each candidate token's
    best similarity. F1 is the harmonic mean when both are positive, else the smaller one.

    Example:
        >>> p, r, f, _ = bertscore(np.eye(3)[:2], np.eye(3))
        >>> round(p, 3), round(r, 3), round(f, 3)
        (1.0, 0.667, 0.8)
    """
    sims = cosine_matrix(candidate, reference)
    best = sims.max(axis=1)
    precision, recall = float(best.mean()), float(sims.max(axis=0).mean())
    if precision > 0 and recall > 0:
        f1 = 2 * precision * recall / (precision + recall)
    else:
        f1 = min(precision, recall)
    return precision, recall, f1, best


class _TokenMatch(EmbeddingEvaluator):
    """Shared scoring; subclasses name the reference texts and the metric prefix."""

    prefix: str
    needs_tokens = True

    def reference(self, case: TestCase) -> list[str]:
        raise NotImplementedError

    def texts_to_encode(self, case: TestCase) -> list[str]:
        return sentences_of(case.actual_answer) + self.reference(case)

    def score_unique(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        names = self.metric_names()
        embedder = self.resolved_embedder()
        if not embedder.has_tokens:
            reason = f"the embedder {self.embedder!r} gives no token embeddings"
            return [CaseResult.error(names, reason) for _ in cases]
        parts = [(sentences_of(c.actual_answer), self.reference(c)) for c in cases]
        unique = list(dict.fromkeys(s for cand, ref in parts for s in cand + ref))
        tokens = dict(zip(unique, embedder.encode_tokens(unique), strict=True)) if unique else {}
        out = []
        for cand, ref in parts:
            cand_tok = [tokens[s] for s in cand]
            ref_tok = [tokens[s] for s in ref if len(tokens[s])]
            if not any(len(t) for t in cand_tok):
                out.append(CaseResult.skipped(names, "the answer has no tokens"))
                continue
            if not ref_tok:
                out.append(CaseResult.skipped(names, "the reference has no tokens"))
                continue
            precision, recall, f1, best = bertscore(np.vstack(cand_tok), np.vstack(ref_tok))
            bounds = np.cumsum([0] + [len(t) for t in cand_tok])
            per_sentence = [
                float(best[bounds[i] : bounds[i + 1]].mean()) if len(cand_tok[i]) else None
                for i in range(len(cand))
            ]
            scored = [i for i, v in enumerate(per_sentence) if v is not None]
            worst = min(scored, key=lambda i: per_sentence[i])  # type: ignore[arg-type,return-value]
            out.append(
                CaseResult.ok(
                    {
                        f"{self.prefix}_precision": precision,
                        f"{self.prefix}_recall": recall,
                        f"{self.prefix}_f1": f1,
                    },
                    f"token precision {precision:.2f}, recall {recall:.2f}; least supported "
                    f"answer sentence ({per_sentence[worst]:.2f}): {quote(cand[worst])!r}",
                    {
                        "sentences": [quote(s) for s in cand],
                        "sentence_precision": [
                            None if v is None else rounded([v])[0] for v in per_sentence
                        ],
                    },
                )
            )
        return out


@register
class EmbBertScore(_TokenMatch):
    """BERTScore-style precision, recall and F1 of the actual against the expected answer."""

    name = "emb_bertscore"
    description = (
        "BERTScore-style greedy token matching of the actual against the expected answer with "
        "the configured model's token embeddings (not roberta-large BERTScore)."
    )
    requires = ("actual_answer", "expected_answer")
    prefix = "emb_bertscore"
    metrics = (
        cosine_metric("emb_bertscore_f1", "harmonic mean of token precision and recall",
                      threshold=0.6, primary=True),
        cosine_metric("emb_bertscore_precision",
                      "mean over answer tokens of the best similarity to an expected-answer token"),
        cosine_metric("emb_bertscore_recall",
                      "mean over expected-answer tokens of the best similarity to an answer token"),
    )

    def reference(self, case: TestCase) -> list[str]:
        return sentences_of(case.expected_answer)


@register
class EmbContextBertScore(_TokenMatch):
    """BERTScore-style matching of the answer against the retrieved context (precision is a
    token-level groundedness signal)."""

    name = "emb_context_bertscore"
    description = (
        "BERTScore-style greedy token matching of the answer against the retrieved context; "
        "precision is a token-level groundedness signal (configured model, not roberta-large)."
    )
    requires = ("actual_answer", "retrieved_context")
    prefix = "emb_context_bertscore"
    metrics = (
        cosine_metric("emb_context_bertscore_precision",
                      "mean over answer tokens of the best similarity to a context token",
                      threshold=0.6, primary=True),
        cosine_metric("emb_context_bertscore_recall",
                      "mean over context tokens of the best similarity to an answer token"),
        cosine_metric("emb_context_bertscore_f1",
                      "harmonic mean of token precision and recall against the context"),
    )

    def reference(self, case: TestCase) -> list[str]:
        return chunk_sentences(case.retrieved_context)[0]
