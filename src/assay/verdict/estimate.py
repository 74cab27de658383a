"""The design-based bound on a check's pass rate for one system (design note 0063).

This module puts the parts together: which draws may rectify
(:mod:`assay.verdict.estimate_rounds`), sequential cross-fitting
(:mod:`assay.verdict.estimate_folds`), the normal branch (:mod:`assay.verdict.estimate_normal`)
and the exact branch (:mod:`assay.verdict.estimate_exact`).

The estimand is the pass rate θ over the system's N in-scope units (a finite population). Every
label carries how its unit was chosen (:mod:`assay.verdict.design`); the bound uses each label
only the way its design allows:

* **Known units.** Units labelled before a round (whatever chose them: REVIEW cases, hand-picked
  labels) are known exactly to that round's estimator.
* **Design rounds.** Each draw ``t`` of a round gives the pseudo-outcome
  ``X_t = (Σ_known Y + λ Σ_pool f + (Y_t − λ f_t) / p_t) / N``, whose conditional mean is θ:
  a simple random sample without replacement for ``uniform`` / ``random`` rounds
  (``p = 1 / |pool|``, the pool restricted to the check's scope and system, with the
  finite-population correction), Hansen–Hurwitz with replacement and the recorded ``p`` for
  ``active`` rounds (Zrnic & Candès, *Active Statistical Inference*, ICML 2024) drawn with
  replacement, and Des Raj's ordered estimator for ``active`` rounds drawn successively without
  replacement (*Some estimators in sampling with varying probabilities without replacement*,
  JASA 1956: the round's earlier draws join the known units, ``p_t`` is draw t's chance given
  them; :func:`~assay.verdict.estimate_normal.pseudo_parts`). ``f`` is the
  calibrated P(PASS), cross-fitted (Zrnic & Candès, *Cross-prediction-powered inference*, PNAS
  2024), made sequential: a round's draws are split into folds and fold j's ``f`` comes from a
  calibrator fit on the labels known before the round, the round's draws of other systems and
  folds < j, so the folds combine as a martingale. ``λ`` is PPI++ power tuning (Angelopoulos,
  Duchi & Zrnic 2023), one λ for all rounds and folds, clipped to [0, 1]; ``λ = 0`` is
  labels-only. Rounds and folds combine with weights ∝ draws / scale², scale the share of
  the N units still unknown when the round was drawn (inverse-variance weights fixed by the design;
  :func:`~assay.verdict.estimate_normal.round_weight`).
* **Finite-sample rule, fixed before the labels are seen**: the normal approximation, corrected
  for the pseudo-outcomes' skewness (Cornish–Fisher, Hall 1992; ``active`` rounds share one
  skewness and one variance floor over all their draws,
  :func:`~assay.verdict.estimate_normal.pool_folds`), when the rounds hold ≥ 30
  labelled draws with ≥ 10 of each label. Only rounds whose selection probabilities are all at
  least half the uniform one (every ``uniform`` / ``random`` round; an ``active`` round drawn with
  ``floor ≥ 0.5``) count for it: inverse-probability weights skewed further make the normal
  approximation of a Hansen–Hurwitz mean unreliable at these sizes (measured: an upper bound
  covering 0.90 at nominal 0.95 with floor 0.2), and such a round reaches the bound only as known
  units for the rounds after it or through the exact branch. Otherwise a labels-only bound valid
  at any size decides — the hypergeometric bound (Clopper–Pearson for a finite pool) on the
  largest chain of ``uniform`` / ``random`` rounds, each drawn from what the one before left,
  pooled into one simple random sample, when it holds most of the draws; else the Waudby-Smith &
  Ramdas betting bound on every usable draw of every round in order, one martingale sequence
  (:mod:`assay.verdict.estimate_exact`).
* **Worst case where unknown.** A draw not yet labelled counts as FAIL for the lower bound and as
  PASS for the upper; a unit without a usable prediction (unmeasured, or REVIEW when the plan
  counts REVIEW conservatively) has ``f = 0`` for the lower bound and ``1`` for the upper.
* **Census clamp.** Counting every unlabelled unit as FAIL (lower) / PASS (upper) is always true:
  the lower bound is max(census, design) and the upper min(census, design). Without a design
  round the census bounds are the bounds.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import replace

import numpy as np

from assay.params import check
from assay.verdict.bounds import LOWER, UPPER, RateBound
from assay.verdict.design import UNKNOWN, DesignRound, Key, LabelRecord
from assay.verdict.estimate_exact import exact_bound
from assay.verdict.estimate_folds import FitPredict, fold_predictions, sequential_folds
from assay.verdict.estimate_normal import (
    RoundInputs,
    combine,
    normal_bound,
    pool_folds,
    round_estimate,
    tuned_lambda,
)
from assay.verdict.estimate_rounds import usable_rounds
from assay.verdict.looks import look_level

__all__ = ["FitPredict", "design_bounds", "design_labels_to_decide"]

#: The normal approximation needs this many labelled draws ...
MIN_NORMAL_DRAWS = 30
#: ... with at least this many of each label ...
MIN_NORMAL_EACH = 10
#: ... from rounds whose every selection probability is at least this share of uniform (the
#: inverse-probability weights at most 1 / this times the uniform weight).
MIN_NORMAL_FLOOR = 0.5


def design_bounds(
    units: Sequence[Key],
    records: Mapping[Key, LabelRecord],
    rounds: Sequence[DesignRound],
    *,
    scope: str = "all",
    confidence: float = 0.95,
    look: int = 1,
    predictions: Mapping[Key, float] | None = None,
    fit_predict: FitPredict | None = None,
    undecided: Collection[Key] = frozenset(),
    lam: float | None = None,
    folds: int = 4,
    seed: int = 0,
) -> tuple[RateBound, RateBound]:
    """Lower and upper one-sided bounds on one system's pass rate for one check (module doc).

    Args:
        units: the check's in-scope units of one system (case id, system): the population.
        records: the labels of the check's criterion (any units; those outside ``units`` only
            train the calibrator).
        rounds: the design rounds drawn for the criterion, in order.
        scope: the check's scope (a round drawn from another scope cannot rectify it, except a
            ``uniform`` / ``random`` round over ``all``).
        confidence: the plan's one-sided confidence; the bound uses ``look_level(confidence,
            look)`` (:mod:`assay.verdict.looks`).
        look: which look at these inputs this is.
        predictions: fixed P(PASS) per unit (not cross-fitted); ignored with ``fit_predict``.
        fit_predict: fits the calibrator on labels and predicts P(PASS) per unit (cross-fitted).
        undecided: units whose prediction is not used (REVIEW cases counted conservatively).
        lam: a fixed λ for every round (None: PPI++ tuning, one λ for all rounds and folds).
        folds: cross-fitting folds per round.
        seed: seed of the fold assignment.

    Example:
        >>> from assay.verdict.design import UNIFORM, Draw
        >>> units = [(f"q{i}", "m") for i in range(100)]
        >>> records = {k: LabelRecord("ok", 1, UNIFORM, "store", 1, 0.01) for k in units[:40]}
        >>> rnd = DesignRound(1, "ok", "all", UNIFORM, "", frozenset(), {"m": 100},
        ...                   tuple(Draw(*k, 0.01) for k in units[:40]))
        >>> low, high = design_bounds(units, records, [rnd])
        >>> low.method, round(low.bound, 3), high.bound  # 40 of 40 drawn from 100 pass
        ('design-hypergeometric', 0.94, 1.0)
    """
    check(0.5 < confidence < 1.0, "confidence", "design_bounds", "in (0.5, 1)", confidence)
    population = list(dict.fromkeys(units))
    n_units = len(population)
    level = look_level(confidence, look)
    labels = _Labels(records)
    in_scope = [k for k in population if k in labels]
    n_unknown = sum(records[k].design == UNKNOWN for k in in_scope)
    passes = sum(labels[k] for k in in_scope)
    base = RateBound(
        estimate=math.nan,
        bound=0.0,
        side=LOWER,
        confidence=confidence,
        method="census",
        n_labelled=len(in_scope),
        n_units=n_units,
        n_known=len(in_scope),
        n_unknown_design=n_unknown,
        look=look,
        level=level,
    )
    if not n_units:
        return base, replace(base, bound=1.0, side=UPPER)
    census = {LOWER: passes / n_units, UPPER: (passes + n_units - len(in_scope)) / n_units}
    usable, _ = usable_rounds(population, rounds, scope)
    # the normal branch only for rounds whose inverse-probability weights are bounded (module doc)
    steady = [r for r in usable if r.floor >= MIN_NORMAL_FLOOR]
    draws = [k for r in steady for k in r.counted if k in labels]
    n_pass = sum(labels[k] for k in draws)
    normal = len(draws) >= MIN_NORMAL_DRAWS and min(n_pass, len(draws) - n_pass) >= MIN_NORMAL_EACH
    # the rule is fixed before labels are seen (sizes and designs only)
    exact = bool(usable) and not normal
    used = steady if normal else usable
    if exact:
        draws = [k for r in usable for k in r.counted if k in labels]
    # fixed predictions need no folds; a fitted predictor never sees the draws it rectifies
    split = fit_predict is not None
    subs = [sub for r in used for sub in (sequential_folds(r, folds, seed) if split else [r])]
    inputs = [
        RoundInputs.of(
            sub, labels, fold_predictions(sub, rounds, labels, predictions, fit_predict), undecided
        )
        for sub in subs
    ]
    if predictions is None and fit_predict is None:
        lam = 0.0  # labels only
    out: list[RateBound] = []
    for side in (LOWER, UPPER):
        if not usable:
            estimate = _plug_in(population, labels, predictions, fit_predict, undecided)
            variance = _calibrated_variance(population, labels, predictions, fit_predict, undecided)
            out.append(
                replace(base, estimate=estimate, bound=census[side], side=side, variance=variance)
            )
            continue
        tuned = tuned_lambda(inputs, side) if lam is None else lam
        combined = combine(pool_folds([round_estimate(i, side, n_units, tuned) for i in inputs]))
        if exact:
            bound, method = exact_bound(usable, side, n_units, labels, level, seed)
        else:
            bound, method = normal_bound(combined, side, level), "design-normal"
        tighter = bound > census[side] if side == LOWER else bound < census[side]
        # nor may it cross the other side's census bound, which is certain: a design sample that
        # contradicts the labels known for sure (an α event, or labels wrongly declared random)
        # leaves the bound at what is certain
        contradicts = bound > census[UPPER] if side == LOWER else bound < census[LOWER]
        if contradicts:
            bound = census[UPPER] if side == LOWER else census[LOWER]
        clamped = float(np.clip(bound if tighter else census[side], 0.0, 1.0))
        out.append(
            replace(
                base,
                # the census bounds are certain: an estimate outside them is known to be wrong
                estimate=float(np.clip(combined.mean, census[LOWER], census[UPPER])),
                bound=clamped,
                side=side,
                method=method if tighter and not contradicts else "census",
                n_predicted=len(population) - len(in_scope),
                n_design=len(draws),
                n_missing=sum(len(r.counted) for r in used) - len(draws),
                rounds=tuple(r.number for r in used),
                lam=0.0 if exact else combined.lam,
                variance=combined.per_draw,
            )
        )
    return out[0], out[1]


class _Labels(Mapping[Key, int]):
    """The label of each record, read from the records (a dict of every label, built for each
    system's bound, held 5 MiB at 200,000 cases with 112,000 labels, tracemalloc)."""

    def __init__(self, records: Mapping[Key, LabelRecord]) -> None:
        self._records = records

    def __getitem__(self, key: Key) -> int:
        return self._records[key].value

    def __contains__(self, key: object) -> bool:
        return key in self._records

    def __iter__(self) -> Iterator[Key]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)


