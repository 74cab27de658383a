"""Embedding evaluators against their reference definitions.

Reference: the HCAT paper §3.3.2 (completeness as the Wasserstein distance between context and
answer sentence embeddings, approximated by the mean of all pairwise distances,
(1/nk) Σᵢ Σⱼ d(cᵢ, aⱼ)).
"""

from __future__ import annotations

import numpy as np
import pytest

from assay.errors import InvalidInputError
from assay.evaluators.embedding_completeness import (
    EmbCompleteness,
    wasserstein_approx,
    wasserstein_exact,
)

WORKED = np.array([[0.0, 1.0], [1.0, 0.5]])


def test_hcat_3_3_2_approximation_is_the_mean_of_all_pairwise_distances() -> None:
    # (1/nk) Σᵢ Σⱼ d(cᵢ, aⱼ) = (0 + 1 + 1 + 0.5) / 4
    assert wasserstein_approx(WORKED) == pytest.approx(0.625)
    assert EmbCompleteness().approx == "pairwise"


def test_hcat_3_3_2_approximation_on_unequal_sizes() -> None:
    costs = np.array([[0.2, 0.4, 0.9], [1.0, 0.0, 0.3]])  # n = 2 context, k = 3 answer sentences
    expected = sum(sum(row) for row in costs.tolist()) / (2 * 3)
    assert wasserstein_approx(costs) == pytest.approx(expected)


def test_exact_distance_is_kept_and_lies_between_the_two_approximations() -> None:
    assert wasserstein_exact(WORKED) == pytest.approx(0.25)
    assert wasserstein_approx(WORKED, "nearest") == pytest.approx(0.25)
    rng = np.random.default_rng(7)
    for shape in ((3, 5), (4, 4), (1, 6)):
        costs = rng.random(shape) * 2
        exact = wasserstein_exact(costs)
        assert wasserstein_approx(costs, "nearest") <= exact + 1e-12
        assert exact <= wasserstein_approx(costs) + 1e-12


def test_unknown_approximation_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="'approx' parameter of EmbCompleteness"):
        EmbCompleteness(approx="sinkhorn")
