"""Uncertainty of aggregate scores: bootstrap intervals, paired bootstrap tests, McNemar's test.

All functions are pure numpy / scipy, seeded and vectorised in chunks so memory stays bounded on
large suites. They return plain floats and dicts; nothing here renders.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from assay.params import check, check_int

#: Number of bootstrap resamples used when none is given.
DEFAULT_RESAMPLES = 1000
_CHUNK_CELLS = 2_000_000  # resample indices drawn per chunk (bounds memory at ~16 MB)


def _as_values(values: ArrayLike, name: str, where: str) -> NDArray[np.float64]:
    array = np.asarray(values, dtype=np.float64).ravel()
    check(bool(np.all(np.isfinite(array))), name, where, "finite numbers", "NaN or inf values")
    return array


def _check_common(confidence: float, n_resamples: int, where: str) -> None:
    check(0.0 < confidence < 1.0, "confidence", where, "a number in (0, 1)", confidence)
    check_int(n_resamples, "n_resamples", where, minimum=10)


def bootstrap_means(
    values: ArrayLike, *, n_resamples: int = DEFAULT_RESAMPLES, seed: int = 0
) -> NDArray[np.float64]:
    """Means of ``n_resamples`` bootstrap resamples (with replacement) of ``values``.

    Example:
        >>> bootstrap_means([1.0, 1.0, 1.0], n_resamples=10).tolist() == [1.0] * 10
        True
    """
    array = _as_values(values, "values", "bootstrap_means")
    check(array.size > 0, "values", "bootstrap_means", "a non-empty sequence", [])
    rng = np.random.default_rng(seed)
    n = array.size
    unique, counts = np.unique(array, return_counts=True)
    if unique.size * 4 <= n:
        # Few distinct values (pass / fail, Likert scores): a resample's counts of each value are
        # multinomial, which draws k numbers per resample instead of n; same distribution.
        draws = rng.multinomial(n, counts / n, size=n_resamples)
        return np.asarray(draws @ unique / n, dtype=np.float64)
    per_chunk = max(1, _CHUNK_CELLS // n)
    out = np.empty(n_resamples, dtype=np.float64)
    for start in range(0, n_resamples, per_chunk):
        stop = min(n_resamples, start + per_chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = array[idx].mean(axis=1)
    return out


def bootstrap_ci(
    values: ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> tuple[float | None, float | None]:
    """Percentile bootstrap confidence interval of the mean of ``values``.

    Returns ``(None, None)`` for an empty input, and a zero-width interval for a single value
    (there is no spread to resample). Matches :func:`scipy.stats.bootstrap` with
    ``method="percentile"`` up to resampling noise.

    Example:
        >>> low, high = bootstrap_ci([0.0, 1.0] * 50, seed=1)
        >>> 0.38 < low < 0.5 < high < 0.62
        True
        >>> bootstrap_ci([])
        (None, None)
    """
    _check_common(confidence, n_resamples, "bootstrap_ci")
    array = _as_values(values, "values", "bootstrap_ci")
    if array.size == 0:
        return None, None
    if array.size == 1 or np.all(array == array[0]):
        return float(array[0]), float(array[0])
    means = bootstrap_means(array, n_resamples=n_resamples, seed=seed)
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(means, [alpha, 1.0 - alpha])
    return float(low), float(high)


def paired_bootstrap(
    a: ArrayLike,
    b: ArrayLike,
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> dict[str, Any]:
    """Paired bootstrap test of the mean difference ``mean(a - b)`` over the same cases.

    The p-value is the two-sided bootstrap p-value: twice the share of resampled mean differences
    on the far side of zero (capped at 1). ``a`` and ``b`` must be aligned case by case.

    Returns:
        ``{"n", "mean_a", "mean_b", "diff", "ci_low", "ci_high", "p_value"}``.

    Example:
        >>> out = paired_bootstrap([1.0, 0.9, 0.8, 1.0] * 10, [0.5, 0.4, 0.6, 0.5] * 10)
        >>> round(out["diff"], 3), out["p_value"] < 0.01
        (0.425, True)
    """
    _check_common(confidence, n_resamples, "paired_bootstrap")
    left = _as_values(a, "a", "paired_bootstrap")
    right = _as_values(b, "b", "paired_bootstrap")
    check(
        left.size == right.size,
        "b",
        "paired_bootstrap",
        f"as long as 'a' ({left.size} values)",
        f"{right.size} values",
    )
    n = int(left.size)
    if n == 0:
        return {
            "n": 0,
            "mean_a": None,
            "mean_b": None,
            "diff": None,
            "ci_low": None,
            "ci_high": None,
            "p_value": None,
        }
    diffs = left - right
    diff = float(diffs.mean())
    if np.all(diffs == diffs[0]):
        p_value = 1.0 if diffs[0] == 0 else 0.0
        low = high = diff
    else:
        means = bootstrap_means(diffs, n_resamples=n_resamples, seed=seed)
        alpha = (1.0 - confidence) / 2.0
        low, high = (float(q) for q in np.quantile(means, [alpha, 1.0 - alpha]))
        p_value = bootstrap_p_value(means)
    return {
        "n": n,
        "mean_a": float(left.mean()),
        "mean_b": float(right.mean()),
        "diff": diff,
        "ci_low": low,
        "ci_high": high,
        "p_value": p_value,
    }


def bootstrap_p_value(means: ArrayLike) -> float:
    """Two-sided bootstrap p-value of a mean difference of zero, from resampled means.

    Twice the share of resamples on the far side of zero, ties counted as half, capped at 1 and
    never below ``1 / (resamples + 1)`` (a finite number of resamples cannot show p = 0). NaN
    resamples (no weight on any case) are left out.

    Example:
        >>> bootstrap_p_value([0.1, 0.2, -0.1, 0.3])
        0.5
    """
    array = np.asarray(means, dtype=np.float64).ravel()
    array = array[np.isfinite(array)]
    if array.size == 0:
        return 1.0
    below = float(np.mean(array < 0) + 0.5 * np.mean(array == 0))
    above = float(np.mean(array > 0) + 0.5 * np.mean(array == 0))
    return max(min(1.0, 2.0 * min(below, above)), 1.0 / (array.size + 1))


def clopper_pearson_interval(
    successes: ArrayLike, n: ArrayLike, confidence: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Exact two-sided Clopper–Pearson interval of binomial rates (vectorised).

    The analytic interval of a pass rate over independent cases: no resampling, and guaranteed
    coverage (conservative), so an all-pass sample of 30 cases is ``[0.884, 1]``, not ``[1, 1]``.

    Example:
        >>> low, high = clopper_pearson_interval([30], [30])
        >>> round(float(low[0]), 3), float(high[0])
        (0.884, 1.0)
    """
    # The beta quantile straight from scipy.special: importing scipy.stats costs seconds.
    from scipy.special import betaincinv

    k = np.asarray(successes, dtype=np.float64).ravel()
    total = np.asarray(n, dtype=np.float64).ravel()
    alpha = (1.0 - confidence) / 2.0
    with np.errstate(invalid="ignore"):
        low = np.where(k > 0, betaincinv(k, total - k + 1, alpha), 0.0)
        high = np.where(k < total, betaincinv(k + 1, total - k, 1.0 - alpha), 1.0)
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def mcnemar(
    a_passed: Sequence[bool] | ArrayLike,
    b_passed: Sequence[bool] | ArrayLike,
    *,
    exact: bool | None = None,
) -> dict[str, Any]:
    """McNemar's test of paired pass / fail outcomes of two systems on the same cases.

    Only discordant pairs matter: ``b01`` (a passes, b fails) and ``b10`` (a fails, b passes).
    With ``exact`` (the default when there are fewer than 25 discordant pairs) the p-value is the
    two-sided exact binomial test of ``b01`` out of ``b01 + b10`` at 0.5; otherwise the
    chi-squared statistic with continuity correction, ``(|b01 - b10| - 1)^2 / (b01 + b10)``.

    Returns:
        ``{"n", "a_only", "b_only", "statistic", "p_value", "exact"}``.

    Example:
        >>> a = [True] * 10 + [False] * 2 + [True] * 5
        >>> out = mcnemar(a, [False] * 10 + [True] * 2 + [True] * 5)
        >>> out["a_only"], out["b_only"], round(out["p_value"], 5)
        (10, 2, 0.03857)
    """
    left = np.asarray(a_passed, dtype=bool).ravel()
    right = np.asarray(b_passed, dtype=bool).ravel()
    check(
        left.size == right.size,
        "b_passed",
        "mcnemar",
        f"as long as 'a_passed' ({left.size} values)",
        f"{right.size} values",
    )
    a_only = int(np.sum(left & ~right))
    b_only = int(np.sum(~left & right))
    discordant = a_only + b_only
    use_exact = discordant < 25 if exact is None else exact
    from scipy import stats  # imported here: scipy.stats is slow to import

    if discordant == 0:
        statistic, p_value = 0.0, 1.0
    elif use_exact:
        statistic = float(min(a_only, b_only))
        p_value = float(stats.binomtest(a_only, discordant, 0.5).pvalue)
    else:
        statistic = (abs(a_only - b_only) - 1.0) ** 2 / discordant
        p_value = float(stats.chi2.sf(statistic, df=1))
    return {
        "n": int(left.size),
        "a_only": a_only,
        "b_only": b_only,
        "statistic": float(statistic),
        "p_value": min(1.0, p_value),
        "exact": bool(use_exact),
    }


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm–Bonferroni adjusted p-values (family-wise error control); None stays None.

    Example:
        >>> holm([0.01, 0.04, 0.03, None])
        [0.03, 0.06, 0.06, None]
    """
    present = [(p, i) for i, p in enumerate(p_values) if p is not None]
    order = sorted(present)
    m = len(order)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = round(running, 12)
    return adjusted
