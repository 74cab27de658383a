"""The exact branch of the design bound, for few labels (design note 0063, rule 4).

When the design draws are too few for the normal approximation, a labels-only bound valid at any
sample size decides: either the hypergeometric bound (Clopper–Pearson for a finite pool) on a
chain of ``uniform`` / ``random`` rounds pooled into one simple random sample
(:func:`assay.verdict.estimate_rounds.uniform_chains`), or the Waudby-Smith & Ramdas betting
bound (*Estimating means of bounded random variables by betting*, JRSS-B 2024) on every usable
draw of every round, taken in order as one martingale sequence (:func:`sequential_values`).
Which one decides is fixed by sizes and designs alone, before the labels are seen
(:func:`deciding_chain`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from assay.verdict.bounds import LOWER, betting_lower_bound, hypergeometric_bound
from assay.verdict.design import ACTIVE, Key
from assay.verdict.estimate_rounds import SampleRound, earlier_sums, side_y, uniform_chains

HYPERGEOMETRIC, BETTING = "design-hypergeometric", "design-betting"

#: The betting sequence over every usable draw replaces the best uniform chain's hypergeometric
#: bound when it holds at least this many times the chain's draws. At equal draws the
#: hypergeometric bound is the tighter (exact for the design; betting pays for being valid for
#: any design): measured on uniform draws of 10–80 from 400 units at rates 0.05 / 0.2 / 0.5,
#: betting's width is 1.2–1.5× the hypergeometric one
#: (``tests/verdict/test_estimate.py::test_betting_needs_about_twice_the_draws_of_the_chain``),
#: and width falls as 1 / √draws, so betting pays from about twice the draws.
POOLING_RATIO = 2.0


def deciding_chain(usable: Sequence[SampleRound]) -> SampleRound | None:
    """The uniform chain whose hypergeometric bound decides, or None when the betting sequence
    over every usable draw does: a chain decides when it holds more than 1 / ``POOLING_RATIO`` of
    the usable draws in the check's population (the most draws, then the latest, among chains).

    Example:
        >>> units = [(f"c{i}", "m") for i in range(40)]
        >>> def rnd(number, design, draws):
        ...     n = len(draws)
        ...     return SampleRound(number, design, [], units, draws, np.full(n, 1 / 40),
        ...                        np.ones(n, bool))
        >>> deciding_chain([rnd(1, "uniform", units[:10])]).numbers
        (1,)
        >>> deciding_chain([rnd(1, "uniform", units[:10]), rnd(2, "active", units[10:20])]) is None
        True
    """
    chains = uniform_chains(usable)
    if not chains:
        return None
    best = max(chains, key=lambda r: (len(r.counted), r.number))
    total = sum(len(r.counted) for r in usable)
    return best if len(best.counted) * POOLING_RATIO > total else None


def exact_bound(
    usable: Sequence[SampleRound],
    side: str,
    n_units: int,
    labels: Mapping[Key, int],
    level: float,
    seed: int = 0,
) -> tuple[float, str]:
    """The labels-only exact bound on θ from the usable rounds, and the method's name.

    Example:
        >>> units = [(f"c{i}", "m") for i in range(10)]
        >>> rnd = SampleRound(1, "uniform", [], units, units[:10], np.full(10, 0.1),
        ...                   np.ones(10, dtype=bool))
        >>> exact_bound([rnd], "lower", 10, dict.fromkeys(units, 1), 0.95)  # the whole pool
        (1.0, 'design-hypergeometric')
    """
    chain = deciding_chain(usable)
    if chain is not None:
        y = side_y(chain.draws, labels, side)
        known = float(side_y(chain.known, labels, side).sum())
        count = hypergeometric_bound(int(y.sum()), len(y), len(chain.pool), level, side)
        return (known + count) / n_units, HYPERGEOMETRIC
    values = np.concatenate([sequential_values(r, side, n_units, labels, seed) for r in usable])
    bound = betting_lower_bound(values, level, fixed_n=True)  # sizes fixed before labels
    return (bound if side == LOWER else 1.0 - bound), BETTING


def sequential_values(
    rnd: SampleRound, side: str, n_units: int, labels: Mapping[Key, int], seed: int = 0
) -> np.ndarray:
    """A round's draws as labels-only pseudo-outcomes whose mean, given everything before each
    draw, is θ (lower side) or 1 − θ (upper side: the fail rate), all non-negative.

    ``active`` draws with replacement are i.i.d. given the round's design (Hansen–Hurwitz):
    ``(Σ_known Y + Y_t · inside_t / p_t) / N``; drawn successively (Des Raj), the draws before ``t``
    join the known units and ``p_t`` is the chance of draw ``t`` given them. ``uniform`` /
    ``random`` draws are taken one at a time in a seeded random order, each a uniform draw from the
    pool less the draws before it (sampling without replacement as a martingale, Waudby-Smith &
    Ramdas, *Confidence sequences for sampling without replacement*, NeurIPS 2020): ``(Σ_{known +
    earlier} Y + |pool_t| Y_t) / N``. The rounds' sequences chain into one: a round's design (known
    units, pool, probabilities) was fixed by what was labelled before it. Unlabelled draws count as
    FAIL for the lower side and PASS for the upper (``side_y``); on the upper side ``Y`` is 1 −
    label.

    Example:
        >>> units = [(f"c{i}", "m") for i in range(4)]
        >>> p, inside = np.full(2, 0.25), np.ones(2, bool)
        >>> rnd = SampleRound(1, "uniform", [], units, units[:2], p, inside)
        >>> sequential_values(rnd, "lower", 4, dict.fromkeys(units[:2], 1)).tolist()  # 4/4, 4/4
        [1.0, 1.0]
    """
    y = side_y(rnd.draws, labels, side)
    known = side_y(rnd.known, labels, side)
    if side != LOWER:
        y, known = 1.0 - y, 1.0 - known
    if rnd.design == ACTIVE:
        inside = y * rnd.inside
        before = earlier_sums(inside) if rnd.ordered else 0.0
        return (float(known.sum()) + before + inside / rnd.probability) / n_units
    order = np.random.default_rng(seed + rnd.number).permutation(len(y))
    ordered = y[order]
    before = float(known.sum()) + np.concatenate([[0.0], np.cumsum(ordered)[:-1]])
    remaining = len(rnd.pool) - np.arange(len(ordered))
    return (before + remaining * ordered) / n_units
