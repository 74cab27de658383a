"""Rate bounds: exact Clopper–Pearson, checked against scipy and by its exact coverage."""

from __future__ import annotations

import pytest
from scipy.stats import binomtest

from assay.errors import InvalidInputError
from assay.verdict.bounds import clopper_pearson, labels_to_decide


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


def test_labels_to_decide() -> None:
    # 18 of 18 correct: how many in all would show a pass rate of at least 0.9 at 95 %?
    needed = labels_to_decide(18, 18, 0.9, 0.95)
    assert needed is not None and clopper_pearson(needed, needed, 0.95).bound >= 0.9
    assert clopper_pearson(needed - 1, needed - 1, 0.95).bound < 0.9
    assert labels_to_decide(9, 10, 0.9, 0.95) is None  # observed rate equals the target
