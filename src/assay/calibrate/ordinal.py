"""Ordinal calibration: the cumulative-logit (proportional-odds) model for graded labels.

``P(Y ≤ j | s) = σ(θ_j − s·β)`` with ordered cut-points ``θ_1 < … < θ_{K−1}``. It is fitted by
maximum likelihood with :func:`scipy.optimize.minimize` (L-BFGS-B, analytic gradient) rather than
statsmodels' ``OrderedModel``: the model has K−1+d parameters, the code is short, it keeps
statsmodels (and patsy) out of the dependencies, and the cut-points are kept ordered by
construction (θ = cumsum of [a₀, exp(a₁), …]). A parity test checks it against statsmodels when
that is installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from assay.calibrate._arrays import FloatArray, IntArray
from assay.calibrate.base import Calibrator
from assay.errors import InvalidInputError
from assay.params import check


def _sigmoid(z: FloatArray) -> FloatArray:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)), dtype=np.float64)


def _cutpoints(a: FloatArray) -> FloatArray:
    return np.cumsum(np.concatenate([a[:1], np.exp(a[1:])]))


@dataclass(eq=False, repr=False)
class OrdinalCalibrator(Calibrator):
    """Cumulative-logit model of ordered labels (e.g. quality 1–5) on one or several metrics.

    Args:
        l2: ridge penalty on the slopes (on standardised scores); 0 is plain maximum likelihood.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> s = rng.normal(size=300)
        >>> y = np.digitize(s + rng.logistic(size=300) * 0.5, [-1.0, 0.0, 1.0]) + 1
        >>> cal = OrdinalCalibrator().fit(s, y)
        >>> cal.classes_, cal.predict_proba([[-3.0], [3.0]]).argmax(axis=1).tolist()
        ([1, 2, 3, 4], [0, 3])
    """

    kind = "ordinal"
    multiclass = True
    fitted_arrays: ClassVar[dict[str, str]] = {"coef": "coef_", "cutpoints": "cutpoints_"}

    l2: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        check(self.l2 >= 0, "l2", "OrdinalCalibrator", "a non-negative number", self.l2)
        self.coef_: FloatArray | None = None
        self.cutpoints_: FloatArray | None = None

    def _fit(self, x: FloatArray, codes: IntArray) -> None:
        from scipy.optimize import minimize

        n_classes = int(codes.max()) + 1
        if sorted(set(codes.tolist())) != list(range(n_classes)):
            raise InvalidInputError("OrdinalCalibrator.fit: internal class coding error")
        mean, std = x.mean(axis=0), x.std(axis=0)
        std[std == 0] = 1.0
        z = (x - mean) / std
        d = z.shape[1]
        prior = np.cumsum(np.bincount(codes, minlength=n_classes))[:-1] / len(codes)
        theta0 = np.log(prior / (1 - prior))
        a0 = np.concatenate([theta0[:1], np.log(np.maximum(np.diff(theta0), 1e-3))])
        start = np.concatenate([np.zeros(d), a0])

        def objective(params: FloatArray) -> tuple[float, FloatArray]:
            return _neg_log_likelihood(params, z, codes, n_classes, self.l2)

        result = minimize(
            objective, start, jac=True, method="L-BFGS-B", options={"maxiter": 2000, "gtol": 1e-8}
        )
        beta_std = result.x[:d]
        theta_std = _cutpoints(result.x[d:])
        # back to raw scores: s·β_raw with β_raw = β/std, θ_raw = θ + mean·β_raw
        self.coef_ = beta_std / std
        self.cutpoints_ = theta_std + float(mean @ self.coef_)
        self.fit_summary_ = {"converged": bool(result.success), "nll": float(result.fun)}

    def _proba(self, x: FloatArray) -> FloatArray:
        assert self.coef_ is not None and self.cutpoints_ is not None
        eta = x @ self.coef_
        cdf = _sigmoid(self.cutpoints_[None, :] - eta[:, None])
        cdf = np.column_stack([np.zeros(len(x)), cdf, np.ones(len(x))])
        return np.asarray(np.diff(cdf, axis=1), dtype=np.float64)


def _neg_log_likelihood(
    params: FloatArray, z: FloatArray, codes: IntArray, n_classes: int, l2: float
) -> tuple[float, FloatArray]:
    """Negative log-likelihood of the cumulative-logit model and its gradient."""
    d = z.shape[1]
    beta, a = params[:d], params[d:]
    theta = _cutpoints(a)
    eta = z @ beta
    upper_ok = codes < n_classes - 1
    lower_ok = codes > 0
    t_up = np.where(upper_ok, theta[np.minimum(codes, n_classes - 2)], 0.0) - eta
    t_lo = np.where(lower_ok, theta[np.maximum(codes - 1, 0)], 0.0) - eta
    f_up = np.where(upper_ok, _sigmoid(t_up), 1.0)
    f_lo = np.where(lower_ok, _sigmoid(t_lo), 0.0)
    p = np.maximum(f_up - f_lo, 1e-300)
    dens_up = np.where(upper_ok, f_up * (1 - f_up), 0.0)
    dens_lo = np.where(lower_ok, f_lo * (1 - f_lo), 0.0)
    nll = -float(np.sum(np.log(p))) + l2 * float(beta @ beta)
    # d(-log p)/d eta, then d/d theta_m
    g_eta = (dens_up - dens_lo) / p
    g_beta = z.T @ g_eta + 2 * l2 * beta
    g_theta = np.zeros(n_classes - 1)
    np.add.at(g_theta, np.minimum(codes, n_classes - 2)[upper_ok], -(dens_up / p)[upper_ok])
    np.add.at(g_theta, np.maximum(codes - 1, 0)[lower_ok], (dens_lo / p)[lower_ok])
    # theta_m = a_0 + sum_{1<=l<=m} exp(a_l)
    tail = np.cumsum(g_theta[::-1])[::-1]  # sum over m >= l
    g_a = np.concatenate([[tail[0]], tail[1:] * np.exp(a[1:])])
    return nll, np.concatenate([g_beta, g_a])
