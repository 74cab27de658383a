"""Error analysis of calibrated decisions: confusion, Type I / II, ECE, Brier, reliability data.

Conventions (used throughout :mod:`assay.calibrate`): *positive* means PASS. The null hypothesis
of a check is "this answer is acceptable", so

* **Type I error** (false fail): a case humans PASS is judged FAIL — ``FN / (TP + FN)``;
* **Type II error** (false pass): a case humans FAIL is judged PASS — ``FP / (FP + TN)``.

A confidence level of 95 % in threshold selection bounds the Type I rate at 5 %; the conformal
threshold bounds the Type II (false-pass) rate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.calibrate._arrays import FloatArray
from assay.errors import InvalidInputError
from assay.params import check_choice, check_int


def decide(scores: Any, threshold: float, higher_is_better: bool = True) -> np.ndarray:
    """PASS decisions: ``score >= threshold`` (``<=`` for lower-is-better metrics).

    Example:
        >>> decide([0.2, 0.5, 0.9], 0.5).tolist()
        [False, True, True]
    """
    s = np.asarray(scores, dtype=np.float64)
    return s >= threshold if higher_is_better else s <= threshold


def confusion(labels: Any, decisions: Any) -> dict[str, int]:
    """Confusion counts with PASS as positive.

    Example:
        >>> confusion([1, 1, 0, 0], [True, False, True, False])
        {'tp': 1, 'fn': 1, 'fp': 1, 'tn': 1}
    """
    y = np.asarray(labels).astype(bool)
    d = np.asarray(decisions).astype(bool)
    if y.shape != d.shape:
        raise InvalidInputError(f"labels {y.shape} and decisions {d.shape} differ in shape")
    return {
        "tp": int(np.sum(y & d)),
        "fn": int(np.sum(y & ~d)),
        "fp": int(np.sum(~y & d)),
        "tn": int(np.sum(~y & ~d)),
    }


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def error_rates(labels: Any, decisions: Any) -> dict[str, Any]:
    """Confusion plus Type I (false fail) and Type II (false pass) rates and accuracy.

    Rates are ``None`` when undefined (e.g. no FAIL case to falsely pass).

    Example:
        >>> r = error_rates([1, 1, 1, 0], [True, True, False, True])
        >>> round(r["type_i"], 3), r["type_ii"], r["accuracy"]
        (0.333, 1.0, 0.5)
    """
    c = confusion(labels, decisions)
    n = sum(c.values())
    return {
        "confusion": c,
        "n": n,
        "type_i": _ratio(c["fn"], c["tp"] + c["fn"]),
        "type_ii": _ratio(c["fp"], c["fp"] + c["tn"]),
        "accuracy": _ratio(c["tp"] + c["tn"], n),
        "pass_rate": _ratio(c["tp"] + c["fp"], n),
    }


def _top_label(proba: FloatArray, codes: np.ndarray) -> tuple[FloatArray, FloatArray]:
    """Binary (n,) → (p, y); multi-class (n, K) → (top-label confidence, top-label correct)."""
    if proba.ndim == 1:
        return proba, codes.astype(np.float64)
    if proba.shape[1] == 2:
        return proba[:, 1], codes.astype(np.float64)
    top = proba.argmax(axis=1)
    return proba.max(axis=1), (top == codes).astype(np.float64)


def reliability_curve(
    proba: Any, labels: Any, n_bins: int = 10, strategy: str = "uniform"
) -> list[dict[str, float | int]]:
    """Reliability-diagram data: per bin, mean predicted probability and observed frequency.

    Binary input (probability of PASS, or an (n, 2) array) bins P(PASS); multi-class (n, K) input
    bins the top-label confidence against top-label accuracy. Empty bins are left out.

    Example:
        >>> rows = reliability_curve([0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1], n_bins=2)
        >>> [(r["n"], round(r["mean_predicted"], 2), r["observed"]) for r in rows]
        [(2, 0.15, 0.0), (2, 0.85, 1.0)]
    """
    check_int(n_bins, "n_bins", "reliability_curve")
    check_choice(strategy, ("uniform", "quantile"), "strategy", "reliability_curve")
    p, y = _top_label(np.asarray(proba, dtype=np.float64), np.asarray(labels))
    if strategy == "uniform":
        edges = np.linspace(0.0, 1.0, n_bins + 1)
    else:
        edges = np.unique(np.quantile(p, np.linspace(0.0, 1.0, n_bins + 1)))
        edges[0], edges[-1] = 0.0, 1.0
    index = np.clip(np.searchsorted(edges[1:-1], p, side="right"), 0, len(edges) - 2)
    rows: list[dict[str, float | int]] = []
    for b in range(len(edges) - 1):
        mask = index == b
        if mask.any():
            rows.append(
                {
                    "lower": float(edges[b]),
                    "upper": float(edges[b + 1]),
                    "n": int(mask.sum()),
                    "mean_predicted": float(p[mask].mean()),
                    "observed": float(y[mask].mean()),
                }
            )
    return rows


def expected_calibration_error(
    proba: Any, labels: Any, n_bins: int = 10, strategy: str = "uniform"
) -> float:
    """ECE: the case-weighted mean gap between predicted probability and observed frequency.

    Example:
        >>> expected_calibration_error([0.9, 0.9, 0.1, 0.1], [1, 0, 0, 0], n_bins=10)
        0.25
    """
    rows = reliability_curve(proba, labels, n_bins, strategy)
    n = sum(int(r["n"]) for r in rows)
    return float(sum(int(r["n"]) * abs(r["mean_predicted"] - r["observed"]) for r in rows) / n)


def brier_score(proba: Any, labels: Any) -> float:
    """Brier score: mean squared error of P(PASS) (binary) or of the class-probability vector.

    Example:
        >>> brier_score([0.8, 0.3], [1, 0])
        0.065
    """
    p = np.asarray(proba, dtype=np.float64)
    codes = np.asarray(labels).astype(np.int64)
    if p.ndim == 2 and p.shape[1] == 2:
        p = p[:, 1]
    if p.ndim == 1:
        return float(round(np.mean((p - codes) ** 2), 12))
    onehot = np.eye(p.shape[1])[codes]
    return float(np.mean(np.sum((p - onehot) ** 2, axis=1)))


def calibration_diagnostics(
    proba: Any, labels: Any, *, decision_threshold: float = 0.5, n_bins: int = 10
) -> dict[str, Any]:
    """ECE, Brier, reliability data and (binary) the confusion of ``P(PASS) >= threshold``."""
    p = np.asarray(proba, dtype=np.float64)
    codes = np.asarray(labels).astype(np.int64)
    out: dict[str, Any] = {
        "n": len(codes),
        "ece": expected_calibration_error(p, codes, n_bins),
        "brier": brier_score(p, codes),
        "reliability": reliability_curve(p, codes, n_bins),
    }
    binary = p.ndim == 1 or p.shape[1] == 2
    if binary:
        pass_p = p if p.ndim == 1 else p[:, 1]
        out["decision_threshold"] = decision_threshold
        out["errors"] = error_rates(codes, pass_p >= decision_threshold)
    else:
        out["accuracy"] = float(np.mean(p.argmax(axis=1) == codes))
        k = p.shape[1]
        matrix = np.zeros((k, k), dtype=int)
        np.add.at(matrix, (codes, p.argmax(axis=1)), 1)
        out["confusion_matrix"] = matrix.tolist()
    return out
