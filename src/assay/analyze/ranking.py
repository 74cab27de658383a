"""Leaderboard uncertainty: confidence intervals, pairwise significance and the best models.

Builds on the leaderboard rows of :class:`~assay.analyze.leaderboard.LeaderboardBuilder` and the
long results table. Mean metrics get a bootstrap interval of the mean and of the pass rate; pairs
of models are compared on the cases both answered (paired bootstrap on values, McNemar on pass /
fail), with Holm-adjusted p-values within each metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from assay.analyze.resampling import (
    CLUSTER,
    ClusterBootstrap,
    column_codes,
    percentile_interval,
)
from assay.analyze.uncertainty import (
    DEFAULT_RESAMPLES,
    clopper_pearson_interval,
    holm,
    mcnemar,
)
from assay.analyze.weakness import measured, positions_by_value
from assay.rundir.records import LeaderboardRow, LeaderboardRowCI

#: Significance level used to call a difference significant.
ALPHA = 0.05


def leaderboard_with_ci(
    leaderboard: Sequence[LeaderboardRow],
    results: pd.DataFrame,
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    bootstrap: ClusterBootstrap | None = None,
) -> list[LeaderboardRowCI]:
    """Leaderboard rows with ``ci_low``/``ci_high`` (of the mean) and ``pass_ci_low/high``.

    Means get a percentile cluster-bootstrap interval (cases resampled by parent question);
    pass rates the exact Clopper–Pearson interval when every case is its own question, else the
    cluster bootstrap. Corpus-level metrics keep None intervals (their value is not a mean of
    cases). ``bootstrap`` is the analysis' shared weights (default: drawn here from
    ``n_resamples`` and ``seed``).

    Example:
        >>> rows = [{"model": "m", "metric": "acc", "aggregation": "mean", "value": 0.5}]
        >>> frame = pd.DataFrame({"case_id": ["a", "b"], "model": "m", "metric": "acc",
        ...     "status": "ok", "value": [0.0, 1.0], "passed": [False, True]})
        >>> out = leaderboard_with_ci(rows, frame, n_resamples=200)[0]
        >>> out["ci_low"] <= 0.5 <= out["ci_high"], out["pass_ci_low"] <= 0.5 <= out["pass_ci_high"]
        (True, True)
    """
    ok = measured(results)
    if bootstrap is None:
        bootstrap = ClusterBootstrap.for_results(ok, n_resamples=n_resamples, seed=seed)
    intervals: dict[tuple[str, str], dict[str, float | None]] = {}
    # Positions, not per-model copies of the table (one copy was ~100 MB at 100,000 cases).
    # One model's positions at a time (all of them at once were 220 MB at 1,000,000 cases).
    for model, rows in positions_by_value(ok["model"]):
        intervals.update(_model_intervals(str(model), ok, rows, bootstrap, confidence))
    out: list[LeaderboardRowCI] = []
    for board_row in leaderboard:
        found: dict[str, float | None] = {}
        if board_row.get("aggregation", "mean") == "mean":
            found = intervals.get((board_row["model"], board_row["metric"]), {})
        row = LeaderboardRowCI(
            **board_row,
            ci_low=found.get("ci_low"),
            ci_high=found.get("ci_high"),
            pass_ci_low=found.get("pass_ci_low"),
            pass_ci_high=found.get("pass_ci_high"),
        )
        out.append(row)
    return out


def _model_intervals(
    model: str,
    ok: pd.DataFrame,
    rows: np.ndarray,
    bootstrap: ClusterBootstrap,
    confidence: float,
) -> dict[tuple[str, str], dict[str, float | None]]:
    """Intervals of every metric of one model (the rows at positions ``rows`` of ``ok``):
    means by cluster bootstrap (one product for all metrics), pass rates exactly
    (Clopper–Pearson) when no two cases share a parent question, else by cluster bootstrap
    too."""
    # The model's rows are read in place (a copy of their codes, clusters and values was
    # ~60 MB at 100,000 cases); only the judged rows' verdicts are gathered.
    all_codes, names = column_codes(ok["metric"], rows)
    clusters = ok[CLUSTER].to_numpy()
    low, high = bootstrap.interval(
        clusters, ok["value"].to_numpy(dtype=float), confidence, all_codes, len(names), rows
    )
    verdicts = ok["passed"].to_numpy()[rows]  # int8 codes (measured)
    judged = verdicts >= 0
    passed = verdicts[judged].astype(float)
    del verdicts
    j_rows = rows[judged]
    j_codes, j_clusters = all_codes[j_rows], clusters[j_rows]
    successes = np.bincount(j_codes, weights=passed, minlength=len(names))
    totals = np.bincount(j_codes, minlength=len(names))
    pass_low, pass_high = clopper_pearson_interval(successes, totals, confidence)
    # Distinct clusters per metric: distinct (metric, cluster) pairs counted by metric.
    pairs = np.unique(j_codes.astype(np.int64) * bootstrap.n_clusters + j_clusters)
    shared = np.bincount(pairs // max(1, bootstrap.n_clusters), minlength=len(names))
    clustered = (shared < totals) & (totals > 0)
    if clustered.any():
        boot_low, boot_high = percentile_interval(
            bootstrap.means(j_clusters, passed, j_codes, len(names)), confidence
        )
        pass_low[clustered], pass_high[clustered] = boot_low[clustered], boot_high[clustered]
    out: dict[tuple[str, str], dict[str, float | None]] = {}
    for code, metric in enumerate(names):
        has_verdicts = bool(totals[code])
        out[(model, str(metric))] = {
            "ci_low": float(low[code]),
            "ci_high": float(high[code]),
            "pass_ci_low": float(pass_low[code]) if has_verdicts else None,
            "pass_ci_high": float(pass_high[code]) if has_verdicts else None,
        }
    return out


def pairwise(
    results: pd.DataFrame,
    directions: dict[str, bool],
    *,
    metrics: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence: float = 0.95,
    bootstrap: ClusterBootstrap | None = None,
) -> list[dict[str, Any]]:
    """Pairwise comparison of every two models on each metric, over the cases both measured.

    Each row holds the paired bootstrap of the value difference (``diff`` = a − b, its interval and
    p-value; cases resampled by parent question) and, when both have pass / fail verdicts,
    McNemar's test; ``p_adjusted`` is the Holm adjustment of the test used across the model pairs
    of that metric: McNemar for pass / fail when available and every case is its own question
    (McNemar assumes independent pairs), else the cluster bootstrap. ``winner`` names the better
    model when significant. ``bootstrap`` is the analysis' shared weights (default: drawn here).

    Example:
        >>> frame = pd.DataFrame({"case_id": list("abcdefgh") * 2, "model": ["x"] * 8 + ["y"] * 8,
        ...     "metric": "acc", "status": "ok", "value": [1.0] * 8 + [0.0] * 8, "passed": None})
        >>> row = pairwise(frame, {"acc": True}, n_resamples=200)[0]
        >>> row["model_a"], row["model_b"], row["diff"], row["winner"]
        ('x', 'y', 1.0, 'x')
    """
    ok = measured(results)
    if ok["model"].nunique() < 2:  # no metric has two models to compare
        return []
    if bootstrap is None:
        bootstrap = ClusterBootstrap.for_results(ok, n_resamples=n_resamples, seed=seed)
    wanted = [m for m in (metrics or sorted(ok["metric"].unique())) if m in directions]
    out: list[dict[str, Any]] = []
    for metric in wanted:
        frame = ok.loc[ok["metric"] == metric, ["case_id", "model", "value", "passed", CLUSTER]]
        models = sorted(frame["model"].unique().tolist())
        if len(models) < 2:
            continue
        table = _Wide.of(frame, models)
        del frame
        rows = []
        for a, b in combinations(range(len(models)), 2):
            pair = _compare_pair(table, (a, b), bootstrap, confidence)
            rows.append({"metric": metric, "higher_is_better": directions[metric],
                         "model_a": models[a], "model_b": models[b], **pair})
        adjusted = holm([r["p_used"] for r in rows])
        for row, p_adj in zip(rows, adjusted, strict=True):
            row["p_adjusted"] = p_adj
            significant = p_adj is not None and p_adj < ALPHA and row["diff"] not in (None, 0.0)
            row["significant"] = bool(significant)
            better_a = (
                (row["diff"] or 0.0) > 0 if row["higher_is_better"] else (row["diff"] or 0) < 0
            )
            row["winner"] = (
                (row["model_a"] if better_a else row["model_b"]) if significant else None
            )
            out.append(row)
    return out


def _text_ordered(ids: pd.Series) -> tuple[NDArray[np.integer], int]:
    """Each row's case as a code in the text order of the case ids, and the number of codes:
    pairs are listed by case id, and the order of the differences sets the last digit of their
    sums. A compact read's ids are categories in text order: their codes (no string per row);
    other ids are factorised as text."""
    if isinstance(ids.dtype, pd.CategoricalDtype):
        names = ids.cat.categories
        codes = ids.cat.codes.to_numpy()
        if pd.api.types.is_string_dtype(names) and names.is_monotonic_increasing and (
            not codes.size or codes.min() >= 0
        ):
            return codes, len(names)
    codes, names = pd.factorize(ids.astype(str), sort=True)
    return codes, len(names)


@dataclass
class _Wide:
    """One metric's case × model table: the value and the verdict (1 / 0, NaN: none) of the
    first row of each case and model, cases in id text order (``unstack`` of the rows, as
    arrays: at 1,000,000 cases the frame's index and hash tables were ~70 MB a metric), and
    each case's cluster (its first row's)."""

    values: NDArray[np.float64]  # (models, cases)
    verdicts: NDArray[np.float64]  # (models, cases); a model without verdicts: all NaN
    judged: NDArray[np.bool_]  # models with a verdict on some case
    clusters: NDArray[np.int32]  # (cases,)

    @classmethod
    def of(cls, frame: pd.DataFrame, models: list[str]) -> _Wide:
        """The table of the measured rows ``frame`` of one metric (``models`` sorted)."""
        case, n_cases = _text_ordered(frame["case_id"])
        model = _model_codes(frame["model"], models)
        key = model * n_cases + case
        verdicts = frame["passed"].to_numpy()  # int8 codes (measured)
        judged = verdicts >= 0
        firsts, first_judged = _first_rows(key), _first_rows(key, judged)
        shape = (len(models), n_cases)
        values = _spread(firsts, frame["value"].to_numpy(dtype=float), shape)
        passes = _spread(first_judged, verdicts.astype(float), shape)
        seen, first_case = np.unique(case, return_index=True)
        clusters = np.full(n_cases, -1, dtype=np.int32)
        clusters[seen] = frame[CLUSTER].to_numpy()[first_case]
        present = np.zeros(len(models), dtype=bool)
        present[model[judged]] = True
        return cls(values, passes, present, clusters)


def _model_codes(column: pd.Series, models: list[str]) -> NDArray[np.int64]:
    """Each row's position of its model in ``models`` (which holds every model of ``column``);
    a ``category`` column through its categories (no string per row)."""
    names = pd.Index(models)
    if isinstance(column.dtype, pd.CategoricalDtype):
        lookup = names.get_indexer(column.cat.categories)
        return lookup[column.cat.codes.to_numpy()].astype(np.int64)
    return names.get_indexer(column).astype(np.int64)


def _first_rows(
    key: NDArray[np.int64], rows: NDArray[np.bool_] | None = None
) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """Each distinct ``key`` (at ``rows``, default all) and the position of its first row."""
    chosen = np.flatnonzero(rows) if rows is not None else np.arange(key.size)
    keys, first = np.unique(key[chosen], return_index=True)
    return keys, chosen[first]


def _spread(
    firsts: tuple[NDArray[np.int64], NDArray[np.intp]],
    column: NDArray[np.float64],
    shape: tuple[int, int],
) -> NDArray[np.float64]:
    """``column`` at each key's first row, in a (models, cases) table (NaN elsewhere)."""
    keys, rows = firsts
    out = np.full(shape[0] * shape[1], np.nan)
    out[keys] = column[rows]
    return out.reshape(shape)


