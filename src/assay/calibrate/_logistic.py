"""Logistic regression by Newton–Raphson, shared by Platt scaling and the threshold rules.

A few Newton steps on a handful of columns are ~100x faster than scikit-learn's L-BFGS solver here,
which matters inside bootstrap loops; parity with scikit-learn is tested.
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from assay.calibrate._arrays import FloatArray, IntArray


def fit_logistic(
    features: FloatArray, y: IntArray, *, l2: float | FloatArray = 1e-8, max_iter: int = 100
) -> FloatArray:
    """Penalised logistic regression by Newton–Raphson (IRLS); returns [intercept, *coefs].

    Maximises the log-likelihood minus ``l2/2 · ||β||²`` (``l2``: a number, or one per column;
    scikit-learn's ``C`` is ``l2 = 1/C``). The intercept is not penalised. The default ``1e-8``
    is practically maximum likelihood, yet keeps the fit finite under perfect separation.

    Example:
        >>> x = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 1, 0, 1])
        >>> fit_logistic(x, y).round(3).tolist()
        [-1.362, 0.908]
    """
    design = np.column_stack([np.ones(len(features)), features])
    beta = np.zeros(design.shape[1])
    penalty = np.zeros(design.shape[1])
    penalty[1:] = l2
    for _ in range(max_iter):
        p = expit(design @ beta)  # 1 / (1 + e^-z) without overflow at large |z|
        w = np.maximum(p * (1 - p), 1e-12)
        gradient = design.T @ (y - p) - penalty * beta
        hessian = (design * w[:, None]).T @ design + np.diag(penalty) + 1e-12 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        size = float(np.max(np.abs(step)))
        if size > 5.0:  # damp wild steps (near-separable data)
            step *= 5.0 / size
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return np.asarray(beta, dtype=np.float64)
