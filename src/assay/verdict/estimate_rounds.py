"""Which design draws may rectify one check's bound, and what each draw is worth (note 0063).

The design weighting of :func:`assay.verdict.estimate.design_bounds`: a :class:`DesignRound` as
one check and system see it (:class:`SampleRound`: the units known before it, its pool, its draws
with their selection probabilities), the rounds a check may use (:func:`usable_rounds`), the
chains of ``uniform`` / ``random`` rounds that together form one simple random sample
(:func:`uniform_chains`), and each draw's label and prediction per side (:func:`side_y`,
:func:`side_f`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from assay.verdict.bounds import LOWER
from assay.verdict.design import ACTIVE, RANDOM, SUCCESSIVE, UNIFORM, DesignRound, Draw, Key


@dataclass
class SampleRound:
    """One design round (or a fold of one, or a chain of uniform rounds) as one check and
    system see it."""

    number: int
    design: str
    known: list[Key]
    pool: list[Key]
    draws: list[Key]  # with multiplicity (active rounds draw with replacement)
    probability: np.ndarray  # per draw
    inside: np.ndarray  # per draw: whether the unit is in the check's population
    earlier: tuple[Key, ...] = ()  # this system's draws of the round's earlier folds
    numbers: tuple[int, ...] = ()  # the rounds a chain pools (empty: just ``number``)
    floor: float = 1.0  # the smallest selection probability, as a share of uniform (design)
    # ``active`` drawn successively without replacement: ``draws`` in the order drawn and
    # ``probability`` each draw's chance given the draws before it (Des Raj's ordered estimator)
    ordered: bool = False

    @property
    def counted(self) -> list[Key]:
        """The draws inside the check's population."""
        return [k for k, i in zip(self.draws, self.inside, strict=True) if i]


def usable_rounds(
    units: list[Key], rounds: Sequence[DesignRound], scope: str
) -> tuple[list[SampleRound], list[str]]:
    """The rounds that can rectify this check's bound, and why others cannot.

    A ``uniform`` / ``random`` round over the check's scope (or over ``all``) restricted to the
    check's units is again a simple random sample of them (conditionally on how many it holds). An
    ``active`` round counts only for its own scope; its draws of the system outside the check's
    units (e.g. cases the metric does not apply to) contribute zero (Hansen–Hurwitz or Des Raj
    estimation of a domain), so its pool may be larger than the check's but must hold it; a
    ``successive`` round's chance of each draw is taken over every draw of the system, in or out
    of the check (:func:`successive_draws`).
    """
    inside = set(units)
    model = units[0][1]
    out: list[SampleRound] = []
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
            mine = [d for d in r.draws if d.model == model and (d.case_id, d.model) not in r.known]
            keys, probability = (
                successive_draws(mine) if r.sampling == SUCCESSIVE else replaced_draws(mine)
            )
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
            floor = r.floor if r.design == ACTIVE else 1.0
            ordered = r.design == ACTIVE and r.sampling == SUCCESSIVE
            out.append(
                SampleRound(
                    r.number, r.design, known, pool, keys, probability, mask, floor=floor,
                    ordered=ordered,
                )
            )  # fmt: skip
    return out, notes


def replaced_draws(draws: Sequence[Draw]) -> tuple[list[Key], np.ndarray]:
    """Hansen–Hurwitz draws (with replacement): a unit drawn ``times`` times counts as that many
    draws, each at its recorded probability."""
    keys = [(d.case_id, d.model) for d in draws for _ in range(d.times)]
    probability = np.array([d.probability for d in draws for _ in range(d.times)], dtype=float)
    return keys, probability


def successive_draws(draws: Sequence[Draw]) -> tuple[list[Key], np.ndarray]:
    """Successive draws without replacement, in the order drawn, with each draw's chance given
    the draws before it: ``q_t / (1 − Σ_{s<t} q_s)``, ``q`` the units' recorded weights over the
    round's pool of the system (which sum to 1 over it).

    Example:
        >>> d = [Draw("a", "m", 0.5), Draw("b", "m", 0.25)]
        >>> successive_draws(d)[1].tolist()  # b's chance once a is drawn: 0.25 / 0.5
        [0.5, 0.5]
    """
    keys = [(d.case_id, d.model) for d in draws]
    q = np.array([d.probability for d in draws], dtype=float)
    gone = earlier_sums(q)
    return keys, np.minimum(q / np.maximum(1.0 - gone, q), 1.0)


