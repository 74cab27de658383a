"""Threshold selection on synthetic data whose right thresholds are known analytically.

FAIL scores ~ N(0, 1), PASS scores ~ N(2, 1), equal numbers. Then:

* risk appetite moderate (95 %): μ − z·σ = 2 − 1.6449 = 0.3551, held-out Type I 5 %,
  Type II = 1 − Φ(0.3551) = 0.3613;
* KDE midpoint of the modes, the densities' intersection, Youden's J, and P(PASS) = 0.5 of the
  spline logistic model: all at 1.0 (Type I = Type II = 1 − Φ(1) = 0.1587);
* target false-pass rate 5 % (logistic ROC and conformal): Φ⁻¹(0.95) = 1.6449.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from assay.calibrate import METHODS, confidence_level, select_thresholds
from assay.errors import InvalidInputError

N = 6000
Z95 = norm.ppf(0.95)
TRUTH = {
    "normal": 2 - Z95,
    "kfold": 2 - Z95,
    "kde": 1.0,
    "logistic_youden": 1.0,
    "logistic_false_pass": Z95,
    "polynomial": 1.0,
    "spline": 1.0,
    "conformal": Z95,
}
TOLERANCE = {
    "normal": 0.05,
    "kfold": 0.05,
    "kde": 0.1,
    "logistic_youden": 0.15,
    "logistic_false_pass": 0.08,
    "polynomial": 0.08,
    "spline": 0.08,
    "conformal": 0.08,
}


@pytest.fixture(scope="module")
def known() -> dict[str, object]:
    rng = np.random.default_rng(2024)
    s = np.concatenate([rng.normal(0, 1, N), rng.normal(2, 1, N)])
    y = np.repeat([0, 1], N)
    results = select_thresholds(s, y, METHODS, metric="synthetic", risk="moderate", n_boot=30)
    return {r.method: r for r in results}


@pytest.mark.parametrize("method", METHODS)
def test_threshold_matches_the_analytic_value(known, method: str) -> None:
    result = known[method]
    assert result.threshold == pytest.approx(TRUTH[method], abs=TOLERANCE[method])
    assert result.ci_low is not None and result.ci_high is not None
    assert result.ci_low <= result.threshold <= result.ci_high
    assert result.ci_low - TOLERANCE[method] <= TRUTH[method] <= result.ci_high + TOLERANCE[method]


@pytest.mark.parametrize("method", METHODS)
def test_held_out_errors_match_the_analytic_rates(known, method: str) -> None:
    result = known[method]
    t = result.threshold
    assert result.n_held_out == pytest.approx(0.3 * 2 * N, abs=1)
    assert result.type_i == pytest.approx(norm.cdf(t - 2), abs=0.03)  # PASS below t
    assert result.type_ii == pytest.approx(1 - norm.cdf(t), abs=0.03)  # FAIL at or above t


def test_risk_appetite_levels() -> None:
    assert [confidence_level(r) for r in ("high", "moderate", "low")] == [0.90, 0.95, 0.99]
    rng = np.random.default_rng(0)
    s = np.concatenate([rng.normal(0, 1, N), rng.normal(2, 1, N)])
    y = np.repeat([0, 1], N)
    for risk in ("high", "low", 0.975):
        level = confidence_level(risk)
        (r,) = select_thresholds(s, y, ["normal"], risk=risk, n_boot=0)
        assert r.threshold == pytest.approx(2 - norm.ppf(level), abs=0.05)
        assert r.type_i == pytest.approx(1 - level, abs=0.015)
    with pytest.raises(InvalidInputError, match="risk"):
        confidence_level("medium")


def test_lower_is_better_metric_mirrors_thresholds() -> None:
    rng = np.random.default_rng(1)
    s = np.concatenate([rng.normal(0, 1, N), rng.normal(2, 1, N)])
    y = np.repeat([0, 1], N)
    up = select_thresholds(s, y, ["normal", "conformal"], n_boot=10)
    down = select_thresholds(-s, y, ["normal", "conformal"], higher_is_better=False, n_boot=10)
    for a, b in zip(up, down, strict=True):
        assert b.threshold == pytest.approx(-a.threshold, rel=1e-9, abs=1e-9)
        assert b.ci_low == pytest.approx(-a.ci_high) and b.type_ii == a.type_ii


def test_conformal_threshold_guarantees_the_false_pass_rate() -> None:
    """Over many draws, the held-out false-pass rate averages at most alpha."""
    rng = np.random.default_rng(5)
    rates = []
    for rep in range(40):
        s = np.concatenate([rng.normal(0, 1, 300), rng.normal(1, 1, 300)])
        y = np.repeat([0, 1], 300)
        (r,) = select_thresholds(s, y, ["conformal"], false_pass_rate=0.1, n_boot=0, seed=rep)
        rates.append(r.type_ii)
    assert np.mean(rates) <= 0.1 + 0.01
    assert np.mean(rates) >= 0.07  # and not needlessly conservative


def test_kfold_reports_each_fold_and_max_is_more_cautious() -> None:
    rng = np.random.default_rng(2)
    s = np.concatenate([rng.normal(0, 1, 500), rng.normal(2, 1, 500)])
    y = np.repeat([0, 1], 500)
    mean, high = (
        select_thresholds(s, y, ["kfold"], n_boot=0, params={"kfold": {"k": k, "aggregate": a}})[0]
        for k, a in ((5, "mean"), (10, "max"))
    )
    assert len(mean.details["folds"]) == 5 and len(high.details["folds"]) == 10
    assert high.threshold >= max(f["threshold"] for f in high.details["folds"]) - 1e-12
    assert high.threshold > mean.threshold
    assert all(0 <= f["type_i"] <= 0.2 for f in mean.details["folds"])


def test_too_few_fail_cases_means_nothing_passes() -> None:
    s = np.concatenate([np.linspace(0.1, 0.5, 5), np.linspace(0.4, 1.0, 15)])
    y = np.array([0] * 5 + [1] * 15)
    (r,) = select_thresholds(s, y, ["conformal"], false_pass_rate=0.01, n_boot=5, held_out=0.3)
    assert r.threshold is None and "nothing passes" in r.details["note"]
    assert r.held_out["confusion"]["tp"] == 0 and r.held_out["confusion"]["fp"] == 0


def test_unknown_method_and_too_few_labels() -> None:
    with pytest.raises(InvalidInputError, match="Unknown threshold method"):
        select_thresholds([0.1, 0.2, 0.3, 0.4] * 3, [0, 1] * 6, ["gam"])
    with pytest.raises(InvalidInputError, match="at least 4 PASS and 4 FAIL"):
        select_thresholds(np.arange(8.0), [0, 0, 0, 1, 1, 1, 1, 1], ["normal"], held_out=0.25)
