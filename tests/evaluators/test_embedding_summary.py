"""Geometric summarization completeness: three-segment distances, snapping, PCA and UMAP."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from assay.backends.embed.fake import FakeEmbedder
from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.embedding_summary import (
    HULL_ABOVE,
    EmbSummaryCompleteness,
    pca_2d,
    three_segment_distance,
)

CONTEXT = [
    "The Premier account has a monthly fee of 12 euros.",
    "The fee is waived when the balance stays above 5,000 euros.",
    "Card payments abroad cost 1.5% of the amount.",
    "Cash withdrawals abroad cost 3 euros each.",
    "Customers can close the account online at any time.",
    "Closing the account is free of charge.",
]


def test_three_segment_distance_is_monotone_under_subsets() -> None:
    rng = np.random.default_rng(3)
    for _ in range(50):
        points = rng.normal(size=(8, 2))
        subset = points[rng.choice(8, size=4, replace=False)]
        assert three_segment_distance(subset) <= three_segment_distance(points) + 1e-9
    collinear = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    assert three_segment_distance(collinear) == pytest.approx(2 * np.hypot(3, 3))
    assert three_segment_distance(np.zeros((3, 2))) == 0.0


def _largest_triangle_by_enumeration(points: np.ndarray) -> float:
    """Reference: every triple of distinct points, one at a time (twice the diameter for two)."""
    unique = np.unique(points, axis=0)
    if len(unique) == 2:
        return float(2 * np.linalg.norm(unique[0] - unique[1]))
    best = 0.0
    for a, b, c in itertools.combinations(unique, 3):
        best = max(best, np.linalg.norm(a - b) + np.linalg.norm(b - c) + np.linalg.norm(a - c))
    return float(best)


@pytest.mark.parametrize("n", [2, 3, 7, HULL_ABOVE, HULL_ABOVE + 25])
def test_three_segment_distance_equals_enumeration_of_all_triangles(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(5):
        points = rng.normal(size=(n, 2))
        points = np.vstack([points, points[: n // 3]])  # repeated points change nothing
        expected = _largest_triangle_by_enumeration(points)
        assert three_segment_distance(points) == pytest.approx(expected, rel=1e-12)


def test_pca_equals_the_svd_projection() -> None:
    rng = np.random.default_rng(5)
    for n in (2, 3, 9, 30):
        points = rng.normal(size=(n, 24))
        centred = points - points.mean(axis=0)
        _, _, vt = np.linalg.svd(centred, full_matrices=False)
        components = vt[:2]
        signs = np.sign(components[np.arange(2), np.abs(components).argmax(axis=1)])
        expected = centred @ (components * signs[:, None]).T
        assert np.allclose(pca_2d(points), expected, atol=1e-9)


def test_pca_is_deterministic_and_two_dimensional() -> None:
    points = np.random.default_rng(0).normal(size=(5, 16))
    assert np.array_equal(pca_2d(points), pca_2d(points.copy()))
    assert pca_2d(points[:1]).shape == (1, 2)


def score(summary: str, **params: object) -> object:
    evaluator = EmbSummaryCompleteness(embedder=FakeEmbedder(), **params)  # type: ignore[arg-type]
    return evaluator.evaluate(
        [TestCase(id="s", actual_answer=summary, retrieved_context=[" ".join(CONTEXT)])]
    )[0]


def test_a_full_copy_spans_everything_and_a_partial_summary_less() -> None:
    full = score(" ".join(CONTEXT))
    partial = score(CONTEXT[0])
    assert full.outcomes["emb_summary_completeness"].value == pytest.approx(1.0)  # type: ignore[attr-defined]
    value = partial.outcomes["emb_summary_completeness"].value  # type: ignore[attr-defined]
    assert value == 0.0  # one point has no extent
    assert full.details["method"] == "pca"  # type: ignore[attr-defined]


def test_off_topic_summary_sentences_are_dropped() -> None:
    result = score(f"{CONTEXT[0]} {CONTEXT[3]} Zebras gallop quickly.")
    assert result.details["dropped_summary"] == ["Zebras gallop quickly."]  # type: ignore[attr-defined]


def test_too_short_context_is_skipped() -> None:
    evaluator = EmbSummaryCompleteness(embedder=FakeEmbedder())
    (result,) = evaluator.evaluate(
        [TestCase(id="s", actual_answer="Hi.", retrieved_context=["One. Two."])]
    )
    assert result.outcomes["emb_summary_completeness"].status is Status.SKIPPED


@pytest.mark.slow
def test_umap_path_is_seeded() -> None:
    pytest.importorskip("umap")
    first = score(" ".join(CONTEXT[:3]), umap_min_points=6, seed=7)
    second = score(" ".join(CONTEXT[:3]), umap_min_points=6, seed=7)
    assert first.details["method"] == "umap"  # type: ignore[attr-defined]
    assert first.outcomes == second.outcomes  # type: ignore[attr-defined]
    assert 0.0 <= first.outcomes["emb_summary_completeness"].value <= 1.0  # type: ignore[attr-defined]
