"""Threshold rules on *oriented* scores (higher = closer to PASS) and 0/1 labels (1 = PASS).

Each rule returns ``(threshold, details)``; a case passes when ``score >= threshold``. A threshold
of ``+inf`` means that no score can be trusted to pass. :mod:`assay.calibrate.thresholds` wraps
the rules with held-out error rates and bootstrap intervals, and handles lower-is-better metrics.

A rule never returns a finite threshold outside the scores it was fitted on without saying so:
``μ − z·σ`` of a [0, 1] metric can fall below 0 (−0.318 was seen), which reads as a value of the
metric it can never take. Such thresholds are clipped to the span of the observed scores (or to
``bounds``, the metric's range on the oriented scale, when given) and ``details["clipped"]``
records the raw value. Rules listed in the threshold paper: the normal (risk-appetite) rule, KDE,
logistic regression with ROC criteria, polynomial logistic regression, splines (GAM) and k-fold.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from assay.calibrate._arrays import FloatArray, IntArray
from assay.calibrate._logistic import fit_logistic
from assay.calibrate.conformal import conformal_quantile
from assay.errors import InvalidInputError
from assay.params import check, check_choice

#: risk appetite → confidence level
RISK_APPETITE: dict[str, float] = {"high": 0.90, "moderate": 0.95, "low": 0.99}

Rule = Callable[..., tuple[float, dict[str, Any]]]


def confidence_level(risk: str | float) -> float:
    """Map a risk appetite (``high`` 90 %, ``moderate`` 95 %, ``low`` 99 %) or a number to a level.

    Example:
        >>> confidence_level("low"), confidence_level(0.8)
        (0.99, 0.8)
    """
    if isinstance(risk, str):
        if risk not in RISK_APPETITE:
            raise InvalidInputError(
                f"The 'risk' parameter must be one of {', '.join(RISK_APPETITE)} or a number in "
                f"(0, 1); got {risk!r} instead."
            )
        return RISK_APPETITE[risk]
    check(0 < float(risk) < 1, "risk", "confidence_level", "a level in (0, 1)", risk)
    return float(risk)


def _split(s: FloatArray, y: IntArray) -> tuple[FloatArray, FloatArray]:
    good, bad = s[y == 1], s[y == 0]
    if len(good) < 2 or len(bad) < 2:
        raise InvalidInputError(
            f"threshold selection needs at least 2 PASS and 2 FAIL cases; got {len(good)} PASS "
            f"and {len(bad)} FAIL"
        )
    return good, bad


def clip_threshold(
    threshold: float,
    s: FloatArray,
    details: dict[str, Any],
    bounds: tuple[float, float] | None = None,
) -> float:
    """Clip a finite ``threshold`` to ``bounds`` (default: the span of the scores ``s``) and
    record the raw value in ``details["clipped"]``; ``±inf`` ("nothing passes") is kept.

    Example:
        >>> d = {}
        >>> clip_threshold(-0.318, np.array([0.1, 0.9]), d, bounds=(0.0, 1.0)), d["clipped"]["raw"]
        (0.0, -0.318)
    """
    if not math.isfinite(threshold):
        return threshold
    low, high = bounds if bounds is not None else (float(s.min()), float(s.max()))
    clipped = min(max(threshold, low), high)
    if clipped != threshold:
        where = "the metric's range" if bounds is not None else "the observed scores"
        details["clipped"] = {
            "raw": threshold,
            "to": clipped,
            "reason": f"the rule's threshold {threshold:.4g} lies outside {where} "
            f"[{low:.4g}, {high:.4g}]",
        }
    return clipped


def normal_threshold(
    s: FloatArray,
    y: IntArray,
    *,
    confidence: float = 0.95,
    bounds: tuple[float, float] | None = None,
) -> tuple[float, dict[str, Any]]:
    """Risk-appetite rule ``μ − z·σ`` of the PASS scores: under normality a PASS case falls
    below it (Type I error) with probability ``1 − confidence``.

    Example:
        >>> s = np.array([0.0, 0.2, 0.8, 1.0, 1.2]); y = np.array([0, 0, 1, 1, 1])
        >>> t, d = normal_threshold(s, y, confidence=0.95)
        >>> round(t, 3), round(d["z"], 3)
        (0.671, 1.645)
    """
    from scipy.stats import norm

    good, _ = _split(s, y)
    z = float(norm.ppf(confidence))
    mu, sigma = float(good.mean()), float(good.std(ddof=1))
    details = {"confidence": confidence, "z": z, "mean_pass": mu, "std_pass": sigma}
    return clip_threshold(mu - z * sigma, s, details, bounds), details


def binned_kde(values: FloatArray, grid: FloatArray) -> FloatArray:
    """Gaussian kernel density of ``values`` on an evenly spaced ``grid`` (Scott's bandwidth, as
    :class:`scipy.stats.gaussian_kde`), by binning onto the grid and convolving: O(n + grid²).

    Example:
        >>> from scipy.stats import gaussian_kde
        >>> v = np.random.default_rng(0).normal(size=2000); g = np.linspace(-4, 4, 801)
        >>> bool(np.max(np.abs(binned_kde(v, g) - gaussian_kde(v)(g))) < 0.005)
        True
    """
    n = len(values)
    h = float(np.std(values, ddof=1)) * n ** (-1 / 5)
    dx = float(grid[1] - grid[0])
    index = np.clip(np.rint((values - grid[0]) / dx).astype(int), 0, len(grid) - 1)
    counts = np.bincount(index, minlength=len(grid)).astype(np.float64)
    if h <= 0:
        return counts / (n * dx)
    half = int(min(len(grid), math.ceil(5 * h / dx)))
    offsets = np.arange(-half, half + 1) * dx
    kernel = np.exp(-0.5 * (offsets / h) ** 2) / (h * math.sqrt(2 * math.pi))
    return np.asarray(np.convolve(counts, kernel)[half : half + len(grid)] / n, dtype=np.float64)


def kde_threshold(
    s: FloatArray, y: IntArray, *, rule: str = "midpoint", grid_size: int = 1024
) -> tuple[float, dict[str, Any]]:
    """Midpoint between the modes of the kernel density estimates of PASS and FAIL scores
    (``rule="midpoint"``), or the point between the modes where the two densities cross
    (``rule="intersection"``; falls back to the midpoint when they do not cross).

    Example:
        >>> rng = np.random.default_rng(0)
        >>> s = np.concatenate([rng.normal(0, 1, 2000), rng.normal(4, 1, 2000)])
        >>> y = np.repeat([0, 1], 2000)
        >>> abs(kde_threshold(s, y)[0] - 2.0) < 0.2
        True
    """
    check_choice(rule, ("midpoint", "intersection"), "rule", "kde_threshold")
    good, bad = _split(s, y)
    grid = np.linspace(s.min(), s.max(), grid_size)
    f_good, f_bad = binned_kde(good, grid), binned_kde(bad, grid)
    mode_good, mode_bad = float(grid[np.argmax(f_good)]), float(grid[np.argmax(f_bad)])
    midpoint = (mode_good + mode_bad) / 2
    details = {"rule": rule, "mode_pass": mode_good, "mode_fail": mode_bad, "midpoint": midpoint}
    if rule == "midpoint":
        return midpoint, details
    lo, hi = sorted((mode_good, mode_bad))
    inside = (grid >= lo) & (grid <= hi)
    diff = (f_good - f_bad)[inside]
    crossings = np.flatnonzero(np.diff(np.sign(diff)) != 0)
    if crossings.size == 0:
        details["crossed"] = False
        return midpoint, details
    g = grid[inside]
    points = []
    for c in crossings:  # linear interpolation of the sign change
        d0, d1 = diff[c], diff[c + 1]
        points.append(float(g[c] + (g[c + 1] - g[c]) * d0 / (d0 - d1)))
    best = min(points, key=lambda p: abs(p - midpoint))
    details["crossed"] = True
    return best, details


def _logistic(s: FloatArray, y: IntArray) -> tuple[float, float]:
    """Slope and intercept of the logistic regression of PASS on one score."""
    mean, std = float(s.mean()), float(s.std()) or 1.0
    intercept, slope = fit_logistic(((s - mean) / std).reshape(-1, 1), y)
    return float(slope / std), float(intercept - slope * mean / std)


def logistic_roc_threshold(
    s: FloatArray, y: IntArray, *, criterion: str = "youden", false_pass_rate: float = 0.05
) -> tuple[float, dict[str, Any]]:
    """Logistic regression of PASS on the score, then the ROC curve of its probabilities:
    ``criterion="youden"`` maximises TPR − FPR; ``"false_pass"`` takes the most lenient cut whose
    false-pass rate (FPR) on the data is at most ``false_pass_rate``. The cut is mapped back to
    the score scale.

    Example:
        >>> s = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9]); y = np.array([0, 0, 0, 1, 1, 1])
        >>> logistic_roc_threshold(s, y)[0]
        0.6
    """
    from sklearn.metrics import roc_curve

    check_choice(criterion, ("youden", "false_pass"), "criterion", "logistic_roc_threshold")
    _split(s, y)
    slope, intercept = _logistic(s, y)
    if slope <= 0:
        raise InvalidInputError(
            "the logistic fit of PASS on this metric has a non-positive slope: the metric does "
            "not rise with PASS, so it cannot be thresholded"
        )
    proba = 1.0 / (1.0 + np.exp(-(slope * s + intercept)))
    fpr, tpr, cuts = roc_curve(y, proba)
    if criterion == "youden":
        j = tpr - fpr
        k = int(np.argmax(j))
        details: dict[str, Any] = {"youden_j": float(j[k])}
    else:
        check(
            0 < false_pass_rate < 1,
            "false_pass_rate",
            "logistic_roc_threshold",
            "in (0, 1)",
            false_pass_rate,
        )
        allowed = np.flatnonzero(fpr <= false_pass_rate)
        k = int(allowed[np.argmax(tpr[allowed])])
        details = {"target_false_pass_rate": false_pass_rate}
    cut = float(cuts[k])
    details.update(
        {
            "slope": slope,
            "intercept": intercept,
            "probability_cut": min(cut, 1.0),
            "tpr": float(tpr[k]),
            "fpr": float(fpr[k]),
        }
    )
    if not np.isfinite(cut) or cut > 1:
        return math.inf, details
    # the ROC cut is a fitted probability of a data point; return that point's score exactly
    return float(s[np.argmin(np.abs(proba - cut))]), details


def spline_threshold(
    s: FloatArray,
    y: IntArray,
    *,
    probability: float = 0.5,
    n_knots: int = 5,
    C: float = 1.0,
    grid_size: int = 1024,
) -> tuple[float, dict[str, Any]]:
    """GAM-style logistic model (cubic B-splines of the score + L2 logistic regression); the
    threshold is the lowest score above which the fitted P(PASS) stays at or above ``probability``.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> s = np.concatenate([rng.normal(0, 1, 3000), rng.normal(2, 1, 3000)])
        >>> abs(spline_threshold(s, np.repeat([0, 1], 3000))[0] - 1.0) < 0.15
        True
    """
    from sklearn.preprocessing import SplineTransformer

    check(0 < probability < 1, "probability", "spline_threshold", "in (0, 1)", probability)
    check(C > 0, "C", "spline_threshold", "a positive number", C)
    _split(s, y)
    basis = SplineTransformer(n_knots=n_knots, degree=3, extrapolation="linear")
    basis.fit(s.reshape(-1, 1))

    def design(values: FloatArray) -> FloatArray:
        return np.asarray(basis.transform(values.reshape(-1, 1))[:, 1:])  # the intercept column

    grid, p, _ = _fitted_curve(s, y, design, C, grid_size)
    details: dict[str, Any] = {"probability": probability, "n_knots": n_knots, "C": C}
    return _crossing(grid, p, probability, details), details


def _fitted_curve(
    s: FloatArray, y: IntArray, design: Callable[[FloatArray], FloatArray], C: float,
    grid_size: int,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``P(PASS) = σ(β₀ + design(score) · β)`` fitted with the L2 penalty ``1 / C``, on
    ``grid_size`` scores over the range of ``s``: the grid, P(PASS) there, and ``β``."""
    beta = fit_logistic(design(s), y, l2=1.0 / C)
    grid = np.linspace(s.min(), s.max(), grid_size)
    p = 1.0 / (1.0 + np.exp(-(beta[0] + design(grid) @ beta[1:])))
    return grid, p, beta


