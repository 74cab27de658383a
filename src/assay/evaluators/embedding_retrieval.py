"""Retrieval metrics when chunk ids are absent: retrieved chunks matched to the ground-truth
chunks by embedding similarity (the validation framework, §1).

Each retrieved chunk (``retrieved_context``, rank 1 first) is compared with every ground-truth
chunk (``relevant_context``); it counts as a hit of the most similar ground-truth chunk when their
cosine similarity reaches ``threshold``. Every ground-truth chunk is found at most once, at its
first matching rank; later chunks matching it count as retrieved but not relevant. The ranking of
hits then goes through the same definitions as the id-based ``retrieval`` evaluator
(:func:`assay.evaluators.retrieval.retrieval_scores`), with binary relevance.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.backends.embed import DEFAULT_SPEC, Embedder
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.embedding_base import EmbeddingEvaluator, cosine_matrix, stack
from assay.evaluators.explain import rounded
from assay.evaluators.registry import register
from assay.evaluators.retrieval import (
    PRECISION_DENOMINATORS,
    RETRIEVAL_METRICS,
    RetrievalMetrics,
    retrieval_scores,
)
from assay.params import check, check_choice, check_int

PREFIX = "sem_"


def matched_ranking(
    similarities: Sequence[Sequence[float]], threshold: float
) -> tuple[list[str], list[int | None]]:
    """Ids of a ranking whose retrieved chunks are matched to ground-truth chunks.

    ``similarities[i][j]`` compares retrieved chunk ``i`` with ground-truth chunk ``j``. A chunk
    whose best similarity reaches ``threshold`` gets the id ``gt<j>`` (once per ``j``), any other
    chunk a fresh non-relevant id.

    Example:
        >>> matched_ranking([[0.2, 0.9], [0.95, 0.1], [0.1, 0.85]], 0.8)
        (['gt1', 'gt0', 'retrieved2'], [1, 0, None])
    """
    ids: list[str] = []
    matches: list[int | None] = []
    found: set[int] = set()
    for i, row in enumerate(similarities):
        best = max(range(len(row)), key=lambda j: row[j]) if len(row) else None
        if best is not None and row[best] >= threshold and best not in found:
            found.add(best)
            ids.append(f"gt{best}")
            matches.append(best)
        else:
            ids.append(f"retrieved{i}")
            matches.append(None)
    return ids, matches


@register
class SemanticRetrievalMetrics(EmbeddingEvaluator):
    """The ``retrieval`` metrics (prefixed ``sem_``) with retrieved chunks matched to ground-truth
    chunk texts by embedding similarity, for suites without chunk ids.

    Args:
        embedder: Embedder or spec (default the offline MiniLM).
        threshold: Cosine similarity at which a retrieved chunk matches a ground-truth chunk
            (explicit, to be reported with the results; 0.8 by default).
        k: The cut-off of the ``@k`` metrics.
        precision: ``"retrieved"`` (relevant retrieved / retrieved) or ``"k"`` (trec_eval P@k).
    """

    name = "retrieval_semantic"
    family = "retrieval"
    description = (
        "Retrieval metrics (P/R/F1, P/R/F1/hit/NDCG@k, R-precision, RR, AP, NDCG) with "
        "retrieved chunks matched to ground-truth chunk texts by embedding similarity "
        "(threshold parameter), for suites without chunk ids."
    )
    requires = ("retrieved_context", "relevant_context")
    metrics = tuple(
        MetricSpec(
            PREFIX + spec.name,
            spec.description.replace("ids", "chunks") + " (chunks matched by similarity)",
            threshold=spec.threshold,
            primary=spec.primary,
        )
        for spec in RetrievalMetrics.metrics
    )

    def __init__(
        self,
        embedder: str | Embedder = DEFAULT_SPEC,
        threshold: float = 0.8,
        k: int = 10,
        precision: str = "retrieved",
    ) -> None:
        super().__init__(embedder)
        where = type(self).__name__
        check(
            isinstance(threshold, int | float) and -1 < threshold <= 1,
            "threshold", where, "a cosine similarity in (-1, 1]", threshold,
        )  # fmt: skip
        check_int(k, "k", where)
        check_choice(precision, PRECISION_DENOMINATORS, "precision", where)
        self.threshold = float(threshold)
        self.k = k
        self.precision = precision

    def texts_to_encode(self, case: TestCase) -> list[str]:
        return [t for t in [*(case.retrieved_context or []), *(case.relevant_context or [])] if t]

    def score_unique(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        vectors = self.encode_cases(cases)
        out = []
        for case in cases:
            retrieved = list(case.retrieved_context or [])
            truth = [t for t in case.relevant_context or [] if t.strip()]
            if not truth:
                out.append(
                    CaseResult.skipped(self.metric_names(), "relevant_context holds no text")
                )
                continue
            rows = [i for i, chunk in enumerate(retrieved) if chunk]
            sims = [[-1.0] * len(truth) for _ in retrieved]
            if rows:
                matrix = cosine_matrix(
                    stack(vectors, [retrieved[i] for i in rows]), stack(vectors, truth)
                )
                for row, i in enumerate(rows):
                    sims[i] = matrix[row].tolist()
            ranking, matches = matched_ranking(sims, self.threshold)
            relevance = {f"gt{j}": 1.0 for j in range(len(truth))}
            values = retrieval_scores(ranking, relevance, self.k, self.precision)
            hits = [i + 1 for i, m in enumerate(matches) if m is not None]
            out.append(
                CaseResult.ok(
                    {PREFIX + name: values[name] for name in RETRIEVAL_METRICS},
                    f"{len(hits)} of {len(truth)} ground-truth chunks matched (cosine ≥ "
                    f"{self.threshold:g})" + (f", first at rank {hits[0]}" if hits else ""),
                    {
                        "threshold": self.threshold,
                        "k": self.k,
                        "matches": [
                            {"rank": i + 1, "ground_truth": m, "similarity": rounded([max(r)])[0]}
                            for i, (m, r) in enumerate(zip(matches, sims, strict=True))
                        ][:100],
                    },
                )
            )
        return out
