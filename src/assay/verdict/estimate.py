"""The design-based bound on a check's pass rate for one system (design note 0063).

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
  ``active`` rounds (Zrnic & Candès, *Active Statistical Inference*, ICML 2024). ``f`` is the
  calibrated P(PASS), cross-fitted (Zrnic & Candès, *Cross-prediction-powered inference*, PNAS
  2024): a round's draws are split into folds and a fold's ``f`` comes from a calibrator fit on the
  labels known before the round and the round's other folds. ``λ`` is PPI++ power tuning
  (Angelopoulos, Duchi & Zrnic 2023) per round, clipped to [0, 1]; ``λ = 0`` is labels-only.
  Rounds combine with weights ∝ their draws.
* **Finite-sample rule, fixed before the labels are seen**: the normal approximation when the
  rounds hold ≥ 30 labelled draws with ≥ 10 of each label; otherwise the largest round alone
  decides by an exact bound — the hypergeometric bound (Clopper–Pearson for a finite pool) for
  ``uniform`` / ``random``, the Waudby-Smith & Ramdas betting bound on labels-only
  pseudo-outcomes for ``active``.
* **Worst case where unknown.** A draw not yet labelled counts as FAIL for the lower bound and as
  PASS for the upper; a unit without a usable prediction (unmeasured, or REVIEW when the plan
  counts REVIEW conservatively) has ``f = 0`` for the lower bound and ``1`` for the upper.
* **Census clamp.** Counting every unlabelled unit as FAIL (lower) / PASS (upper) is always true:
  the lower bound is max(census, design) and the upper min(census, design). Without a design
  round the census bounds are the bounds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np

from assay.params import check
from assay.verdict.bounds import (
    LOWER,
    UPPER,
    RateBound,
    betting_lower_bound,
    hypergeometric_bound,
)
from assay.verdict.design import ACTIVE, RANDOM, UNIFORM, UNKNOWN, DesignRound, Key, LabelRecord
from assay.verdict.looks import look_level

#: Fit a calibrator on ``(case id, system) → 1 PASS / 0 FAIL`` and return P(PASS) per unit it can
#: score (units left out have no prediction).
FitPredict = Callable[[dict[Key, int]], Mapping[Key, float]]
#: The normal approximation needs this many labelled draws ...
MIN_NORMAL_DRAWS = 30
#: ... with at least this many of each label.
MIN_NORMAL_EACH = 10


@dataclass
class _Round:
    """One design round as one check and system see it."""

    number: int
    design: str
    known: list[Key]
    pool: list[Key]
    draws: list[Key]  # with multiplicity (active rounds draw with replacement)
    probability: np.ndarray  # per draw
    inside: np.ndarray  # per draw: whether the unit is in the check's population

    @property
    def counted(self) -> list[Key]:
        """The draws inside the check's population."""
        return [k for k, i in zip(self.draws, self.inside, strict=True) if i]


def _usable_rounds(
    units: list[Key], rounds: Sequence[DesignRound], scope: str
) -> tuple[list[_Round], list[str]]:
    """The rounds that can rectify this check's bound, and why others cannot.

    A ``uniform`` / ``random`` round over the check's scope (or over ``all``) restricted to the
    check's units is again a simple random sample of them (conditionally on how many it holds). An
    ``active`` round counts only for its own scope; its draws of the system outside the check's
    units (e.g. cases the metric does not apply to) contribute zero (Hansen–Hurwitz estimation of
    a domain), so its pool may be larger than the check's but must hold it.
    """
    inside = set(units)
    model = units[0][1]
    out: list[_Round] = []
    notes: list[str] = []
    for r in rounds:
        if r.design not in (UNIFORM, RANDOM, ACTIVE):
            continue
        same_scope = r.scope == scope or (r.design != ACTIVE and r.scope == "all")
        if not same_scope:
            notes.append(f"round {r.number} drew from scope {r.scope!r}, not {scope!r}")
            continue
        known = [k for k in units if k in r.known]
        pool = [k for k in units if k not in r.known]
        if not pool:
            continue
        if r.design == ACTIVE:
            size = r.pool_sizes.get(model)
            if size is not None and size < len(pool):
                notes.append(
                    f"round {r.number} drew from {size} units of {model}, the check has {len(pool)}"
                )
                continue
            draws = [
                ((d.case_id, d.model), d.probability)
                for d in r.draws
                for _ in range(d.times)
                if d.model == model and (d.case_id, d.model) not in r.known
            ]
            keys = [k for k, _ in draws]
            probability = np.array([p for _, p in draws], dtype=np.float64)
        else:
            in_pool = set(pool)
            keys = list(
                dict.fromkeys(
                    (d.case_id, d.model) for d in r.draws if (d.case_id, d.model) in in_pool
                )
            )
            probability = np.full(len(keys), 1.0 / len(pool))
        mask = np.array([k in inside for k in keys], dtype=bool)
        if len(keys) >= 2 and bool(np.all(probability > 0)):
            out.append(_Round(r.number, r.design, known, pool, keys, probability, mask))
    return out, notes