def _compare_pair(
    table: _Wide, models: tuple[int, int], bootstrap: ClusterBootstrap, confidence: float
) -> dict[str, Any]:
    a, b = models
    both = ~np.isnan(table.values[a]) & ~np.isnan(table.values[b])
    diffs = table.values[a][both] - table.values[b][both]
    codes = table.clusters[both]
    independent = np.unique(codes).size == codes.size
    diff = ci_low = ci_high = p_boot = None
    if diffs.size:
        diff = float(diffs.mean())
        ci_low, ci_high, p_boot = bootstrap.difference_test(codes, diffs, confidence)
    test = None
    if table.judged[a] and table.judged[b]:
        verdict_a, verdict_b = table.verdicts[a], table.verdicts[b]
        judged = ~np.isnan(verdict_a) & ~np.isnan(verdict_b)
        if judged.any():
            test = mcnemar(verdict_a[judged].astype(bool), verdict_b[judged].astype(bool))
    use_mcnemar = test is not None and independent
    return {
        "n_paired": int(diffs.size),
        "n_clusters": int(np.unique(codes).size),
        "diff": diff,
        "ci_low": ci_low,
        "ci_high": ci_high,
        "p_bootstrap": p_boot,
        "mcnemar": test,
        "test": "mcnemar" if use_mcnemar else "paired_bootstrap",
        "p_used": test["p_value"] if use_mcnemar and test is not None else p_boot,
    }