def earlier_sums(values: np.ndarray) -> np.ndarray:
    """Per draw, the sum of the values of the draws before it (0 for the first)."""
    return np.concatenate([[0.0], np.cumsum(values)[:-1]])


def uniform_chains(usable: Sequence[SampleRound]) -> list[SampleRound]:
    """Consecutive ``uniform`` / ``random`` rounds pooled into one simple random sample.

    Round r + 1 of a chain must have been drawn from exactly what round r left: its known units
    (within the check) are round r's known units plus round r's draws. Then, with the rounds'
    sizes fixed before their labels are seen, the union of the chain's draws is one simple random
    sample without replacement of the first round's pool: drawing n₁ units at random, then n₂ at
    random from the rest, is drawing the first n₁ + n₂ units of one random permutation of the
    pool. (A ``uniform`` round over ``all`` restricted to a narrower check is again a simple
    random sample of the check's units given how many fell there, so the chain holds within the
    check too.) Any label of another kind between two rounds (REVIEW cases, an ``active`` round)
    starts a new chain: the pool it left is no longer a random remainder.

    Returns:
        one :class:`SampleRound` per chain (a lone round is a chain of one), with the first
        round's known units and pool, the union of the draws and ``numbers`` the rounds pooled.

    Example:
        >>> units = [(f"c{i}", "m") for i in range(6)]
        >>> def rnd(n, known, draws):
        ...     pool = [k for k in units if k not in known]
        ...     p = np.full(len(draws), 1 / len(pool))
        ...     return SampleRound(n, UNIFORM, known, pool, draws, p, np.ones(len(draws), bool))
        >>> one = rnd(1, [], units[:2])
        >>> two = rnd(2, units[:2], units[2:4])
        >>> [(c.numbers, len(c.draws), len(c.pool)) for c in uniform_chains([one, two])]
        [((1, 2), 4, 6)]
    """
    chains: list[SampleRound] = []
    for rnd in usable:
        if rnd.design == ACTIVE:
            continue
        last = chains[-1] if chains else None
        if last is not None and set(rnd.known) == set(last.known) | set(last.draws):
            draws = last.draws + rnd.draws
            chains[-1] = SampleRound(
                rnd.number,
                UNIFORM,
                last.known,
                last.pool,
                draws,
                np.full(len(draws), 1.0 / len(last.pool)),
                np.concatenate([last.inside, rnd.inside]),
                numbers=(*last.numbers, rnd.number),
            )
            continue
        chains.append(
            SampleRound(
                rnd.number,
                rnd.design,
                rnd.known,
                rnd.pool,
                rnd.draws,
                rnd.probability,
                rnd.inside,
                numbers=(rnd.number,),
            )
        )
    return chains


def predicted(
    f: Mapping[Key, float], keys: Sequence[Key], undecided: Collection[Key]
) -> np.ndarray:
    """P(PASS) per unit, NaN where there is no usable prediction (none, not finite, or a unit
    whose prediction is not used)."""
    out = np.fromiter(
        (f.get(k, math.nan) if k not in undecided else math.nan for k in keys),
        dtype=np.float64,
        count=len(keys),
    )
    out[~np.isfinite(out)] = math.nan
    return out


def side_f(values: np.ndarray, side: str) -> np.ndarray:
    """Predictions for one side: no usable prediction counts 0 for the lower, 1 for the upper."""
    return np.where(np.isnan(values), 0.0 if side == LOWER else 1.0, values)


def labelled(keys: Sequence[Key], labels: Mapping[Key, int]) -> np.ndarray:
    """Labels per unit, NaN where not labelled yet."""
    return np.fromiter((labels.get(k, math.nan) for k in keys), dtype=np.float64, count=len(keys))


def side_y(keys: Sequence[Key], labels: Mapping[Key, int], side: str) -> np.ndarray:
    """Labels per unit; a unit not labelled counts as FAIL (lower) / PASS (upper)."""
    return side_f(labelled(keys, labels), side)
