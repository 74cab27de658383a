"""Labels-only exact references for bench_label_designs.py, and labels needed at equal width.

The expected width of the two one-sided exact bounds from ``n`` labels drawn uniformly without
replacement from a system of ``N`` units with ``D`` PASS is ``Σ_k P(k) (upper(k) − lower(k))``
over the hypergeometric distribution of the PASS count ``k`` — computed exactly, not simulated,
with the shipped bounds: Clopper–Pearson (:func:`assay.verdict.bounds.clopper_pearson`, which
treats the labels as binomial) and the finite-pool exact bound
(:func:`assay.verdict.bounds.hypergeometric_bound`, what the design bound falls back to).
"""

from __future__ import annotations

from functools import cache

import numpy as np

from assay.verdict.bounds import LOWER, UPPER, clopper_pearson

#: Hypergeometric probabilities below this are left out of the expected width.
_TAIL = 1e-7


@cache
def _cp_width(k: int, n: int, confidence: float) -> float:
    return (
        clopper_pearson(k, n, confidence, UPPER).bound
        - clopper_pearson(k, n, confidence, LOWER).bound
    )


@cache
def _hg_width(k: int, n: int, pool: int, confidence: float) -> float:
    from assay.verdict.bounds import hypergeometric_bound

    high = hypergeometric_bound(k, n, pool, confidence, UPPER)
    low = hypergeometric_bound(k, n, pool, confidence, LOWER)
    return (high - low) / pool


def exact_width_curve(
    size: int, passes: int, confidence: float, points: int = 30, level: float | None = None
) -> dict[str, np.ndarray]:
    """Expected widths of the labels-only exact bounds over a grid of label counts:
    Clopper–Pearson at ``confidence``, the finite-pool bound at ``level`` (default the same).

    Returns:
        ``n`` (label counts, 2 … size), ``clopper_pearson`` and ``hypergeometric`` (the expected
        width at each ``n``).

    Example:
        >>> curve = exact_width_curve(100, 50, 0.95, points=5)
        >>> curve["n"].tolist()[-1], round(float(curve["hypergeometric"][-1]), 6)
        (100, 0.0)
    """
    from scipy.stats import hypergeom

    grid = np.unique(np.round(np.geomspace(2, size, points)).astype(int))
    cp, hg = [], []
    for n in grid.tolist():
        k = np.arange(max(0, n - (size - passes)), min(n, passes) + 1)
        pmf = hypergeom.pmf(k, size, passes, n)
        keep = pmf > _TAIL
        k, pmf = k[keep], pmf[keep] / pmf[keep].sum()
        cp.append(
            float(sum(p * _cp_width(int(x), n, confidence) for x, p in zip(k, pmf, strict=True)))
        )
        at = level or confidence
        hg.append(
            float(sum(p * _hg_width(int(x), n, size, at) for x, p in zip(k, pmf, strict=True)))
        )
    return {"n": grid, "clopper_pearson": np.array(cp), "hypergeometric": np.array(hg)}


def labels_for_width(n: np.ndarray, width: np.ndarray, target: float) -> tuple[float, str]:
    """The label count at which a width curve reaches ``target``, by linear interpolation in
    log n over the grid, and how it compares: ``=`` within the grid, ``>`` when even the largest
    count on the grid is wider (the count shown is that largest count), ``<`` when the smallest
    count is already narrower.

    Example:
        >>> labels_for_width(np.array([10, 100]), np.array([0.4, 0.1]), 0.25)
        (31.6, '=')
    """
    order = np.argsort(n)
    n, width = np.asarray(n, float)[order], np.minimum.accumulate(np.asarray(width, float)[order])
    if target < width[-1]:
        return float(n[-1]), ">"
    if target >= width[0]:
        return float(n[0]), "<"
    i = int(np.argmax(width <= target))  # first grid point at or below the target width
    w0, w1, x0, x1 = width[i - 1], width[i], np.log(n[i - 1]), np.log(n[i])
    share = (w0 - target) / (w0 - w1) if w0 > w1 else 1.0
    return round(float(np.exp(x0 + share * (x1 - x0))), 1), "="
