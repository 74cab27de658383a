"""The normal branch of the design bound: prediction-powered pseudo-outcomes per round, combined
as a martingale, bounded by the skewness-corrected normal approximation (design note 0063).

Each draw ``t`` of a (sub-)round gives ``X_t = (Σ_known Y + λ Σ_pool f + (Y_t − λ f_t) / p_t) / N``,
whose conditional mean is the pass rate θ (Hansen–Hurwitz for ``active`` draws with replacement,
Zrnic & Candès, *Active Statistical Inference*, ICML 2024; a simple random sample without
replacement with the finite-population correction for ``uniform`` / ``random``). ``λ`` is PPI++
power tuning (Angelopoulos, Duchi & Zrnic 2023), clipped to [0, 1]. The bound is the normal
quantile moved by the Cornish–Fisher skewness term (Hall, *The Bootstrap and Edgeworth
Expansion*, 1992, §2.6).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from assay.verdict.bounds import LOWER
from assay.verdict.design import ACTIVE, Key
from assay.verdict.estimate_rounds import SampleRound, labelled, predicted, side_f


@dataclass
class RoundInputs:
    """What one (sub-)round's pseudo-outcomes need, for both sides (NaN: worst case per side)."""

    rnd: SampleRound
    y: np.ndarray  # label per draw, NaN when awaiting one
    f: np.ndarray  # P(PASS) per draw, NaN when unusable
    pool_f: float  # Σ of the usable P(PASS) over the pool
    pool_unusable: int  # pool units without a usable prediction
    known_pass: float  # Σ of the known units' labels
    known_missing: int  # known units without a label

    @classmethod
    def of(
        cls,
        rnd: SampleRound,
        labels: Mapping[Key, int],
        f: Mapping[Key, float],
        undecided: Collection[Key],
    ) -> RoundInputs:
        pool = predicted(f, rnd.pool, undecided)
        known = labelled(rnd.known, labels)
        return cls(
            rnd,
            labelled(rnd.draws, labels),
            predicted(f, rnd.draws, undecided),
            float(np.nansum(pool)),
            int(np.isnan(pool).sum()),
            float(np.nansum(known)),
            int(np.isnan(known).sum()),
        )


@dataclass
class RoundEstimate:
    """The pseudo-outcomes of one (sub-)round on one side."""

    mean: float
    variance: float  # of the round's mean
    per_draw: float  # variance of one pseudo-outcome
    lam: float
    draws: int
    third: float  # third central moment of the round's mean


def round_estimate(
    inputs: RoundInputs, side: str, n_units: int, lam: float | None
) -> RoundEstimate:
    """The pseudo-outcomes of one (sub-)round: their mean, its variance and third moment."""
    rnd = inputs.rnd
    worst = 0.0 if side == LOWER else 1.0
    y = side_f(inputs.y, side) * rnd.inside
    f = side_f(inputs.f, side) * rnd.inside
    pool_f = inputs.pool_f + worst * inputs.pool_unusable
    p = rnd.probability
    if lam is None:
        # PPI++: the λ minimising Var((Y − λ f) / p), clipped to [0, 1]
        z, w = y / p, f / p
        spread = float(np.var(w))
        lam = float(np.clip(np.cov(z, w, ddof=0)[0, 1] / spread, 0.0, 1.0)) if spread > 0 else 0.0
    known = inputs.known_pass + worst * inputs.known_missing
    x = (known + lam * pool_f + (y - lam * f) / p) / n_units
    m = len(x)
    per_draw = float(np.var(x, ddof=1))
    # a rectifier that never varied may still err on a unit it has not seen: at least the variance
    # of one disagreement in m + 1 draws (no zero-width bound from a lucky sample)
    scale = len(rnd.pool) / n_units
    per_draw = max(per_draw, scale**2 / (m + 1))
    fraction = len(set(rnd.draws)) / len(rnd.pool) if rnd.design != ACTIVE else 0.0
    # third central moment of the mean: k3 / m² (i.i.d.), times (1 − f)(1 − 2f) without
    # replacement (the finite-population skewness, Cochran 1977 §2.14)
    k3 = m * float(np.sum((x - x.mean()) ** 3)) / ((m - 1) * (m - 2)) if m > 2 else 0.0
    third = k3 / m**2 * (1.0 - fraction) * (1.0 - 2.0 * fraction)
    return RoundEstimate(float(x.mean()), (1.0 - fraction) * per_draw / m, per_draw, lam, m, third)


@dataclass
class Combined:
    """Rounds and folds combined with weights ∝ their draws (a martingale: weights fixed when
    drawn)."""

    mean: float
    variance: float  # of the combined mean
    third: float  # third central moment of the combined mean
    lam: float  # the weighted mean λ
    per_draw: float  # the weighted variance of one pseudo-outcome


def combine(estimates: Sequence[RoundEstimate]) -> Combined:
    """Combine (sub-)round estimates with weights ∝ their draws."""
    total = sum(e.draws for e in estimates)
    w = np.array([e.draws / total for e in estimates])
    return Combined(
        mean=float(np.dot(w, [e.mean for e in estimates])),
        variance=float(np.dot(w * w, [e.variance for e in estimates])),
        third=float(np.dot(w**3, [e.third for e in estimates])),
        lam=float(np.dot(w, [e.lam for e in estimates])),
        per_draw=float(np.dot(w, [e.per_draw for e in estimates])),
    )


def normal_bound(combined: Combined, side: str, level: float) -> float:
    """The one-sided normal bound at ``level``, corrected for skewness.

    Cornish–Fisher correction of the studentized mean (Hall 1992, §2.6; Johnson 1978): both
    one-sided quantiles move by γ (2z² + 1) / 6 standard errors, γ the estimate's skewness; capped
    at z / 2 so a wild skewness estimate cannot dominate.

    Example:
        >>> c = Combined(mean=0.5, variance=0.01, third=0.0, lam=0.0, per_draw=1.0)
        >>> round(normal_bound(c, "lower", 0.95), 4), round(normal_bound(c, "upper", 0.95), 4)
        (0.3355, 0.6645)
    """
    from scipy.stats import norm

    z = float(norm.ppf(level))
    se = math.sqrt(combined.variance)
    shift = combined.third / se**3 * (2 * z * z + 1) / 6 if se > 0 else 0.0
    shift = float(np.clip(shift, -z / 2, z / 2))
    return combined.mean + (shift - z if side == LOWER else shift + z) * se
