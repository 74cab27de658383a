"""Split conformal prediction for classifiers (HCAT §5.2; Vovk et al., Angelopoulos & Bates).

The non-conformity of a labelled case is ``1 − p̂(y | x)``. On a calibration split that was *not*
used to fit the probability model, ``q̂`` is the ⌈(n+1)(1−α)⌉-th smallest non-conformity score
(equivalently the empirical quantile at level ⌈(n+1)(1−α)⌉/n). The prediction set of a new case is
``{y : 1 − p̂(y | x) ≤ q̂}``; for exchangeable data it contains the true label with probability at
least ``1 − α``. With two classes the set is {FAIL}, {PASS}, {FAIL, PASS} (ambiguous) or ∅ (no label
is plausible); ambiguous and empty sets go to human review.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from assay.calibrate._arrays import BoolArray, FloatArray, IntArray
from assay.errors import InvalidInputError, NotFittedError
from assay.params import check


class ProbabilisticClassifier(Protocol):
    """Anything with ``predict_proba(X) -> (n, K)`` whose columns follow class codes 0..K-1."""

    def predict_proba(self, scores: Any) -> FloatArray: ...  # pragma: no cover


def conformal_quantile(nonconformity: Any, alpha: float) -> float:
    """The split-conformal quantile: the ⌈(n+1)(1−α)⌉-th smallest score (∞ when that exceeds n).

    Example:
        >>> conformal_quantile([0.1, 0.2, 0.3, 0.4], alpha=0.5)  # k = ceil(5 * 0.5) = 3
        0.3
        >>> conformal_quantile([0.1, 0.2], alpha=0.1)
        inf
    """
    check(0.0 < alpha < 1.0, "alpha", "conformal_quantile", "in (0, 1)", alpha)
    values = np.sort(np.asarray(nonconformity, dtype=np.float64).ravel())
    n = values.size
    check(n > 0, "nonconformity", "conformal_quantile", "non-empty", n)
    # a tiny tolerance keeps (n+1)(1-alpha) = 9.000000000000002 from rounding up to 10
    k = math.ceil((n + 1) * (1.0 - alpha) - 1e-9)
    return math.inf if k > n else float(values[k - 1])


def nonconformity_scores(proba: FloatArray, codes: IntArray) -> FloatArray:
    """``1 − p̂(y_i | x_i)`` for each case.

    Example:
        >>> nonconformity_scores(np.array([[0.2, 0.8], [0.6, 0.4]]), np.array([1, 1])).round(2)
        array([0.2, 0.6])
    """
    if proba.ndim != 2 or len(proba) != len(codes):
        raise InvalidInputError("proba must be (n, K) and match the labels in length")
    if codes.min() < 0 or codes.max() >= proba.shape[1]:
        raise InvalidInputError("labels must be class codes 0..K-1 of the probability columns")
    return np.asarray(1.0 - proba[np.arange(len(codes)), codes], dtype=np.float64)


def prediction_sets(proba: FloatArray, qhat: float) -> BoolArray:
    """Boolean (n, K) membership: class k is in the set when ``1 − p̂_k ≤ q̂``.

    Example:
        >>> prediction_sets(np.array([[0.1, 0.9], [0.45, 0.55]]), qhat=0.6).tolist()
        [[False, True], [True, True]]
    """
    return np.asarray(1.0 - proba <= qhat, dtype=np.bool_)


def smoothed_sets(
    proba: FloatArray, calibration: FloatArray, alpha: float, rng: np.random.Generator
) -> BoolArray:
    """Randomised (smoothed) conformal sets: class k is in the set when its smoothed p-value
    ``(#{a_i > a} + U·(#{a_i = a} + 1)) / (n + 1)`` exceeds ``alpha``, with ``a = 1 − p̂_k``, the
    calibration scores ``a_i`` and one ``U ~ Uniform(0, 1)`` per case. Coverage is then exactly
    ``1 − alpha`` even when scores tie (Vovk, Gammerman & Shafer 2005, §2.4).

    Example:
        >>> sets = smoothed_sets(np.array([[0.3, 0.7]]), np.array([0.3, 0.3, 0.7]), 0.5,
        ...                      np.random.default_rng(0))
        >>> sets.shape
        (1, 2)
    """
    ordered = np.sort(calibration)
    a = 1.0 - proba
    n = len(ordered)
    greater = n - np.searchsorted(ordered, a, side="right")
    equal = np.searchsorted(ordered, a, side="right") - np.searchsorted(ordered, a, side="left")
    u = rng.uniform(size=(len(proba), 1))
    return np.asarray((greater + u * (equal + 1)) / (n + 1) > alpha, dtype=np.bool_)


class SplitConformalClassifier:
    """Split conformal prediction around an already fitted probabilistic classifier (prefit).

    Args:
        estimator: fitted model with ``predict_proba``; its columns are class codes 0..K-1.
        alpha: miscoverage level; sets cover the true label with probability ≥ 1 − alpha.
        randomized: use smoothed p-values (exact coverage 1 − alpha when probabilities tie, e.g.
            for a metric with few distinct values); sets then depend on ``seed`` and on the order
            of the cases in a call. Default: the deterministic, conservative rule ``1 − p̂ ≤ q̂``.
        seed: seed of the uniform draws of the randomised rule.

    Example:
        >>> class Fixed:
        ...     def predict_proba(self, x):
        ...         p = np.clip(np.asarray(x, float).ravel(), 0, 1)
        ...         return np.column_stack([1 - p, p])
        >>> cp = SplitConformalClassifier(Fixed(), alpha=0.2)
        >>> _ = cp.conformalize([0.9, 0.8, 0.3, 0.2, 0.7], np.array([1, 1, 0, 0, 0]))
        >>> cp.predict_set([0.95, 0.5]).tolist()
        [[False, True], [True, True]]
    """

    def __init__(
        self,
        estimator: ProbabilisticClassifier,
        alpha: float = 0.1,
        randomized: bool = False,
        seed: int = 0,
    ) -> None:
        check(0.0 < alpha < 1.0, "alpha", "SplitConformalClassifier", "in (0, 1)", alpha)
        self.estimator = estimator
        self.alpha = alpha
        self.randomized = randomized
        self.seed = seed
        self.qhat_: float | None = None
        self.n_calibration_: int = 0
        self.calibration_scores_: FloatArray | None = None

    def conformalize(self, scores: Any, codes: IntArray) -> SplitConformalClassifier:
        """Compute ``q̂`` on a split independent of the one the estimator was fitted on."""
        proba = self.estimator.predict_proba(scores)
        nonconformity = nonconformity_scores(proba, np.asarray(codes))
        self.qhat_ = conformal_quantile(nonconformity, self.alpha)
        self.n_calibration_ = len(codes)
        self.calibration_scores_ = np.sort(nonconformity) if self.randomized else None
        return self

    def predict_set(self, scores: Any) -> BoolArray:
        """Prediction sets, boolean (n, K)."""
        if self.qhat_ is None:
            raise NotFittedError(
                "SplitConformalClassifier is not conformalized; call conformalize() first"
            )
        proba = self.estimator.predict_proba(scores)
        if self.randomized and self.calibration_scores_ is not None:
            rng = np.random.default_rng(self.seed)
            return smoothed_sets(proba, self.calibration_scores_, self.alpha, rng)
        return prediction_sets(proba, self.qhat_)


def coverage(sets: BoolArray, codes: IntArray) -> float:
    """Fraction of cases whose set contains the true label.

    Example:
        >>> coverage(np.array([[True, False], [True, True]]), np.array([1, 0]))
        0.5
    """
    return float(np.mean(sets[np.arange(len(codes)), codes]))


def set_summary(sets: BoolArray, codes: IntArray | None = None) -> dict[str, Any]:
    """Coverage (when labels are given) and set-size summary: mean size, empty / single / ambiguous.

    Example:
        >>> s = set_summary(np.array([[True, False], [True, True], [False, False]]))
        >>> s["mean_size"], round(s["frac_empty"], 3), round(s["frac_review"], 3)
        (1.0, 0.333, 0.667)
    """
    sizes = sets.sum(axis=1)
    out: dict[str, Any] = {
        "n": len(sizes),
        "mean_size": float(sizes.mean()),
        "frac_empty": float(np.mean(sizes == 0)),
        "frac_singleton": float(np.mean(sizes == 1)),
        "frac_ambiguous": float(np.mean(sizes > 1)),
        "frac_review": float(np.mean(sizes != 1)),
    }
    values, counts = np.unique(sizes, return_counts=True)
    out["size_counts"] = {int(k): int(v) for k, v in zip(values, counts, strict=True)}
    if codes is not None:
        out["coverage"] = coverage(sets, codes)
    return out


def needs_review(sets: BoolArray) -> BoolArray:
    """Cases whose set is empty or holds more than one label (route to a human)."""
    return np.asarray(sets.sum(axis=1) != 1, dtype=np.bool_)