def _fold_predictions(
    rnd: _Round,
    before: dict[Key, int],
    labels: Mapping[Key, int],
    predictions: Mapping[Key, float] | None,
    fit_predict: FitPredict | None,
    folds: int,
    seed: int,
) -> tuple[list[Mapping[Key, float]], dict[Key, int]]:
    """Per fold the predictions, and each drawn unit's fold (cross-fitting, Zrnic & Candès 2024)."""
    unique = list(dict.fromkeys(rnd.draws))
    if fit_predict is None:
        return [predictions or {}], dict.fromkeys(unique, 0)
    labelled = [k for k in unique if k in labels]
    k = max(1, min(folds, len(labelled)))
    order = np.random.default_rng(seed + rnd.number).permutation(len(unique))
    fold_of = {unique[i]: j % k for j, i in enumerate(order)}
    out: list[Mapping[Key, float]] = []
    for fold in range(k):
        train = dict(before)
        if k > 1:
            train.update({u: labels[u] for u in labelled if fold_of[u] != fold})
        out.append(fit_predict(train))
    return out, fold_of


def _side_f(
    f: Mapping[Key, float], keys: Sequence[Key], undecided: Collection[Key], side: str
) -> np.ndarray:
    """P(PASS) per unit for one side; no usable prediction: 0 for the lower, 1 for the upper."""
    extreme = 0.0 if side == LOWER else 1.0
    values = [f.get(k) for k in keys]
    return np.array(
        [
            extreme if v is None or not math.isfinite(v) or key in undecided else float(v)
            for key, v in zip(keys, values, strict=True)
        ],
        dtype=np.float64,
    )


def _side_y(keys: Sequence[Key], labels: Mapping[Key, int], side: str) -> np.ndarray:
    """Labels per unit; a unit not labelled counts as FAIL (lower) / PASS (upper)."""
    extreme = 0 if side == LOWER else 1
    return np.array([labels.get(k, extreme) for k in keys], dtype=np.float64)


@dataclass
class _RoundEstimate:
    mean: float
    variance: float  # of the round's mean
    per_draw: float  # variance of one pseudo-outcome
    lam: float
    draws: int


def _round_estimate(
    rnd: _Round,
    side: str,
    n_units: int,
    labels: Mapping[Key, int],
    fold_f: list[Mapping[Key, float]],
    fold_of: dict[Key, int],
    undecided: Collection[Key],
    lam: float | None,
) -> _RoundEstimate:
    y = _side_y(rnd.draws, labels, side) * rnd.inside
    p = rnd.probability
    folds = np.array([fold_of[k] for k in rnd.draws])
    f = np.empty(len(rnd.draws))
    pool_f = np.empty(len(fold_f))
    for j, predicted in enumerate(fold_f):
        chosen = folds == j
        f[chosen] = _side_f(
            predicted, [k for k, c in zip(rnd.draws, chosen, strict=True) if c], undecided, side
        )
        pool_f[j] = _side_f(predicted, rnd.pool, undecided, side).sum()
    f = f * rnd.inside
    if lam is None:
        # PPI++: the λ minimising Var((Y − λ f) / p), clipped to [0, 1]
        z, w = y / p, f / p
        spread = float(np.var(w))
        lam = float(np.clip(np.cov(z, w, ddof=0)[0, 1] / spread, 0.0, 1.0)) if spread > 0 else 0.0
    known = float(_side_y(rnd.known, labels, side).sum())
    x = (known + lam * pool_f[folds] + (y - lam * f) / p) / n_units
    m = len(x)
    per_draw = float(np.var(x, ddof=1))
    # a rectifier that never varied may still err on a unit it has not seen: at least the variance
    # of one disagreement in m + 1 draws (no zero-width bound from a lucky sample)
    scale = len(rnd.pool) / n_units
    per_draw = max(per_draw, scale**2 / (m + 1))
    fpc = 1.0 - len(set(rnd.draws)) / len(rnd.pool) if rnd.design != ACTIVE else 1.0
    return _RoundEstimate(float(x.mean()), fpc * per_draw / m, per_draw, lam, m)


