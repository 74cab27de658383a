"""Generic problems and insights that apply to every evaluator.

Problems are things a validator must look at (a model below threshold, the hardest case, results
that flip under perturbation); insights are neutral observations (best, fastest, cheapest model).
Each finding is a plain dict with ``kind``, ``message`` and ``evidence``; rendering is elsewhere.
"""

from __future__ import annotations

from typing import Any

import pandas as pd


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def find_problems(leaderboard: list[dict[str, Any]], primary: pd.DataFrame) -> list[dict[str, Any]]:
    """Problems from the leaderboard and the per-case primary-metric rows.

    Args:
        leaderboard: rows from :class:`~assay.analyze.leaderboard.LeaderboardBuilder`.
        primary: one row per case × model × primary metric with columns ``case_id``, ``model``,
            ``evaluator``, ``metric``, ``status``, ``value``, ``passed``, ``parent_id``,
            ``perturbation``.
    """
    problems: list[dict[str, Any]] = []
    for row in leaderboard:
        if row["primary"] and row["passed"] is False:
            side = "below" if row["higher_is_better"] else "above"
            problems.append(
                {
                    "kind": "below_threshold",
                    "severity": "high",
                    "model": row["model"],
                    "evaluator": row["evaluator"],
                    "metric": row["metric"],
                    "message": (
                        f"Model {row['model'] or '(unnamed)'}: {row['metric']} "
                        f"{_fmt(row['value'])} is {side} the threshold {_fmt(row['threshold'])} "
                        f"({row['n_ok']} cases measured, {row['n_skipped']} skipped, "
                        f"{row['n_error']} errors)."
                    ),
                    "evidence": {k: row[k] for k in ("value", "threshold", "n_ok", "pass_rate")},
                }
            )
    problems.extend(_most_difficult_case(primary))
    problems.extend(_flips(primary))
    return problems


def _most_difficult_case(primary: pd.DataFrame) -> list[dict[str, Any]]:
    judged = primary[primary["passed"].notna()]
    if judged.empty or judged["model"].nunique() < 1:
        return []
    failed = judged[judged["passed"] == False]  # noqa: E712 - pandas element-wise comparison
    if failed.empty:
        return []
    per_case = (
        failed.groupby("case_id")
        .agg(models=("model", "nunique"), metrics=("metric", "nunique"), fails=("metric", "size"))
        .sort_values(["models", "fails"], ascending=False)
    )
    case_id = str(per_case.index[0])
    top = per_case.iloc[0]
    n_models = judged["model"].nunique()
    failing = sorted(failed.loc[failed["case_id"] == case_id, "model"].unique().tolist())
    return [
        {
            "kind": "most_difficult_case",
            "severity": "medium",
            "case_id": case_id,
            "message": (
                f"Case {case_id} is the most difficult: {int(top['models'])} of {n_models} models "
                f"fail it on {int(top['fails'])} primary metric checks."
            ),
            "evidence": {"failing_models": failing, "failed_checks": int(top["fails"])},
        }
    ]


def _flips(primary: pd.DataFrame) -> list[dict[str, Any]]:
    children = primary[primary["parent_id"].notna() & primary["passed"].notna()]
    if children.empty:
        return []
    parents = primary[primary["passed"].notna()][["case_id", "model", "metric", "value", "passed"]]
    merged = children.merge(
        parents,
        left_on=["parent_id", "model", "metric"],
        right_on=["case_id", "model", "metric"],
        suffixes=("", "_parent"),
    )
    flipped = merged[merged["passed"] != merged["passed_parent"]]
    out = []
    for row in flipped.itertuples(index=False):
        regression = bool(row.passed_parent) and not bool(row.passed)
        direction = "pass → fail" if regression else "fail → pass"
        out.append(
            {
                "kind": "perturbation_flip",
                "severity": "high" if regression else "low",
                "case_id": row.case_id,
                "parent_id": row.parent_id,
                "model": row.model,
                "evaluator": row.evaluator,
                "metric": row.metric,
                "perturbation": row.perturbation,
                "message": (
                    f"Model {row.model or '(unnamed)'}: {row.metric} flipped {direction} under "
                    f"perturbation {row.perturbation or '(unnamed)'} (case {row.case_id} vs parent "
                    f"{row.parent_id}: {_fmt(row.value)} vs {_fmt(row.value_parent)})."
                ),
                "evidence": {"value": row.value, "parent_value": row.value_parent},
            }
        )
    return out


def find_insights(leaderboard: list[dict[str, Any]], usage: pd.DataFrame) -> list[dict[str, Any]]:
    """Insights: the best model per primary metric; fastest, slowest, cheapest, dearest model.

    Args:
        leaderboard: leaderboard rows.
        usage: one row per case with ``model``, ``latency_s`` and ``cost_usd`` (may hold nulls).
    """
    insights: list[dict[str, Any]] = []
    by_metric: dict[str, list[dict[str, Any]]] = {}
    for row in leaderboard:
        if row["primary"] and row["value"] is not None:
            by_metric.setdefault(row["metric"], []).append(row)
    for metric, rows in by_metric.items():
        if len(rows) < 2:
            continue
        best = (max if rows[0]["higher_is_better"] else min)(rows, key=lambda r: r["value"])
        insights.append(
            {
                "kind": "best_model",
                "metric": metric,
                "evaluator": best["evaluator"],
                "model": best["model"],
                "message": f"{best['model'] or '(unnamed)'} is the best model on {metric} "
                f"({_fmt(best['value'])}).",
                "evidence": {r["model"]: r["value"] for r in rows},
            }
        )
    for column, unit, low_word, high_word in (
        ("latency_s", "s", "fastest", "slowest"),
        ("cost_usd", "USD", "cheapest", "most expensive"),
    ):
        if column not in usage or usage[column].notna().sum() == 0:
            continue
        means = usage.dropna(subset=[column]).groupby("model")[column].mean()
        if len(means) < 2:
            continue
        for kind, model in ((low_word, means.idxmin()), (high_word, means.idxmax())):
            insights.append(
                {
                    "kind": kind.replace(" ", "_") + "_model",
                    "model": model,
                    "message": f"{model or '(unnamed)'} is the {kind} model "
                    f"(mean {column} {means[model]:.4g} {unit}).",
                    "evidence": {str(k): float(v) for k, v in means.items()},
                }
            )
    return insights