def _crossing(
    grid: FloatArray, p: FloatArray, probability: float, details: dict[str, Any]
) -> float:
    """The lowest grid score above which ``p`` stays at or above ``probability`` (interpolated);
    ``+inf`` when ``p`` never gets there."""
    below = np.flatnonzero(p < probability)
    if below.size == 0:
        return float(grid[0])
    last = int(below[-1])
    if last == len(grid) - 1:
        details["reached"] = False
        return math.inf
    p0, p1 = p[last], p[last + 1]
    return float(grid[last] + (grid[last + 1] - grid[last]) * (probability - p0) / (p1 - p0))


def polynomial_logistic_threshold(
    s: FloatArray,
    y: IntArray,
    *,
    degree: int = 2,
    probability: float = 0.5,
    C: float = 1.0,
    grid_size: int = 1024,
) -> tuple[float, dict[str, Any]]:
    """Polynomial logistic regression (the threshold paper's variant of the logistic rule):
    P(PASS) = σ(β₀ + β₁z + … + β_d z^d) on the standardised score z, L2-penalised; the threshold
    is the lowest score above which the fitted P(PASS) stays at or above ``probability``.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> s = np.concatenate([rng.normal(0, 1, 3000), rng.normal(2, 1, 3000)])
        >>> abs(polynomial_logistic_threshold(s, np.repeat([0, 1], 3000))[0] - 1.0) < 0.1
        True
    """
    where = "polynomial_logistic_threshold"
    check(isinstance(degree, int) and 1 <= degree <= 6, "degree", where, "in 1..6", degree)
    check(0 < probability < 1, "probability", where, "in (0, 1)", probability)
    check(C > 0, "C", where, "a positive number", C)
    _split(s, y)
    mean, std = float(s.mean()), float(s.std()) or 1.0

    def design(values: FloatArray) -> FloatArray:
        z = (values - mean) / std
        return np.column_stack([z**d for d in range(1, degree + 1)])

    grid, p, beta = _fitted_curve(s, y, design, C, grid_size)
    details: dict[str, Any] = {
        "degree": degree,
        "probability": probability,
        "C": C,
        "coefficients": [float(b) for b in beta],
    }
    return _crossing(grid, p, probability, details), details


