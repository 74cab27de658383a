"""Generic problems and insights that apply to every evaluator.

Problems are things a validator must look at (a model below threshold, the hardest case, results
that flip under perturbation); insights are neutral observations (best, fastest, cheapest model).
Each finding is a plain dict with ``kind``, ``message`` and ``evidence``; rendering is elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from assay.rundir.records import Finding, LeaderboardRow, ResultRow


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


class PrimaryOutcomes:
    """Streams the judged primary-metric rows of a run, keeping only what the findings need.

    Memory stays small on large suites: a failure tally per failing case, and full rows only
    for cases linked by perturbation (``linked_ids``: perturbed cases and their parents).

    Example:
        >>> outcomes = PrimaryOutcomes(linked_ids=set())
        >>> outcomes.add([{"case_id": "q1", "model": "m", "metric": "f1", "primary": True,
        ...                "passed": False}])
        >>> outcomes.fails
        {'q1': (1, {'m'})}
    """

    _COLUMNS = (
        "case_id",
        "model",
        "evaluator",
        "metric",
        "value",
        "passed",
        "parent_id",
        "perturbation",
    )

    def __init__(self, linked_ids: set[str]) -> None:
        self.linked_ids = linked_ids
        self.models: set[str] = set()
        self.fails: dict[str, tuple[int, set[str]]] = {}
        self._linked_rows: list[tuple[Any, ...]] = []

    def add(self, rows: list[ResultRow]) -> None:
        """Take a batch of result rows (non-primary and unjudged rows are ignored)."""
        for row in rows:
            if not row["primary"] or row["passed"] is None:
                continue
            self.models.add(row["model"])
            if row["passed"] is False:
                count, models = self.fails.get(row["case_id"], (0, set()))
                models.add(row["model"])
                self.fails[row["case_id"]] = (count + 1, models)
            if row["case_id"] in self.linked_ids:
                self._linked_rows.append(tuple(row.get(c) for c in self._COLUMNS))

    def linked_frame(self) -> pd.DataFrame:
        """The kept rows of perturbed cases and their parents."""
        return pd.DataFrame(self._linked_rows, columns=list(self._COLUMNS))


def find_problems(
    leaderboard: Sequence[LeaderboardRow], outcomes: PrimaryOutcomes
) -> list[Finding]:
    """Problems from the leaderboard and the streamed primary-metric outcomes.

    Args:
        leaderboard: rows from :class:`~assay.analyze.leaderboard.LeaderboardBuilder`.
        outcomes: the run's judged primary-metric rows, collected by :class:`PrimaryOutcomes`.
    """
    problems: list[Finding] = []
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
    problems.extend(_errors(leaderboard))
    problems.extend(_most_difficult_case(outcomes))
    problems.extend(_flips(outcomes.linked_frame()))
    return problems


def _errors(leaderboard: Sequence[LeaderboardRow]) -> list[Finding]:
    """One problem per (model, evaluator) whose primary metric errored on some cases.

    Example:
        >>> row = {"primary": True, "model": "m", "evaluator": "e", "metric": "x", "n_ok": 4,
        ...        "n_skipped": 0, "n_error": 10}
        >>> _errors([row])[0]["severity"], _errors([{**row, "n_error": 0}])
        ('high', [])
    """
    out: list[Finding] = []
    for row in leaderboard:
        if not row["primary"] or not row["n_error"]:
            continue
        total = row["n_ok"] + row["n_skipped"] + row["n_error"]
        out.append(
            {
                "kind": "evaluator_errors",
                "severity": "high" if row["n_error"] > 0.05 * total else "medium",
                "model": row["model"],
                "evaluator": row["evaluator"],
                "metric": row["metric"],
                "message": (
                    f"Model {row['model'] or '(unnamed)'}: {row['evaluator']} could not score "
                    f"{row['n_error']} of {total} cases (see the reasons in the results); "
                    "unmeasured cases are never counted as passes."
                ),
                "evidence": {k: row[k] for k in ("n_ok", "n_skipped", "n_error")},
            }
        )
    return out


def _most_difficult_case(outcomes: PrimaryOutcomes) -> list[Finding]:
    if not outcomes.fails:
        return []
    case_id, (n_fails, models) = max(
        outcomes.fails.items(), key=lambda item: (len(item[1][1]), item[1][0])
    )
    n_models = len(outcomes.models)
    return [
        {
            "kind": "most_difficult_case",
            "severity": "medium",
            "case_id": case_id,
            "message": (
                f"Case {case_id} is the most difficult: {len(models)} of {n_models} models "
                f"fail it on {n_fails} primary metric checks."
            ),
            "evidence": {"failing_models": sorted(models), "failed_checks": n_fails},
        }
    ]


def _flips(primary: pd.DataFrame) -> list[Finding]:
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
    out: list[Finding] = []
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


def find_insights(
    leaderboard: Sequence[LeaderboardRow], usage: pd.DataFrame
) -> list[Finding]:
    """Insights: the best model per primary metric; fastest, slowest, cheapest, dearest model.

    Args:
        leaderboard: leaderboard rows.
        usage: one row per case with ``model``, ``latency_s`` and ``cost_usd`` (may hold nulls).
    """
    insights: list[Finding] = []
    by_metric: dict[str, list[LeaderboardRow]] = {}
    for row in leaderboard:
        if row["primary"] and row["value"] is not None:
            by_metric.setdefault(row["metric"], []).append(row)
    for metric, rows in by_metric.items():
        if len(rows) < 2:
            continue
        pick = max if rows[0]["higher_is_better"] else min
        best = pick(rows, key=lambda r: r["value"] or 0.0)  # never None: filtered above
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
