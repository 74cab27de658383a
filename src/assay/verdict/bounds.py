"""One-sided confidence bounds on a rate: exact Clopper–Pearson and prediction-powered inference.

A dimension's check is a rate over cases (share of correct answers, share without an unsupported
claim, attack success rate...). Two bounds are offered:

* :func:`clopper_pearson` — exact binomial bound from human-labelled cases alone. Valid for any
  sample size, whatever the metrics; wide when labels are few.
* :func:`ppi_bound` — prediction-powered inference (Angelopoulos et al., *Science* 2023; PPI++
  power tuning, Angelopoulos, Duchi & Zrnic 2023) through ``ppi-python``: the labelled cases
  *rectify* the predictions made on every unlabelled case. Valid (asymptotically) whatever the
  predictions' quality; the better they agree with humans, the tighter the bound.

``ppi-python`` returns two-sided intervals only, so a one-sided bound at level ``c`` is the matching
side of the two-sided interval at level ``2c − 1`` (both leave ``1 − c`` in that tail).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from assay.params import check, check_choice

LOWER, UPPER = "lower", "upper"


@dataclass(frozen=True)
class RateBound:
    """A point estimate of a rate and one one-sided confidence bound.

    Attributes:
        estimate: the point estimate of the rate.
        bound: the bound (a lower bound when ``side`` is ``"lower"``).
        side: ``"lower"`` or ``"upper"``.
        confidence: the bound's confidence level.
        method: ``"clopper-pearson"`` or ``"ppi"``.
        n_labelled: human-labelled cases used.
        n_predicted: cases contributing machine predictions only (0 for Clopper–Pearson).
    """

    estimate: float
    bound: float
    side: str
    confidence: float
    method: str
    n_labelled: int
    n_predicted: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def _check_common(side: str, confidence: float, where: str) -> None:
    check_choice(side, (LOWER, UPPER), "side", where)
    check(0.5 < confidence < 1.0, "confidence", where, "in (0.5, 1)", confidence)


def clopper_pearson(successes: int, n: int, confidence: float, side: str = LOWER) -> RateBound:
    """Exact one-sided Clopper–Pearson bound on a binomial rate.

    Example:
        >>> b = clopper_pearson(18, 18, 0.95)  # 18 of 18 correct: 0.05 ** (1 / 18)
        >>> round(b.bound, 4)
        0.8467
        >>> round(clopper_pearson(0, 20, 0.95, side="upper").bound, 4)  # rule of three
        0.1391
    """
    _check_common(side, confidence, "clopper_pearson")
    check(n >= 0 and 0 <= successes <= n, "successes", "clopper_pearson", f"in [0, {n}]", successes)
    from scipy.stats import beta

    alpha = 1.0 - confidence
    estimate = successes / n if n else math.nan
    if side == LOWER:
        bound = 0.0 if successes == 0 else float(beta.ppf(alpha, successes, n - successes + 1))
    else:
        bound = 1.0 if successes == n else float(beta.ppf(1 - alpha, successes + 1, n - successes))
    return RateBound(estimate, bound, side, confidence, "clopper-pearson", n)


def ppi_bound(
    labels: Any,
    predictions_labelled: Any,
    predictions_unlabelled: Any,
    confidence: float,
    side: str = LOWER,
) -> RateBound:
    """Prediction-powered one-sided bound on the mean of ``labels`` over the whole population.

    Args:
        labels: human outcomes (1 = PASS) of the labelled cases.
        predictions_labelled: the machine's prediction (in [0, 1]) for the same labelled cases.
        predictions_unlabelled: the machine's prediction for every unlabelled case.
        confidence: level of the one-sided bound.
        side: ``"lower"`` or ``"upper"``.

    Example:
        >>> y = np.array([1.0] * 18 + [0.0] * 2)
        >>> b = ppi_bound(y, y, np.array([1.0] * 180 + [0.0] * 20), 0.95)
        >>> round(b.estimate, 3), b.bound > clopper_pearson(18, 20, 0.95).bound
        (0.9, True)
    """
    _check_common(side, confidence, "ppi_bound")
    from ppi_py import ppi_mean_ci

    y = np.asarray(labels, dtype=np.float64)
    yhat = np.asarray(predictions_labelled, dtype=np.float64)
    yhat_u = np.asarray(predictions_unlabelled, dtype=np.float64)
    check(len(y) == len(yhat) and len(y) >= 2, "labels", "ppi_bound", "≥ 2 labelled cases", len(y))
    check(len(yhat_u) >= 1, "predictions_unlabelled", "ppi_bound", "non-empty", len(yhat_u))
    alpha_two_sided = 2.0 * (1.0 - confidence)
    if np.ptp(y - yhat) == 0 and np.ptp(yhat_u) == 0:
        # No variance at all: the interval degenerates to the point estimate.
        low = high = float(yhat_u.mean() + (y - yhat).mean())
    else:
        low_a, high_a = ppi_mean_ci(y, yhat, yhat_u, alpha=alpha_two_sided)
        low, high = float(np.ravel(low_a)[0]), float(np.ravel(high_a)[0])
    estimate = float(np.clip((low + high) / 2.0, 0.0, 1.0))
    bound = float(np.clip(low if side == LOWER else high, 0.0, 1.0))
    return RateBound(estimate, bound, side, confidence, "ppi", len(y), len(yhat_u))


def ppi_available() -> bool:
    """Whether ``ppi-python`` (extra ``verdict``) is installed."""
    from importlib.util import find_spec

    return find_spec("ppi_py") is not None


def labels_to_decide(successes: int, n: int, target: float, confidence: float) -> int | None:
    """How many labelled cases in all would decide ``rate ≥ target`` if the observed rate held.

    Returns the smallest total ``N ≥ n`` (searched up to 100,000) at which the exact lower bound
    reaches the target (or the upper bound falls below it), or None when the observed rate equals
    the target (no sample size decides it) or nothing was observed.

    Example:
        >>> labels_to_decide(18, 18, 0.9, 0.95)  # all correct so far: 29 in all would show ≥ 0.9
        29
    """
    if n == 0:
        return None
    rate = successes / n
    if math.isclose(rate, target):
        return None
    total = n
    while total <= 100_000:
        k = round(rate * total)
        if rate > target and clopper_pearson(k, total, confidence, LOWER).bound >= target:
            return total
        if rate < target and clopper_pearson(k, total, confidence, UPPER).bound < target:
            return total
        total = total + 1 if total < 200 else math.ceil(total * 1.05)
    return None
