"""One-sided confidence bounds on a rate: the exact building blocks of the verdict's bounds.

A dimension's check is a rate over cases (share of correct answers, share without an unsupported
claim, attack success rate...). The bounds offered here are the building blocks; the verdict's
design-based bound of a labelled check (design note 0063) is
:func:`assay.verdict.estimate.design_bounds`:

* :func:`clopper_pearson` — exact binomial bound from human-labelled cases alone. Valid for any
  sample size, whatever the metrics; wide when labels are few.
* :func:`hypergeometric_bound` — exact bound on the number of PASS units of a finite pool from a
  simple random sample drawn from it without replacement (the exact form of Clopper–Pearson for
  a finite population; it is exact, not conservative, when the sample is the whole pool).
* :func:`betting_lower_bound` — the Waudby-Smith & Ramdas (JRSS-B 2024) betting bound on the mean
  of non-negative i.i.d. values, for inverse-probability-weighted draws with replacement.
* :func:`labels_to_decide` — how many cases a rule check's exact bound would need.

Prediction-powered inference (PPI++, through the design-based bound) lives in
:mod:`assay.verdict.estimate`.
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
    """A point estimate of a rate and one one-sided confidence bound, with what it rests on.

    Attributes:
        estimate: the point estimate of the rate (NaN when nothing estimates it).
        bound: the bound (a lower bound when ``side`` is ``"lower"``).
        side: ``"lower"`` or ``"upper"``.
        confidence: the level the plan asks for (before any look spends part of its error).
        method: ``"clopper-pearson"``, ``"ppi"``, ``"census"``, ``"design-normal"``,
            ``"design-hypergeometric"`` or ``"design-betting"`` (see ``docs/verdict.md``).
        n_labelled: human-labelled units in the bound's population (any design).
        n_predicted: units contributing machine predictions.
        n_units: units in the population (N; 0 when not a finite population).
        n_design: labelled draws of design rounds the bound used.
        n_known: labelled units counted exactly (the census part; any design).
        n_unknown_design: labels of design ``unknown`` among them (they never rectify).
        n_missing: draws of a round still awaiting a label (imputed worst-case for the side).
        rounds: numbers of the design rounds used.
        lam: the PPI++ power-tuning weight (the draws' mean, weighted as the rounds; 0 is
            labels-only; None when no design round was used).
        look: the look this bound is (1 for the first assessment of these inputs).
        level: the one-sided confidence actually used, ``1 − α_look`` (see
            :mod:`assay.verdict.looks`).
        variance: the variance of one design draw's pseudo-outcome (what a further label is
            worth; see :func:`assay.verdict.estimate.design_labels_to_decide`).
    """

    estimate: float
    bound: float
    side: str
    confidence: float
    method: str
    n_labelled: int
    n_predicted: int = 0
    n_units: int = 0
    n_design: int = 0
    n_known: int = 0
    n_unknown_design: int = 0
    n_missing: int = 0
    rounds: tuple[int, ...] = ()
    lam: float | None = None
    look: int = 1
    level: float | None = None
    variance: float | None = None

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
    # The beta quantile straight from scipy.special (``scipy.stats.beta.ppf`` is the same
    # function): importing scipy.stats cost ~1.4 s of a 10,000-case ``assay evaluate``.
    from scipy.special import betaincinv

    alpha = 1.0 - confidence
    estimate = successes / n if n else math.nan
    if side == LOWER:
        bound = 0.0 if successes == 0 else float(betaincinv(successes, n - successes + 1, alpha))
    else:
        top = successes == n
        bound = 1.0 if top else float(betaincinv(successes + 1, n - successes, 1 - alpha))
    return RateBound(estimate, bound, side, confidence, "clopper-pearson", n)


def hypergeometric_bound(
    successes: int, draws: int, pool: int, confidence: float, side: str = LOWER
) -> int:
    """Exact one-sided bound on the number of PASS units in a pool of ``pool`` units, from
    ``successes`` among ``draws`` drawn without replacement (a simple random sample).

    The lower bound is the least count ``D`` under which observing ``successes`` or more is not
    rejected at ``1 − confidence`` (the inversion of the hypergeometric test, as Clopper–Pearson
    inverts the binomial one); the upper bound mirrors it.

    Example:
        >>> hypergeometric_bound(10, 10, 10, 0.95)  # the whole pool drawn: known exactly
        10
        >>> hypergeometric_bound(18, 18, 1000, 0.95)  # as Clopper–Pearson: 0.05 ** (1/18) ≈ 0.847
        848
    """
    _check_common(side, confidence, "hypergeometric_bound")
    check(0 <= draws <= pool, "draws", "hypergeometric_bound", f"in [0, {pool}]", draws)
    check(
        0 <= successes <= draws, "successes", "hypergeometric_bound", f"in [0, {draws}]", successes
    )
    from scipy.stats import hypergeom

    alpha = 1.0 - confidence
    counts = np.arange(pool + 1)
    if side == LOWER:
        # P(X >= successes | D) is increasing in D: the least D where it exceeds alpha
        tail = hypergeom.sf(successes - 1, pool, counts, draws)
        return int(counts[np.argmax(tail > alpha)])
    tail = hypergeom.cdf(successes, pool, counts, draws)  # decreasing in D
    return int(counts[len(counts) - 1 - np.argmax(tail[::-1] > alpha)])


def betting_lower_bound(
    values: Any,
    confidence: float,
    grid: int = 2001,
    top: float = 1.0,
    *,
    fixed_n: bool = False,
    cap: float = 0.5,
) -> float:
    """Lower confidence bound on the mean of non-negative values, each of conditional mean ``m``
    given those before it, by betting (Waudby-Smith & Ramdas, *Estimating means of bounded random
    variables by betting*, JRSS-B 2024).

    For each candidate mean ``m`` on a grid of ``[0, top]`` the capital
    ``K_t(m) = Π (1 + λ_i (x_i − m))`` is a non-negative martingale when the mean is ``m``; with
    the predictable plug-in bets ``λ_i ≤ cap / m`` (their eq. 26 takes ``cap`` ½; any ``cap < 1``
    keeps the capital positive) a candidate is rejected once
    the capital reaches ``1 / α`` (Ville's inequality). Values need no upper bound (only
    ``x ≥ 0``), so inverse-probability-weighted draws qualify. The bound is the grid point below
    the least candidate not rejected (conservative by one grid step).

    ``fixed_n``: the number of values was fixed before any was seen, so the bets are tuned for
    that size, ``λ_i = sqrt(2 log(1/α) / (n σ̂²_{i−1}))``, the plug-in their paper gives for a
    confidence interval at a fixed sample size, instead of the anytime sequence's
    ``sqrt(2 log(1/α) / (σ̂² i log(i + 1)))`` (valid either way; measured on uniform draws of 80
    from 400 units at rate 0.5, width 0.242 against 0.306).

    Example:
        >>> b = betting_lower_bound([1.0] * 60, 0.95)
        >>> 0.9 < b < 1.0
        True
        >>> betting_lower_bound([], 0.95)
        0.0
    """
    check(0.5 < confidence < 1.0, "confidence", "betting_lower_bound", "in (0.5, 1)", confidence)
    x = np.asarray(values, dtype=np.float64).ravel()
    check(bool(np.all(x >= 0)), "values", "betting_lower_bound", "non-negative", values)
    check(0.0 < cap < 1.0, "cap", "betting_lower_bound", "in (0, 1)", cap)
    if not len(x):
        return 0.0
    alpha = 1.0 - confidence
    m = np.linspace(0.0, top, grid)
    log_capital = np.zeros_like(m)
    best = np.zeros_like(m)
    mean_hat, var_hat = 0.5, 0.25  # WSR's priors: (1/2 + Σx) / (t + 1), (1/4 + Σ(x − μ)²) / (t + 1)
    total, squares = 0.0, 0.0
    with np.errstate(divide="ignore"):
        most = np.where(m > 0, cap / m, np.inf)
    for t, value in enumerate(x, start=1):
        scale = len(x) if fixed_n else t * math.log(t + 1.0)
        bet = math.sqrt(2.0 * math.log(1.0 / alpha) / (var_hat * scale))
        lam = np.minimum(bet, most)
        log_capital += np.log1p(lam * (value - m))
        best = np.maximum(best, log_capital)
        squares += (value - mean_hat) ** 2
        total += value
        mean_hat = (0.5 + total) / (t + 1)
        var_hat = (0.25 + squares) / (t + 1)
    rejected = best >= math.log(1.0 / alpha)
    first = int(np.argmax(~rejected)) if (~rejected).any() else len(m) - 1
    return float(m[max(first - 1, 0)])


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
