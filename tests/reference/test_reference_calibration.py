"""Range checks and threshold rules: no value or threshold outside a metric's range, silently.

References: the threshold paper's rules (normal risk-appetite rule, k-fold, logistic and polynomial
logistic regression, KDE, splines); DESIGN §3 (values lie in the declared range, float rounding
is not an error).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from assay.calibrate.threshold_methods import (
    RULES,
    clip_threshold,
    normal_threshold,
    polynomial_logistic_threshold,
)
from assay.calibrate.thresholds import kfold_threshold
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec, Status


class _Fixed(Evaluator):
    name = "fixed_for_range_test"
    family = "test"
    description = "returns fixed values"
    metrics = (MetricSpec("score", "a [0, 1] score"),)

    def __init__(self, value: float = 0.0) -> None:
        self.value = value

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return [CaseResult.ok({"score": self.value}) for _ in cases]


@pytest.mark.parametrize("raw, expected", [(1.0000000271, 1.0), (-3e-8, 0.0), (0.5, 0.5)])
def test_float_rounding_is_clipped_not_an_error(raw: float, expected: float) -> None:
    # a BERTScore of 1.0000000271 (float32 cosine) became an error before
    outcome = _Fixed(raw).evaluate([TestCase(id="q")])[0].outcomes["score"]
    assert outcome.status is Status.OK and outcome.value == expected


def test_real_overshoot_is_still_an_error() -> None:
    outcome = _Fixed(1.01).evaluate([TestCase(id="q")])[0].outcomes["score"]
    assert outcome.status is Status.ERROR and "outside declared range" in (outcome.reason or "")


def _skewed() -> tuple[np.ndarray, np.ndarray]:
    # PASS scores in two clumps, near 1 and near 0: μ − 1.645σ falls below 0 (about −0.3)
    good = np.concatenate([np.linspace(0.9, 1.0, 24), np.linspace(0.0, 0.05, 16)])
    bad = np.linspace(0.0, 0.5, 30)
    return np.concatenate([good, bad]), np.array([1] * len(good) + [0] * len(bad))


def test_normal_and_kfold_never_leave_the_range_silently() -> None:
    s, y = _skewed()
    mu, sd = s[y == 1].mean(), s[y == 1].std(ddof=1)
    assert mu - 1.645 * sd < 0  # the raw rule gives a negative threshold on a [0, 1] metric
    t, details = normal_threshold(s, y, confidence=0.95)
    assert t == pytest.approx(s.min()) and details["clipped"]["raw"] < 0
    t, details = normal_threshold(s, y, confidence=0.95, bounds=(0.0, 1.0))
    assert t == 0.0 and "metric's range" in details["clipped"]["reason"]
    t, details = kfold_threshold(s, y, base="normal", k=3)
    assert s.min() <= t <= 1.0


def test_polynomial_logistic_regression_is_offered() -> None:
    assert RULES["polynomial"][0] is polynomial_logistic_threshold
    rng = np.random.default_rng(0)
    s = np.concatenate([rng.normal(0, 1, 2000), rng.normal(2, 1, 2000)])
    y = np.repeat([0, 1], 2000)
    t, details = polynomial_logistic_threshold(s, y, degree=3)
    assert abs(t - 1.0) < 0.1  # equal-variance classes: P(PASS) = 0.5 at the midpoint
    assert len(details["coefficients"]) == 4


def test_infinite_threshold_means_nothing_passes_and_is_kept() -> None:
    details: dict[str, object] = {}
    assert clip_threshold(float("inf"), np.array([0.0, 1.0]), details) == float("inf")
    assert "clipped" not in details
