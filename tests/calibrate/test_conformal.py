"""Split conformal prediction: the quantile, coverage, set sizes, and parity with MAPIE."""

from __future__ import annotations

import math

import numpy as np
import pytest

from assay.calibrate import (
    LogisticCalibrator,
    OrdinalCalibrator,
    conformal_quantile,
    prediction_sets,
    set_summary,
)


@pytest.mark.parametrize(("n", "alpha"), [(9, 0.1), (10, 0.1), (99, 0.05), (19, 0.5), (3, 0.2)])
def test_quantile_is_the_ceil_order_statistic(n: int, alpha: float) -> None:
    values = np.random.default_rng(n).permutation(np.arange(1.0, n + 1))
    k = math.ceil((n + 1) * (1 - alpha) - 1e-9)
    expected = math.inf if k > n else float(k)
    assert conformal_quantile(values, alpha) == expected


def test_sets_cover_at_least_one_minus_alpha_on_average() -> None:
    """Marginal coverage over many calibration draws is >= 1 - alpha (and not far above)."""
    rng = np.random.default_rng(0)
    covers = []
    cal = None
    for rep in range(60):
        y = rng.integers(0, 2, 900)
        s = rng.normal(size=900) + 1.2 * y
        if cal is None:
            cal = LogisticCalibrator().fit(s[:300], y[:300])
        cal.conformalize(s[300:500], y[300:500], alpha=0.1)
        covers.append(cal.conformal_summary(s[500:], y[500:])["coverage"])
        assert rep >= 0
    mean = float(np.mean(covers))
    assert 0.9 <= mean <= 0.93, mean


def test_binary_sets_can_be_ambiguous_or_empty() -> None:
    proba = np.array([[0.05, 0.95], [0.5, 0.5], [0.9, 0.1]])
    sets = prediction_sets(proba, qhat=0.6)
    assert sets.tolist() == [[False, True], [True, True], [True, False]]
    empty = prediction_sets(proba, qhat=0.3)  # neither class of case 2 is plausible enough
    assert empty[1].tolist() == [False, False]
    summary = set_summary(empty, np.array([1, 0, 0]))
    assert summary["frac_empty"] == pytest.approx(1 / 3)
    assert summary["coverage"] == pytest.approx(2 / 3)


def test_multiclass_sets_for_ordinal_labels() -> None:
    rng = np.random.default_rng(1)
    s = rng.normal(size=3000)
    y = np.digitize(2 * s + rng.logistic(size=3000), [-2, -0.5, 0.5, 2]) + 1
    cal = OrdinalCalibrator().fit(s[:1000], y[:1000]).conformalize(s[1000:2000], y[1000:2000], 0.1)
    summary = cal.conformal_summary(s[2000:], y[2000:])
    assert summary["coverage"] >= 0.87
    assert 1.0 < summary["mean_size"] < 5.0
    labels = cal.set_labels(cal.predict_set(s[2000:2005]))
    assert all(set(row) <= {1, 2, 3, 4, 5} for row in labels)


class _Adapter:
    """Wrap a calibrator as a scikit-learn classifier for MAPIE (prefit)."""

    def __new__(cls, calibrator):  # type: ignore[no-untyped-def]
        from sklearn.base import BaseEstimator, ClassifierMixin

        class Wrapped(ClassifierMixin, BaseEstimator):
            def __init__(self, calibrator=None):  # type: ignore[no-untyped-def]
                self.calibrator = calibrator

            def fit(self, x, y):  # type: ignore[no-untyped-def]
                return self

            def predict_proba(self, x):  # type: ignore[no-untyped-def]
                return self.calibrator.predict_proba(np.asarray(x))

            def predict(self, x):  # type: ignore[no-untyped-def]
                return self.predict_proba(x).argmax(axis=1)

        wrapped = Wrapped(calibrator)
        wrapped.classes_ = np.arange(len(calibrator.classes_))
        return wrapped


@pytest.mark.parametrize("kind", ["logistic", "ordinal"])
def test_parity_with_mapie_split_conformal(kind: str) -> None:
    mapie = pytest.importorskip("mapie.classification")
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 3000) if kind == "logistic" else rng.integers(0, 4, 3000)
    s = rng.normal(size=3000) + y
    cal = (LogisticCalibrator() if kind == "logistic" else OrdinalCalibrator()).fit(
        s[:1000], y[:1000]
    )
    cal.conformalize(s[1000:2000], y[1000:2000], alpha=0.1)
    ref = mapie.SplitConformalClassifier(
        estimator=_Adapter(cal), confidence_level=0.9, conformity_score="lac", prefit=True
    )
    ref.conformalize(s[1000:2000].reshape(-1, 1), y[1000:2000])
    _, ref_sets = ref.predict_set(s[2000:].reshape(-1, 1))
    np.testing.assert_array_equal(cal.predict_set(s[2000:]), ref_sets[:, :, 0])


def test_randomized_sets_are_exact_when_scores_tie(tmp_path) -> None:
    """A metric with 3 distinct values: deterministic sets over-cover, smoothed sets are exact."""
    from assay.calibrate import IsotonicCalibrator, load_calibrator

    rng = np.random.default_rng(11)
    det, rnd = [], []
    for rep in range(80):
        y = rng.integers(0, 2, 1200)
        s = np.clip(np.round(rng.normal(size=1200) * 0.7 + y), 0, 2)  # values 0, 1, 2
        cal = IsotonicCalibrator().fit(s[:400], y[:400])
        cal.conformalize(s[400:800], y[400:800], alpha=0.1)
        det.append(cal.conformal_summary(s[800:], y[800:])["coverage"])
        cal.conformalize(s[400:800], y[400:800], alpha=0.1, randomized=True, seed=rep)
        rnd.append(cal.conformal_summary(s[800:], y[800:])["coverage"])
    assert np.mean(det) > 0.92  # conservative under ties
    assert abs(np.mean(rnd) - 0.9) < 0.01
    path = cal.save(tmp_path / "r.json")
    loaded = load_calibrator(path)
    np.testing.assert_array_equal(loaded.predict_set(s[800:]), cal.predict_set(s[800:]))