def best_models(
    leaderboard: Sequence[LeaderboardRow], comparisons: Sequence[dict[str, Any]] = ()
) -> dict[str, Any]:
    """The best model per primary metric and overall (lowest mean rank over primary metrics).

    A metric's best model is ``clear`` when it significantly beats every other model in
    ``comparisons`` (from :func:`pairwise`).

    Example:
        >>> rows = [{"model": "x", "metric": "acc", "primary": True, "value": 0.9,
        ...          "higher_is_better": True},
        ...         {"model": "y", "metric": "acc", "primary": True, "value": 0.7,
        ...          "higher_is_better": True}]
        >>> out = best_models(rows)
        >>> out["per_metric"][0]["model"], out["overall"]["model"]
        ('x', 'x')
    """
    per_metric: list[dict[str, Any]] = []
    ranks: dict[str, list[float]] = {}
    by_metric: dict[str, list[LeaderboardRow]] = {}
    for row in leaderboard:
        if row.get("primary") and row.get("value") is not None:
            by_metric.setdefault(row["metric"], []).append(row)
    for metric, rows in by_metric.items():
        sign = -1.0 if rows[0]["higher_is_better"] else 1.0
        values = np.array([sign * (r["value"] or 0.0) for r in rows])  # never None: filtered
        order = pd.Series(values).rank(method="average").to_numpy()
        for row, rank in zip(rows, order, strict=True):
            ranks.setdefault(row["model"], []).append(float(rank))
        if len(rows) < 2:
            continue
        best = rows[int(np.argmin(values))]
        others = {r["model"] for r in rows} - {best["model"]}
        beaten = {
            c["model_b"] if c["winner"] == c["model_a"] else c["model_a"]
            for c in comparisons
            if c["metric"] == metric and c.get("winner") == best["model"]
        }
        per_metric.append(
            {
                "metric": metric,
                "model": best["model"],
                "value": best["value"],
                "clear": bool(others) and others <= beaten,
            }
        )
    overall = None
    if ranks:
        mean_ranks = {model: float(np.mean(r)) for model, r in ranks.items()}
        model = min(mean_ranks, key=lambda m: (mean_ranks[m], m))
        overall = {"model": model, "mean_rank": mean_ranks[model], "mean_ranks": mean_ranks}
    return {"per_metric": per_metric, "overall": overall}
