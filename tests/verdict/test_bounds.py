"""Rate bounds: exact Clopper–Pearson and prediction-powered inference, checked by simulation."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from assay.errors import InvalidInputError
from assay.verdict.bounds import clopper_pearson, labels_to_decide, ppi_bound


@pytest.mark.parametrize(("k", "n"), [(0, 10), (3, 10), (47, 50), (50, 50), (180, 200)])
def test_clopper_pearson_equals_scipy_exact_interval(k: int, n: int) -> None:
    # a one-sided bound at 95 % is the matching side of the two-sided exact interval at 90 %
    ci = binomtest(k, n).proportion_ci(confidence_level=0.90, method="exact")
    assert clopper_pearson(k, n, 0.95, "lower").bound == pytest.approx(ci.low, abs=1e-12)
    assert clopper_pearson(k, n, 0.95, "upper").bound == pytest.approx(ci.high, abs=1e-12)


def test_clopper_pearson_rejects_bad_arguments() -> None:
    with pytest.raises(InvalidInputError, match="'side'"):
        clopper_pearson(1, 2, 0.95, "both")
    with pytest.raises(InvalidInputError, match="'successes'"):
        clopper_pearson(3, 2, 0.95)


@pytest.mark.parametrize("p", [0.5, 0.8, 0.95, 0.99])
@pytest.mark.parametrize("n", [20, 60])
def test_clopper_pearson_coverage_is_at_least_nominal_exactly(p: float, n: int) -> None:
    """Exact coverage: the binomial probability of the outcomes whose bound lies below p."""
    from scipy.stats import binom

    coverage = sum(
        binom.pmf(k, n, p) for k in range(n + 1) if clopper_pearson(k, n, 0.95).bound <= p
    )
    assert coverage >= 0.95 - 1e-12


def test_ppi_lower_bound_covers_nominal_and_is_tighter_than_labels_alone() -> None:
    """Simulation: a predictor right 90 % of the time, 100 labels, 2,000 unlabelled cases."""
    rng = np.random.default_rng(1)
    p, n, big, trials = 0.85, 100, 2000, 600
    covered, ppi_width, cp_width = 0, [], []
    for _ in range(trials):
        y_l, y_u = rng.binomial(1, p, n), rng.binomial(1, p, big)
        flip_l, flip_u = rng.random(n) < 0.1, rng.random(big) < 0.1
        yhat_l = np.where(flip_l, 1 - y_l, y_l).astype(float)
        yhat_u = np.where(flip_u, 1 - y_u, y_u).astype(float)
        b = ppi_bound(y_l, yhat_l, yhat_u, 0.95)
        covered += b.bound <= p
        ppi_width.append(b.estimate - b.bound)
        cp_width.append(y_l.mean() - clopper_pearson(int(y_l.sum()), n, 0.95).bound)
    assert covered / trials >= 0.93  # asymptotic bound: nominal 0.95 within Monte-Carlo error
    assert np.mean(ppi_width) < np.mean(cp_width)


def test_ppi_upper_side_and_useless_predictions_stay_valid() -> None:
    rng = np.random.default_rng(2)
    p, trials, covered = 0.3, 400, 0
    for _ in range(trials):
        y = rng.binomial(1, p, 80)
        noise_l, noise_u = rng.random(80), rng.random(800)  # predictions unrelated to the truth
        covered += ppi_bound(y, noise_l, noise_u, 0.95, "upper").bound >= p
    assert covered / trials >= 0.92


def test_labels_to_decide() -> None:
    # 18 of 18 correct: how many in all would show a pass rate of at least 0.9 at 95 %?
    needed = labels_to_decide(18, 18, 0.9, 0.95)
    assert needed is not None and clopper_pearson(needed, needed, 0.95).bound >= 0.9
    assert clopper_pearson(needed - 1, needed - 1, 0.95).bound < 0.9
    assert labels_to_decide(9, 10, 0.9, 0.95) is None  # observed rate equals the target
