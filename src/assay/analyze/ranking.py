"""Leaderboard uncertainty: confidence intervals, pairwise significance and the best models.

Builds on the leaderboard rows of :class:`~assay.analyze.leaderboard.LeaderboardBuilder` and the
long results table. Mean metrics get a bootstrap interval of the mean and of the pass rate; pairs
of models are compared on the cases both answered (paired bootstrap on values, McNemar on pass /
fail), with Holm-adjusted p-values within each metric.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from assay.analyze.uncertainty import (
    DEFAULT_RESAMPLES,
    bootstrap_ci,
    holm,
    mcnemar,
    paired_bootstrap,
)
from assay.analyze.weakness import measured
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
) -> list[LeaderboardRowCI]:
    """Leaderboard rows with ``ci_low``/``ci_high`` (of the mean) and ``pass_ci_low/high``.

    Corpus-level metrics keep None intervals (their value is not a mean of cases).

    Example:
        >>> rows = [{"model": "m", "metric": "acc", "aggregation": "mean", "value": 0.5}]
        >>> frame = pd.DataFrame({"case_id": ["a", "b"], "model": "m", "metric": "acc",
        ...     "status": "ok", "value": [0.0, 1.0], "passed": [False, True]})
        >>> out = leaderboard_with_ci(rows, frame, n_resamples=200)[0]
        >>> out["ci_low"] <= 0.5 <= out["ci_high"], out["pass_ci_low"] <= 0.5 <= out["pass_ci_high"]
        (True, True)
    """
    ok = measured(results)
    grouped = {key: group for key, group in ok.groupby(["model", "metric"], sort=False)}
    out: list[LeaderboardRowCI] = []
    for board_row in leaderboard:
        row = LeaderboardRowCI(
            **board_row, ci_low=None, ci_high=None, pass_ci_low=None, pass_ci_high=None
        )
        group = grouped.get((row["model"], row["metric"]))
        if group is not None and row.get("aggregation", "mean") == "mean":
            row["ci_low"], row["ci_high"] = bootstrap_ci(
                group["value"].to_numpy(float),
                confidence=confidence,
                n_resamples=n_resamples,
                seed=seed,
            )
            judged = group["passed"].dropna().astype(float).to_numpy()
            if judged.size:
                row["pass_ci_low"], row["pass_ci_high"] = bootstrap_ci(
                    judged, confidence=confidence, n_resamples=n_resamples, seed=seed
                )
        out.append(row)
    return out


def pairwise(
    results: pd.DataFrame,
    directions: dict[str, bool],
    *,
    metrics: Sequence[str] | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Pairwise comparison of every two models on each metric, over the cases both measured.

    Each row holds the paired bootstrap of the value difference (``diff`` = a − b, its interval and
    p-value) and, when both have pass / fail verdicts, McNemar's test; ``p_adjusted`` is the Holm
    adjustment of the test used (McNemar for pass / fail when available, else the bootstrap)
    across the model pairs of that metric. ``winner`` names the better model when significant.

    Example:
        >>> frame = pd.DataFrame({"case_id": list("abcdefgh") * 2, "model": ["x"] * 8 + ["y"] * 8,
        ...     "metric": "acc", "status": "ok", "value": [1.0] * 8 + [0.0] * 8, "passed": None})
        >>> row = pairwise(frame, {"acc": True}, n_resamples=200)[0]
        >>> row["model_a"], row["model_b"], row["diff"], row["winner"]
        ('x', 'y', 1.0, 'x')
    """
    ok = measured(results)
    wanted = [m for m in (metrics or sorted(ok["metric"].unique())) if m in directions]
    out: list[dict[str, Any]] = []
    for metric in wanted:
        frame = ok[ok["metric"] == metric]
        models = sorted(frame["model"].unique().tolist())
        if len(models) < 2:
            continue
        wide = _wide(frame, "value")
        judged = frame[frame["passed"].notna()]
        verdicts = _wide(
            judged.assign(passed=judged["passed"].astype(bool).astype(float)), "passed"
        )
        rows = []
        for a, b in combinations(models, 2):
            rows.append(
                _compare_pair(metric, a, b, wide, verdicts, directions[metric], n_resamples, seed)
            )
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


def _wide(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """case_id × model table of ``column`` (first row per case and model)."""
    unique = frame.drop_duplicates(["case_id", "model"])
    return unique.set_index(["case_id", "model"])[column].unstack("model")


def _compare_pair(
    metric: str,
    a: str,
    b: str,
    wide: pd.DataFrame,
    verdicts: pd.DataFrame,
    higher_is_better: bool,
    n_resamples: int,
    seed: int,
) -> dict[str, Any]:
    both = wide[[a, b]].dropna()
    boot = paired_bootstrap(
        both[a].to_numpy(float), both[b].to_numpy(float), n_resamples=n_resamples, seed=seed
    )
    test = None
    if a in verdicts and b in verdicts:
        judged = verdicts[[a, b]].dropna()
        if len(judged):
            test = mcnemar(judged[a].astype(bool).to_numpy(), judged[b].astype(bool).to_numpy())
    p_used = test["p_value"] if test is not None else boot["p_value"]
    return {
        "metric": metric,
        "model_a": a,
        "model_b": b,
        "higher_is_better": higher_is_better,
        "n_paired": boot["n"],
        "diff": boot["diff"],
        "ci_low": boot["ci_low"],
        "ci_high": boot["ci_high"],
        "p_bootstrap": boot["p_value"],
        "mcnemar": test,
        "test": "mcnemar" if test is not None else "paired_bootstrap",
        "p_used": p_used,
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
