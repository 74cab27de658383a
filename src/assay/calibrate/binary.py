"""Binary calibrators: logistic (Platt scaling) and isotonic regression."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.calibrate._arrays import FloatArray, IntArray
from assay.calibrate.base import Calibrator
from assay.params import check


def _expit(z: FloatArray) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)), dtype=np.float64)


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

    def __init__(
        self,
        metrics: Sequence[str] | None = None,
        higher_is_better: Sequence[bool] | None = None,
        pass_at: float | None = None,
        C: float | None = None,
    ) -> None:
        super().__init__(metrics, higher_is_better, pass_at)
        check(C is None or C > 0, "C", "LogisticCalibrator", "None or a positive number", C)
        self.C = C
        self.coef_: FloatArray | None = None
        self.intercept_: float = 0.0

    def _extra_params(self) -> dict[str, Any]:
        return {"C": self.C}

    def _fit(self, x: FloatArray, codes: IntArray) -> None:
        from sklearn.linear_model import LogisticRegression

        model = LogisticRegression(C=math.inf if self.C is None else self.C, max_iter=1000)
        model.fit(x, codes)
        self.coef_ = np.asarray(model.coef_[0], dtype=np.float64)
        self.intercept_ = float(model.intercept_[0])

    def _proba(self, x: FloatArray) -> FloatArray:
        assert self.coef_ is not None
        p = _expit(x @ self.coef_ + self.intercept_)
        return np.column_stack([1.0 - p, p])

    def _get_state(self) -> dict[str, Any]:
        assert self.coef_ is not None
        return {"coef": self.coef_.tolist(), "intercept": self.intercept_}

    def _set_state(self, state: dict[str, Any]) -> None:
        self.coef_ = np.asarray(state["coef"], dtype=np.float64)
        self.intercept_ = float(state["intercept"])


class IsotonicCalibrator(Calibrator):
    """Isotonic regression of PASS on one metric: a non-decreasing step map, no shape assumed.

    Scores outside the fitted range take the probability at the nearest end.

    Example:
        >>> cal = IsotonicCalibrator().fit([0.1, 0.2, 0.3, 0.4], [0, 1, 0, 1])
        >>> cal.predict_pass_proba([0.0, 0.25, 1.0]).tolist()
        [0.0, 0.5, 1.0]
    """

    kind = "isotonic"
    max_metrics = 1

    def __init__(
        self,
        metrics: Sequence[str] | None = None,
        higher_is_better: Sequence[bool] | None = None,
        pass_at: float | None = None,
    ) -> None:
        super().__init__(metrics, higher_is_better, pass_at)
        self.x_thresholds_: FloatArray | None = None
        self.y_thresholds_: FloatArray | None = None

    def _fit(self, x: FloatArray, codes: IntArray) -> None:
        from sklearn.isotonic import IsotonicRegression

        model = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
        model.fit(x[:, 0], codes.astype(np.float64))
        self.x_thresholds_ = np.asarray(model.X_thresholds_, dtype=np.float64)
        self.y_thresholds_ = np.asarray(model.y_thresholds_, dtype=np.float64)

    def _proba(self, x: FloatArray) -> FloatArray:
        assert self.x_thresholds_ is not None and self.y_thresholds_ is not None
        p = np.interp(x[:, 0], self.x_thresholds_, self.y_thresholds_)
        return np.column_stack([1.0 - p, p])

    def _get_state(self) -> dict[str, Any]:
        assert self.x_thresholds_ is not None and self.y_thresholds_ is not None
        return {"x": self.x_thresholds_.tolist(), "y": self.y_thresholds_.tolist()}

    def _set_state(self, state: dict[str, Any]) -> None:
        self.x_thresholds_ = np.asarray(state["x"], dtype=np.float64)
        self.y_thresholds_ = np.asarray(state["y"], dtype=np.float64)
