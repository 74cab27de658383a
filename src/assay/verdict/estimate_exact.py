"""The exact branch of the design bound, for few labels (design note 0063, rule 4).

When the design draws are too few for the normal approximation, one labels-only exact bound
decides: the hypergeometric bound (Clopper–Pearson for a finite pool) on a chain of ``uniform`` /
``random`` rounds pooled into one simple random sample
(:func:`assay.verdict.estimate_rounds.uniform_chains`), or the Waudby-Smith & Ramdas betting
bound (*Estimating means of bounded random variables by betting*, JRSS-B 2024) on the
inverse-probability-weighted labels of an ``active`` round. Which sample decides is fixed by
sizes and designs alone, before the labels are seen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from assay.verdict.bounds import LOWER, betting_lower_bound, hypergeometric_bound
from assay.verdict.design import ACTIVE, Key
from assay.verdict.estimate_rounds import SampleRound, side_y, uniform_chains

HYPERGEOMETRIC, BETTING = "design-hypergeometric", "design-betting"


def deciding_sample(usable: Sequence[SampleRound]) -> SampleRound:
    """The sample the exact branch uses: the most draws in the check's population, then a
    ``uniform`` / ``random`` chain before an ``active`` round (at equal size the hypergeometric
    bound is far tighter than betting), then the latest."""
    candidates = uniform_chains(usable) + [r for r in usable if r.design == ACTIVE]
    return max(candidates, key=lambda r: (len(r.counted), r.design != ACTIVE, r.number))


def exact_bound(
    rnd: SampleRound, side: str, n_units: int, labels: Mapping[Key, int], level: float
) -> tuple[float, str]:
    """A sample's labels-only exact bound on θ, and the method's name.

    Example:
        >>> import numpy as np
        >>> units = [(f"c{i}", "m") for i in range(10)]
        >>> rnd = SampleRound(1, "uniform", [], units, units[:10], np.full(10, 0.1),
        ...                   np.ones(10, dtype=bool))
        >>> exact_bound(rnd, "lower", 10, dict.fromkeys(units, 1), 0.95)  # the whole pool
        (1.0, 'design-hypergeometric')
    """
    y = side_y(rnd.draws, labels, side)
    known = float(side_y(rnd.known, labels, side).sum())
    if rnd.design != ACTIVE:
        count = hypergeometric_bound(int(y.sum()), len(y), len(rnd.pool), level, side)
        return (known + count) / n_units, HYPERGEOMETRIC
    if side == LOWER:
        weighted = (known + y * rnd.inside / rnd.probability) / n_units
        return betting_lower_bound(weighted, level), BETTING
    fails = float(len(rnd.known)) - known
    fail_draws = (1.0 - y) * rnd.inside / rnd.probability
    return 1.0 - betting_lower_bound((fails + fail_draws) / n_units, level), BETTING
