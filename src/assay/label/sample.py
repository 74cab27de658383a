"""Draw a labelling round by a declared design (design note 0063): which units to label next.

A *unit* is one (case id, system) pair in a check's scope. A round draws, per system, from the
*pool*: the system's in-scope units not already labelled (``known``). Two designs:

* ``uniform`` — a simple random sample without replacement of the pool; every draw's selection
  probability is ``1 / pool_size`` (the estimator applies the finite-population correction).
* ``active`` — ``budget`` draws, the probability of a unit proportional to the calibrated
  uncertainty ``sqrt(p (1 - p))`` of its P(PASS), mixed with the uniform distribution so that no
  unit falls below ``floor / pool_size`` (Zrnic & Candès, *Active Statistical Inference*, ICML
  2024, §4: the mixture with uniform keeps the inverse-probability weights bounded; default half
  the uniform probability, :data:`DEFAULT_FLOOR`). Units without a prediction get the uniform
  probability ``1 / pool_size``. Drawn ``successive`` (the default): without replacement, each
  draw picking among the units not yet drawn with probability proportional to these weights
  (successive sampling, drawn in one pass by Efraimidis & Spirakis' exponential keys, *Weighted
  random sampling with a reservoir*, IPL 2006), estimated by Des Raj's ordered estimator
  (``assay.verdict.estimate_rounds``). ``with-replacement`` (Hansen–Hurwitz, ``Draw.times``) is
  kept for rounds recorded before: it draws the most uncertain units again and again, a waste a
  without-replacement design does not make (the per-draw variance over the units left falls as
  they are drawn).

Budgets are per system: every system's check is decided on its own, so each gets the same number
of draws. :func:`split_budget` splits a total budget evenly across systems (see there).

The functions here are pure and seeded: the same units, predictions and seed give the same round
whatever order the units come in.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from assay.params import check, check_choice, check_int
from assay.verdict.design import (
    ACTIVE,
    SAMPLINGS,
    SUCCESSIVE,
    UNIFORM,
    WITH_REPLACEMENT,
    DesignRound,
    Draw,
)

Key = tuple[str, str]
#: Designs a round may be drawn by.
ROUND_DESIGNS = (UNIFORM, ACTIVE)
#: Default floor of ``active`` rounds: no unit below half the uniform probability, so that no
#: inverse-probability weight exceeds twice the uniform one. The verdict's normal bound uses only
#: rounds drawn with a floor of at least this (``assay.verdict.estimate.MIN_NORMAL_FLOOR``): with
#: a fifth, the upper bound of a Hansen–Hurwitz mean covered 0.90 at nominal 0.95 on FRANK
#: (benchmarks/results/label_designs.md), the weights' skewness outrunning the normal
#: approximation at a few hundred labels.
DEFAULT_FLOOR = 0.5


def active_probabilities(
    p_pass: Sequence[float | None], floor: float = DEFAULT_FLOOR
) -> np.ndarray:
    """Selection probabilities of an ``active`` draw over one system's pool.

    A unit with a prediction ``p`` gets ``floor / n + (1 - floor) * m / n * u / sum(u)`` with
    ``u = sqrt(p (1 - p))`` summed over the ``m`` units with a prediction (``n`` units in all);
    a unit without one (None or NaN) gets the uniform ``1 / n``. The probabilities sum to 1 and
    none is below ``floor / n``. When every prediction is 0 or 1 (no uncertainty), the predicted
    units are drawn uniformly.

    Args:
        p_pass: calibrated P(PASS) of each unit of the pool (None / NaN: no prediction).
        floor: the smallest probability as a share of uniform, in (0, 1].

    Returns:
        one probability per unit, in the order given.

    Example:
        >>> q = active_probabilities([0.5, 0.5, 0.99, None], floor=0.2)
        >>> [round(float(x), 3) for x in q]
        [0.323, 0.323, 0.104, 0.25]
        >>> float(q.sum()), bool(q.min() >= 0.2 / 4)
        (1.0, True)
    """
    check(
        isinstance(floor, int | float) and 0.0 < floor <= 1.0,
        "floor",
        "active_probabilities",
        "a share of uniform in (0, 1]",
        floor,
    )
    n = len(p_pass)
    if n == 0:
        return np.zeros(0)
    values = _as_array(p_pass)
    bad = ~np.isnan(values) & ((values < 0.0) | (values > 1.0))
    check(not bad.any(), "p_pass", "active_probabilities", "probabilities in [0, 1]", values[bad])
    predicted = ~np.isnan(values)
    q = np.full(n, 1.0 / n)
    m = int(predicted.sum())
    if m:
        u = np.sqrt(values[predicted] * (1.0 - values[predicted]))
        share = u / u.sum() if u.sum() > 0 else np.full(m, 1.0 / m)
        q[predicted] = floor / n + (1.0 - floor) * (m / n) * share
    return q / q.sum()  # exact to rounding; guards the last ulp for numpy's choice


def active_saving(p_pass: Sequence[float | None], floor: float = DEFAULT_FLOOR) -> float:
    """How many times fewer labels an ``active`` round needs than a ``uniform`` one for the same
    width, foreseen from the calibrated P(PASS) of one system's pool.

    The ratio of the per-draw variances of the prediction-powered pseudo-outcome: uniform
    ``E[p (1 − p)]`` against Hansen–Hurwitz's ``Σ p (1 − p) / (n² q)`` with ``q`` from
    :func:`active_probabilities` (Zrnic & Candès, *Active Statistical Inference*, ICML 2024, §3;
    ``p`` taken as calibrated, so ``E[(Y − p)² | p] = p (1 − p)``). A unit without a prediction
    counts ``1/4``. Near 1.0 when the machine cannot tell the units apart (uncertainty the same
    everywhere): then no sampling design saves labels. The first draw of a ``successive`` round
    has exactly this variance and later draws less (the units drawn leave the pool), so for a
    round that is a small share of its pool this is its saving, and a slight understatement
    otherwise.

    Example:
        >>> round(active_saving([0.5] * 10), 6)  # nothing to aim at
        1.0
        >>> round(active_saving([0.5] * 2 + [0.01] * 18), 2)  # two units hold the doubt
        1.59
    """
    q = active_probabilities(p_pass, floor)
    if not len(q):
        return 1.0
    p = _as_array(p_pass)
    spread = np.where(np.isnan(p), 0.25, p * (1.0 - p))
    active = float(np.sum(spread / (len(q) ** 2 * q)))
    return float(spread.mean()) / active if active > 0 else 1.0


def _as_array(p_pass: Sequence[float | None]) -> np.ndarray:
    """P(PASS) per unit as floats, NaN where there is none."""
    return np.array([math.nan if p is None else float(p) for p in p_pass], dtype=float)


def split_budget(
    total: int, pool_sizes: Mapping[str, int], design: str, sampling: str = SUCCESSIVE
) -> dict[str, int]:
    """Split a round's total budget across systems: evenly, the remainder one each to the systems
    first in name order; without replacement (``uniform``, ``active`` drawn ``successive``) no
    system gets more than its pool and what it cannot take goes, evenly again, to the systems
    with room left.

    Every system's check is decided on its own, so each gets the same number of labels rather
    than a share proportional to its pool. A system with an empty pool gets 0.

    Example:
        >>> split_budget(10, {"a": 100, "b": 100, "c": 100}, "active")
        {'a': 4, 'b': 3, 'c': 3}
        >>> split_budget(10, {"a": 2, "b": 100, "c": 0}, "uniform")
        {'a': 2, 'b': 8, 'c': 0}
        >>> split_budget(10, {"a": 2, "b": 100}, "active", "with-replacement")
        {'a': 5, 'b': 5}
    """
    check_int(total, "total", "split_budget", minimum=0)
    check_choice(design, ROUND_DESIGNS, "design", "split_budget")
    check_choice(sampling, SAMPLINGS, "sampling", "split_budget")
    replaces = design == ACTIVE and sampling == WITH_REPLACEMENT
    out = {system: 0 for system in pool_sizes}
    remaining = int(total)
    while remaining > 0:
        room = [
            s
            for s in sorted(pool_sizes)
            if pool_sizes[s] > 0 and (replaces or out[s] < pool_sizes[s])
        ]
        if not room:
            break
        share, extra = divmod(remaining, len(room))
        for position, system in enumerate(room):
            want = share + (position < extra)
            give = want if replaces else min(want, pool_sizes[system] - out[system])
            out[system] += give
            remaining -= give
    return out


def draw_round(
    units: Iterable[Key],
    p_pass: Mapping[Key, float | None] | None,
    budget: int | Mapping[str, int],
    design: str,
    *,
    rng: np.random.Generator | None = None,
    seed: int | None = None,
    floor: float = DEFAULT_FLOOR,
    known: Iterable[Key] = (),
    criterion: str = "",
    scope: str = "all",
    number: int = 1,
    drawn_at: str = "",
    sampling: str = SUCCESSIVE,
) -> DesignRound:
    """Draw one labelling round per system from the units not yet labelled.

    Args:
        units: every in-scope unit (case id, system) of the check(s) the round serves.
        p_pass: calibrated P(PASS) per unit for ``active`` (missing units, None or NaN: drawn at
            the uniform probability); ignored by ``uniform``. None: no predictions.
        budget: draws per system (an int for every system, or system → draws; see
            :func:`split_budget` to split a total). ``uniform`` draws at most the pool.
        design: ``uniform`` or ``active``.
        rng: the random generator; else one is made from ``seed``.
        seed: the seed when no ``rng`` is given.
        floor: ``active`` only: the smallest probability as a share of uniform, in (0, 1].
        known: units already labelled for the criterion (left out of the pool).
        criterion: the label criterion the round is for.
        scope: the check scope the units come from.
        number: the round's number.
        drawn_at: ISO timestamp to record (the caller's clock; empty keeps this pure).
        sampling: ``active`` only: ``successive`` (without replacement, at most the pool) or
            ``with-replacement`` (Hansen–Hurwitz).

    Returns:
        the :class:`~assay.verdict.design.DesignRound`: per system the pool size, and each drawn
        unit once with its selection probability and how many times it was drawn (``successive``:
        once each, in the order drawn, the probability the unit's weight over the whole pool).
        ``uniform`` records ``floor = 1.0`` (every probability is exactly uniform).

    Example:
        >>> units = [(f"c{i}", m) for i in range(10) for m in ("a", "b")]
        >>> r = draw_round(units, None, 3, "uniform", seed=0, known=[("c0", "a")])
        >>> r.pool_sizes, len(r.draws), {d.probability for d in r.draws if d.model == "a"}
        ({'a': 9, 'b': 10}, 6, {0.1111111111111111})
        >>> r == draw_round(reversed(units), None, 3, "uniform", seed=0, known=[("c0", "a")])
        True
        >>> p = {(c, m): 0.5 if c == "c1" else 0.99 for c, m in units}
        >>> r = draw_round(units, p, 4, "active", seed=1, floor=0.2)
        >>> len({d.case_id for d in r.draws if d.model == "a"}), r.sampling  # 4 distinct units
        (4, 'successive')
        >>> r = draw_round(units, p, 4, "active", seed=1, floor=0.2, sampling="with-replacement")
        >>> sum(d.times for d in r.draws if d.model == "a")
        4
    """
    where = "draw_round"
    check_choice(design, ROUND_DESIGNS, "design", where)
    check_int(number, "number", where)
    if design == ACTIVE:
        check(
            isinstance(floor, int | float) and 0.0 < floor <= 1.0,
            "floor",
            where,
            "a share of uniform in (0, 1]",
            floor,
        )
        check_choice(sampling, SAMPLINGS, "sampling", where)
    known_set = frozenset((str(c), str(m)) for c, m in known)
    pools: dict[str, list[str]] = {}
    for case_id, model in sorted({(str(c), str(m)) for c, m in units}):
        pools.setdefault(model, [])
        if (case_id, model) not in known_set:
            pools[model].append(case_id)
    budgets = _budgets(budget, pools, where)
    generator = rng if rng is not None else np.random.default_rng(seed)
    draws: list[Draw] = []
    for model in sorted(pools):
        pool, want = pools[model], budgets.get(model, 0)
        if not pool or want == 0:
            continue
        if design == UNIFORM:
            picked = generator.choice(len(pool), size=min(want, len(pool)), replace=False)
            draws.extend(Draw(pool[i], model, 1.0 / len(pool)) for i in sorted(picked))
            continue
        predictions = [(p_pass or {}).get((case_id, model)) for case_id in pool]
        q = active_probabilities(predictions, floor)
        if sampling == SUCCESSIVE:
            draws.extend(Draw(pool[i], model, float(q[i])) for i in successive(q, want, generator))
            continue
        counts = np.bincount(generator.choice(len(pool), size=want, p=q), minlength=len(pool))
        draws.extend(
            Draw(pool[i], model, float(q[i]), int(counts[i])) for i in np.flatnonzero(counts)
        )
    return DesignRound(
        number=number,
        criterion=criterion,
        scope=scope,
        design=design,
        drawn_at=drawn_at,
        known=known_set,
        pool_sizes={model: len(pool) for model, pool in sorted(pools.items())},
        draws=tuple(draws),
        floor=float(floor) if design == ACTIVE else 1.0,
        sampling=sampling if design == ACTIVE else WITH_REPLACEMENT,  # read for active only
    )


def successive(q: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of ``min(size, len(q))`` units drawn successively without replacement, in the
    order drawn: each draw picks among the units not yet drawn with probability proportional to
    ``q``.

    Efraimidis & Spirakis (*Weighted random sampling with a reservoir*, IPL 2006): with
    ``E_i ~ Exp(1)`` independent, the units in increasing order of ``E_i / q_i`` are such a
    sequence (the least of independent exponentials with rates ``q_i`` falls on unit ``i`` with
    probability ``q_i / Σ q``, and memorylessness repeats the argument on the rest).

    Example:
        >>> order = successive(np.array([0.7, 0.2, 0.1]), 2, np.random.default_rng(0))
        >>> len(order), len(set(order.tolist()))
        (2, 2)
    """
    keys = rng.exponential(size=len(q)) / np.maximum(q, np.finfo(float).tiny)
    return np.argsort(keys, kind="stable")[: min(size, len(q))]


def _budgets(
    budget: int | Mapping[str, int], pools: Mapping[str, list[str]], where: str
) -> dict[str, int]:
    if isinstance(budget, Mapping):
        for model, value in budget.items():
            check_int(value, f"budget[{model!r}]", where, minimum=0)
        return {str(model): int(value) for model, value in budget.items()}
    check_int(budget, "budget", where, minimum=0)
    return {model: int(budget) for model in pools}