def conformal_threshold(
    s: FloatArray, y: IntArray, *, false_pass_rate: float = 0.05
) -> tuple[float, dict[str, Any]]:
    """Threshold with a guaranteed false-pass rate: with ``k = ⌈(n+1)(1−α)⌉`` over the ``n`` FAIL
    scores, a case passes when its score is *above* the k-th smallest FAIL score; a new FAIL case,
    exchangeable with these, then passes with probability ≤ α (finite-sample, distribution-free).

    Example:
        >>> s = np.arange(20.0); y = np.array([0] * 10 + [1] * 10)
        >>> conformal_threshold(s, y, false_pass_rate=0.1)[0] > 9.0   # above every FAIL score
        True
    """
    check(
        0 < false_pass_rate < 1,
        "false_pass_rate",
        "conformal_threshold",
        "in (0, 1)",
        false_pass_rate,
    )
    _, bad = _split(s, y)
    q = conformal_quantile(bad, false_pass_rate)
    details: dict[str, Any] = {
        "false_pass_rate": false_pass_rate,
        "n_fail": len(bad),
        "fail_quantile": q,
    }
    if not math.isfinite(q):
        details["note"] = (
            f"too few FAIL cases ({len(bad)}) to guarantee a false-pass rate of "
            f"{false_pass_rate}; nothing passes"
        )
        return math.inf, details
    return float(np.nextafter(q, math.inf)), details


RULES: dict[str, tuple[Rule, dict[str, Any]]] = {
    "normal": (normal_threshold, {}),
    "kde": (kde_threshold, {}),
    "logistic_youden": (logistic_roc_threshold, {"criterion": "youden"}),
    "logistic_false_pass": (logistic_roc_threshold, {"criterion": "false_pass"}),
    "polynomial": (polynomial_logistic_threshold, {}),
    "spline": (spline_threshold, {}),
    "conformal": (conformal_threshold, {}),
}