def _plug_in(
    units: list[Key],
    labels: Mapping[Key, int],
    predictions: Mapping[Key, float] | None,
    fit_predict: FitPredict | None,
    undecided: Collection[Key],
) -> float:
    """Known labels plus the calibrated P(PASS) of the rest (a point estimate without a bound);
    NaN when some unlabelled unit has no usable prediction."""
    f = _all_predictions(labels, predictions, fit_predict)
    rest = [k for k in units if k not in labels]
    values = [f.get(k) for k in rest]
    if any(
        v is None or not math.isfinite(v) or k in undecided
        for k, v in zip(rest, values, strict=True)
    ):
        return math.nan if rest else sum(labels[k] for k in units) / len(units)
    return (sum(labels[k] for k in units if k in labels) + sum(values)) / len(units)  # type: ignore[arg-type]


def _all_predictions(
    labels: Mapping[Key, int],
    predictions: Mapping[Key, float] | None,
    fit_predict: FitPredict | None,
) -> Mapping[Key, float]:
    if fit_predict is not None:
        return fit_predict(dict(labels))
    return predictions or {}


def _calibrated_variance(
    units: list[Key],
    labels: Mapping[Key, int],
    predictions: Mapping[Key, float] | None,
    fit_predict: FitPredict | None,
    undecided: Collection[Key],
) -> float | None:
    """Variance of one uniform draw's pseudo-outcome from the unlabelled units, foreseen from the
    calibrated P(PASS): E[(Y − f)²] = E[f (1 − f)] for a calibrated f; 1/4 without a prediction."""
    rest = [k for k in units if k not in labels]
    if not rest:
        return None
    f = _all_predictions(labels, predictions, fit_predict)
    values = [f.get(k) for k in rest]
    spread = [
        v * (1 - v) if v is not None and math.isfinite(v) and k not in undecided else 0.25
        for k, v in zip(rest, values, strict=True)
    ]
    return (len(rest) / len(units)) ** 2 * float(np.mean(spread))