def _exact(rnd: _Round, side: str, n_units: int, labels: Mapping[Key, int], level: float) -> float:
    """The largest round's exact bound on θ (labels only)."""
    y = _side_y(rnd.draws, labels, side)
    known = float(_side_y(rnd.known, labels, side).sum())
    if rnd.design != ACTIVE:
        count = hypergeometric_bound(int(y.sum()), len(y), len(rnd.pool), level, side)
        return (known + count) / n_units
    if side == LOWER:
        return betting_lower_bound((known + y * rnd.inside / rnd.probability) / n_units, level)
    fails = float(len(rnd.known)) - known
    fail_draws = (1.0 - y) * rnd.inside / rnd.probability
    return 1.0 - betting_lower_bound((fails + fail_draws) / n_units, level)


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
    folds: int = 2,
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
        lam: a fixed λ for every round (None: PPI++ tuning per round).
        folds: cross-fitting folds per round.
        seed: seed of the fold assignment.

    Example:
        >>> from assay.verdict.design import Draw
        >>> units = [(f"q{i}", "m") for i in range(100)]
        >>> records = {k: LabelRecord(*k, "ok", 1, UNIFORM, "store", 1, 0.01) for k in units[:40]}
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
    labels = {k: r.value for k, r in records.items()}
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
    usable, _ = _usable_rounds(population, rounds, scope)
    fitted = [
        _fold_predictions(
            r,
            {k: labels[k] for k in _before(rounds, r) if k in labels},
            labels,
            predictions,
            fit_predict,
            folds,
            seed,
        )
        for r in usable
    ]
    draws = [k for r in usable for k in r.counted if k in labels]
    if predictions is None and fit_predict is None:
        lam = 0.0  # labels only
    n_pass = sum(labels[k] for k in draws)
    normal = len(draws) >= MIN_NORMAL_DRAWS and min(n_pass, len(draws) - n_pass) >= MIN_NORMAL_EACH
    out: list[RateBound] = []
    for side in (LOWER, UPPER):
        if not usable:
            estimate = _plug_in(population, labels, predictions, fit_predict, undecided)
            variance = _calibrated_variance(population, labels, predictions, fit_predict, undecided)
            out.append(
                replace(base, estimate=estimate, bound=census[side], side=side, variance=variance)
            )
            continue
        estimates = [
            _round_estimate(r, side, n_units, labels, f, folds_of, undecided, lam)
            for r, (f, folds_of) in zip(usable, fitted, strict=True)
        ]
        total = sum(e.draws for e in estimates)
        weights = [e.draws / total for e in estimates]
        mean = sum(w * e.mean for w, e in zip(weights, estimates, strict=True))
        variance = sum(w * w * e.variance for w, e in zip(weights, estimates, strict=True))
        if normal:
            from scipy.stats import norm

            z = float(norm.ppf(level))
            bound = (
                mean - z * math.sqrt(variance) if side == LOWER else mean + z * math.sqrt(variance)
            )
            method = "design-normal"
            used_lam = sum(w * e.lam for w, e in zip(weights, estimates, strict=True))
        else:
            # the rule is fixed before labels are seen: most draws, then a uniform / random round
            # (its hypergeometric bound is tighter than betting at equal size), then the latest
            largest = max(usable, key=lambda r: (len(r.counted), r.design != ACTIVE, r.number))
            bound = _exact(largest, side, n_units, labels, level)
            method = "design-betting" if largest.design == ACTIVE else "design-hypergeometric"
            used_lam = 0.0
        tighter = bound > census[side] if side == LOWER else bound < census[side]
        clamped = float(np.clip(bound if tighter else census[side], 0.0, 1.0))
        out.append(
            replace(
                base,
                estimate=float(np.clip(mean, 0.0, 1.0)),
                bound=clamped,
                side=side,
                method=method if tighter else "census",
                n_predicted=len(population) - len(in_scope),
                n_design=len(draws),
                n_missing=sum(len(r.counted) for r in usable) - len(draws),
                rounds=tuple(r.number for r in usable),
                lam=used_lam,
                variance=sum(w * e.per_draw for w, e in zip(weights, estimates, strict=True)),
            )
        )
    return out[0], out[1]


def _before(rounds: Sequence[DesignRound], rnd: _Round) -> frozenset[Key]:
    """The units labelled before a round was drawn (its ``known`` set)."""
    return next(r.known for r in rounds if r.number == rnd.number)


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
