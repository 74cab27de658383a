"""Binary calibrators: logistic (Platt scaling) and isotonic regression."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from assay.calibrate._arrays import FloatArray, IntArray
from assay.calibrate._logistic import fit_logistic
from assay.calibrate.base import Calibrator
from assay.params import check

#: weight of the raw-score tie-breaker in isotonic probabilities
_TIE_BREAK = 1e-9


def _expit(z: FloatArray) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)), dtype=np.float64)


@dataclass(eq=False, repr=False)
class LogisticCalibrator(Calibrator):
    """Platt scaling: ``P(PASS | s) = σ(a·s + b)``, for one metric or several at once.

    Args:
        C: inverse L2 strength; ``None`` fits without penalty (plain maximum likelihood).

    Example:
        >>> cal = LogisticCalibrator().fit([0.1, 0.2, 0.35, 0.5, 0.7, 0.9], [0, 0, 1, 0, 1, 1])
        >>> p = cal.predict_pass_proba([0.0, 1.0])
        >>> bool(p[0] < 0.5 < p[1])
        True
    """

    kind = "logistic"
    fitted_arrays: ClassVar[dict[str, str]] = {"coef": "coef_"}

    C: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check(self.C is None or self.C > 0, "C", "LogisticCalibrator", "None or a positive number",
              self.C)
        self.coef_: FloatArray | None = None
        self.intercept_: float = 0.0

    def _fit(self, x: FloatArray, codes: IntArray) -> None:
        # standardise for a well-conditioned Newton solve, then map back to raw scores
        mean, std = x.mean(axis=0), x.std(axis=0)
        std[std == 0] = 1.0
        # scikit-learn's penalty ||w||² / (2C) on raw weights w = b / std
        l2 = 1e-8 if self.C is None else 1.0 / (self.C * std**2)
        beta = fit_logistic((x - mean) / std, codes, l2=l2)
        self.coef_ = np.asarray(beta[1:] / std, dtype=np.float64)
        self.intercept_ = float(beta[0] - np.sum(beta[1:] * mean / std))

    def _proba(self, x: FloatArray) -> FloatArray:
        assert self.coef_ is not None
        p = _expit(x @ self.coef_ + self.intercept_)
        return np.column_stack([1.0 - p, p])

    def _get_state(self) -> dict[str, Any]:
        return {**super()._get_state(), "intercept": self.intercept_}

    def _set_state(self, state: dict[str, Any]) -> None:
        super()._set_state(state)
        self.intercept_ = float(state["intercept"])


@dataclass(eq=False, repr=False)
class IsotonicCalibrator(Calibrator):
    """Isotonic regression of PASS on one metric: a non-decreasing map, no shape assumed.

    The fitted map is scikit-learn's step function (:class:`sklearn.isotonic.IsotonicRegression`)
    plus an infinitesimal slope (at most 1e-9 over the fitted score range) that breaks ties by
    the raw score. Without it every case in a step gets exactly the same probability, and those
    ties make split-conformal sets conservative (on FRANK, 91–95 % coverage for a 90 % target; see
    benchmarks/results/calibration.md); with it, higher scores rank strictly higher at no visible
    cost. Scores outside the fitted range take the probability at the nearest end.

    Args:
        centered: *centred isotonic regression* (Oron & Flournoy, 2017) instead: interpolate
            linearly between the centroids of the steps, a visibly smoother map.

    Example:
        >>> cal = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
        >>> cal.predict_pass_proba([0.0, 0.2, 0.25, 1.0]).round(6).tolist()
        [0.0, 0.5, 0.5, 1.0]
        >>> IsotonicCalibrator(centered=True).fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1]
        ...     ).predict_pass_proba([0.2, 0.25]).round(3).tolist()
        [0.333, 0.5]
    """

    kind = "isotonic"
    max_metrics = 1
    fitted_arrays: ClassVar[dict[str, str]] = {"x": "x_thresholds_", "y": "y_thresholds_"}

    centered: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        self.x_thresholds_: FloatArray | None = None
        self.y_thresholds_: FloatArray | None = None

    def _fit(self, x: FloatArray, codes: IntArray) -> None:
        from sklearn.isotonic import IsotonicRegression

        model = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
        model.fit(x[:, 0], codes.astype(np.float64))
        if not self.centered:
            self.x_thresholds_ = np.asarray(model.X_thresholds_, dtype=np.float64)
            self.y_thresholds_ = np.asarray(model.y_thresholds_, dtype=np.float64)
            return
        xs = np.sort(x[:, 0])
        fitted = model.predict(xs)
        starts = np.concatenate([[0], np.flatnonzero(np.diff(fitted) != 0) + 1])
        centroids = np.add.reduceat(xs, starts) / np.diff(np.append(starts, len(xs)))
        self.x_thresholds_ = np.asarray(centroids, dtype=np.float64)
        self.y_thresholds_ = np.asarray(fitted[starts], dtype=np.float64)

    def _proba(self, x: FloatArray) -> FloatArray:
        assert self.x_thresholds_ is not None and self.y_thresholds_ is not None
        knots = self.x_thresholds_
        p = np.interp(x[:, 0], knots, self.y_thresholds_)
        span = float(knots[-1] - knots[0]) or 1.0
        rank = np.clip((x[:, 0] - knots[0]) / span, 0.0, 1.0)
        p = (1.0 - _TIE_BREAK) * p + _TIE_BREAK * rank  # strictly increasing, still in [0, 1]
        return np.column_stack([1.0 - p, p])