def design_labels_to_decide(lower: RateBound, upper: RateBound, target: float) -> int | None:
    """How many more design labels (a further ``uniform`` round) would likely decide the check.

    From the variance of one draw's pseudo-outcome (the calibrated variance: what a label is
    worth with the machine's predictions, not the labels-only binomial) and the distance of the
    estimate from the target: the least ``n`` with ``z · sqrt((1 − n / M) σ² / n) ≤ |θ̂ − target|``
    over the ``M`` units not labelled, minus the design labels already used. None when the estimate
    equals the target or nothing estimates it.

    Example:
        >>> b = RateBound(0.95, 0.9, "lower", 0.95, "design-normal", 50, n_units=1000, n_design=50,
        ...               level=0.95, variance=0.1)
        >>> design_labels_to_decide(b, b, 0.9)  # 1.645² · 0.1 / 0.05² ≈ 108 (FPC: 99), 50 used
        49
    """
    estimate = (lower.estimate + upper.estimate) / 2
    sigma2 = lower.variance if lower.variance is not None else upper.variance
    if sigma2 is None or not math.isfinite(estimate) or math.isclose(estimate, target):
        return None
    from scipy.stats import norm

    z = float(norm.ppf(lower.level or lower.confidence))
    remaining = max(lower.n_units - lower.n_known + lower.n_design, 1)
    n0 = (z * z * max(sigma2, 1e-12)) / (estimate - target) ** 2
    needed = math.ceil(n0 / (1.0 + n0 / remaining))
    return max(needed - lower.n_design, 1)
