"""Error analysis: confusion, Type I / II, ECE, Brier and reliability data."""

from __future__ import annotations

import numpy as np
import pytest

from assay.calibrate import (
    brier_score,
    calibration_diagnostics,
    error_rates,
    expected_calibration_error,
    reliability_curve,
)


def test_type_i_is_false_fail_and_type_ii_is_false_pass() -> None:
    labels = [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]
    decisions = [True, True, True, False, True, True, False, False, False, False]
    r = error_rates(labels, decisions)
    assert r["confusion"] == {"tp": 3, "fn": 1, "fp": 2, "tn": 4}
    assert r["type_i"] == pytest.approx(1 / 4)
    assert r["type_ii"] == pytest.approx(2 / 6)
    assert r["accuracy"] == pytest.approx(0.7)
    assert error_rates([1, 1], [True, False])["type_ii"] is None  # no FAIL case: undefined


def test_reliability_matches_sklearn_calibration_curve() -> None:
    from sklearn.calibration import calibration_curve

    rng = np.random.default_rng(0)
    p = rng.uniform(size=3000)
    y = (rng.uniform(size=3000) < p**1.5).astype(int)
    rows = reliability_curve(p, y, n_bins=10)
    observed, predicted = calibration_curve(y, p, n_bins=10)
    np.testing.assert_allclose([r["observed"] for r in rows], observed)
    np.testing.assert_allclose([r["mean_predicted"] for r in rows], predicted)


def test_ece_and_brier_known_values() -> None:
    rng = np.random.default_rng(1)
    p = rng.uniform(size=200_000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    assert expected_calibration_error(p, y) < 0.005  # perfectly calibrated
    # always predicting 0.8 when the rate is 0.5: ECE = 0.3
    assert expected_calibration_error(np.full(1000, 0.8), np.repeat([0, 1], 500)) == pytest.approx(
        0.3
    )
    from sklearn.metrics import brier_score_loss

    assert brier_score(p[:1000], y[:1000]) == pytest.approx(brier_score_loss(y[:1000], p[:1000]))
    proba = np.array([[0.7, 0.2, 0.1], [0.1, 0.1, 0.8]])
    assert brier_score(proba, [0, 1]) == pytest.approx(
        (0.09 + 0.04 + 0.01 + 0.01 + 0.81 + 0.64) / 2
    )


def test_diagnostics_bundle_binary_and_multiclass() -> None:
    d = calibration_diagnostics(np.array([0.9, 0.2, 0.6, 0.4]), [1, 0, 0, 1])
    assert d["errors"]["confusion"] == {"tp": 1, "fn": 1, "fp": 1, "tn": 1}
    m = calibration_diagnostics(np.array([[0.8, 0.1, 0.1], [0.2, 0.3, 0.5]]), [0, 1])
    assert m["accuracy"] == 0.5 and m["confusion_matrix"][1][2] == 1
