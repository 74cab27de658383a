"""Questions drift: how far the questions of the later part of a suite moved from the earlier part.

Drift is a property of a whole, chronologically ordered suite, not of one case, so it is a
*corpus* metric: the evaluator's :meth:`corpus_accumulator` collects each model's questions batch
by batch (in suite order, or sorted by ``metadata[time_field]`` when given), and :meth:`finish`
splits them at ``split``, embeds them (deduplicated, cached) and reports the cosine distance
between the centroids of the two parts. Per case the evaluator reports nothing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, Embedder
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.embedding_base import EmbeddingEvaluator, SentenceVectors, stack
from assay.evaluators.registry import register
from assay.params import check, check_int


def centroid_drift(
    earlier: np.ndarray,
    later: np.ndarray,
    earlier_weights: np.ndarray | None = None,
    later_weights: np.ndarray | None = None,
) -> float:
    """Cosine distance (``1 - cos``, in [0, 2]) between the (weighted) centroids of two sets of
    rows; a row with weight k counts as k identical rows.

    Example:
        >>> round(centroid_drift(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0], [0.0, 1.0]])), 3)
        1.0
        >>> round(centroid_drift(np.eye(2), np.eye(2), np.array([3, 1]), np.array([1, 3])), 3)
        0.4
    """
    a = np.average(earlier, axis=0, weights=earlier_weights)
    b = np.average(later, axis=0, weights=later_weights)
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    if norm == 0.0:
        return 1.0
    return float(np.clip(1.0 - float(a @ b) / norm, 0.0, 2.0))


def _weighted(vectors: SentenceVectors, questions: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The distinct questions' rows and how often each occurs (repeats cost no extra rows)."""
    counts = Counter(questions)
    return stack(vectors, list(counts)), np.array(list(counts.values()), dtype=float)


class _DriftAccumulator:
    def __init__(self, evaluator: EmbQuestionsDrift) -> None:
        self.evaluator = evaluator
        self.items: list[tuple[Any, int, str]] = []
        #: Why ``finish`` gave no value (it reaches problems.json), else None.
        self.not_computed_reason: str | None = None

    def add(self, cases: Sequence[TestCase], results: Sequence[CaseResult]) -> None:
        # runs for every case of the suite (repeats included): plain attribute reads, no calls
        field = self.evaluator.time_field
        kept = [(c, c.question.strip()) for c in cases if c.question and not c.question.isspace()]
        start = len(self.items)
        self.items.extend(
            (case.metadata.get(field) if field else None, start + k, question)
            for k, (case, question) in enumerate(kept)
        )

    def finish(self) -> dict[str, float | None]:
        ev = self.evaluator
        items = self.items
        if ev.time_field and items and all(w is not None for w, _, _ in items):
            try:
                items = sorted(items, key=lambda item: (item[0], item[1]))
            except TypeError:  # mixed types: compare as text
                items = sorted(items, key=lambda item: (str(item[0]), item[1]))
        cut = round(len(items) * ev.split)
        early, late = [q for _, _, q in items[:cut]], [q for _, _, q in items[cut:]]
        if len(early) < ev.min_size or len(late) < ev.min_size:
            self.not_computed_reason = (
                f"too few questions: {len(early)} earlier and {len(late)} later, at least "
                f"min_size={ev.min_size} needed in each part")
            return {"emb_questions_drift": None}
        vectors = ev.encode(early + late)
        (early_rows, early_counts), (late_rows, late_counts) = (
            _weighted(vectors, early),
            _weighted(vectors, late),
        )
        drift = centroid_drift(early_rows, late_rows, early_counts, late_counts)
        return {"emb_questions_drift": drift}


@register
class EmbQuestionsDrift(EmbeddingEvaluator):
    """Cosine distance between the question centroids of the earlier and the later suite part."""

    name = "emb_questions_drift"
    description = (
        "Suite-level: cosine distance between the centroids of the question embeddings of the "
        "earlier and later part of the (chronologically ordered) suite, per model."
    )
    requires = ("question",)
    metrics = (
        MetricSpec(
            "emb_questions_drift",
            "cosine distance between earlier and later question centroids (corpus-level)",
            higher_is_better=False,
            range=(0.0, 2.0),
            threshold=0.2,
            primary=True,
            aggregation="corpus",
        ),
    )

    def __init__(
        self,
        embedder: str | Embedder = DEFAULT_SPEC,
        split: float = 0.5,
        min_size: int = 5,
        time_field: str | None = None,
    ) -> None:
        super().__init__(embedder)
        where = type(self).__name__
        check(
            isinstance(split, int | float) and 0 < split < 1,
            "split",
            where,
            "a number in (0, 1)",
            split,
        )
        check_int(min_size, "min_size", where)
        check(
            time_field is None or isinstance(time_field, str),
            "time_field",
            where,
            "None or a metadata key",
            time_field,
        )
        self.split = split
        self.min_size = min_size
        self.time_field = time_field

    def texts_to_encode(self, case: TestCase) -> list[str]:
        return [(case.question or "").strip()]  # embedded by the accumulator's finish()

    def score_unique(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return [CaseResult({}, None) for _ in cases]

    def corpus_accumulator(self) -> _DriftAccumulator:
        return _DriftAccumulator(self)
