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

    Memory stays small on large suites: a failure tally per failing case, a pass tally per
    repeated case (``sampled``: the suite holds samples of ``assay run --repeats``), and full
    rows only for cases linked by perturbation (``linked_ids``: perturbed cases and their
    parents).

    Example:
        >>> outcomes = PrimaryOutcomes(linked_ids=set())
        >>> outcomes.add([{"case_id": "q1", "model": "m", "metric": "f1", "primary": True,
        ...                "passed": False}])
        >>> outcomes.fails
        {'q1': (1, frozenset({'m'}))}
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
        "sample_of",
        "sample",
    )

    def __init__(self, linked_ids: set[str], *, sampled: bool = False) -> None:
        self.linked_ids = linked_ids
        self.sampled = sampled
        self.models: set[str] = set()
        #: case id -> (failed checks, failing models); one shared set per distinct set of
        #: models (a set per failing case was ~40 MB at 100,000 cases, issue 23).
        self.fails: dict[str, tuple[int, frozenset[str]]] = {}
        self._model_sets: dict[frozenset[str], frozenset[str]] = {}
        #: (model, evaluator, metric, sampled case) -> [samples judged, samples passing]
        self.samples: dict[tuple[str, str, str, str], list[int]] = {}
        self._linked_rows: list[tuple[Any, ...]] = []

    def add(self, rows: list[ResultRow]) -> None:
        """Take a batch of result rows (non-primary and unjudged rows are ignored)."""
        for row in rows:
            if not row["primary"] or row["passed"] is None:
                continue
            self.models.add(row["model"])
            if row["passed"] is False:
                count, models = self.fails.get(row["case_id"], (0, frozenset()))
                if row["model"] not in models:
                    models = self._models(models | {row["model"]})
                self.fails[row["case_id"]] = (count + 1, models)
            if row["case_id"] in self.linked_ids:
                self._linked_rows.append(tuple(row.get(c) for c in self._COLUMNS))
            of = row.get("sample_of")
            if self.sampled and of is not None:
                key = (row["model"], row["evaluator"], row["metric"], of)
                tally = self.samples.setdefault(key, [0, 0])
                tally[0] += 1
                tally[1] += bool(row["passed"])

    def _models(self, models: frozenset[str]) -> frozenset[str]:
        return self._model_sets.setdefault(models, models)

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
    problems.extend(_flaky(outcomes))
    return problems


def _flaky(outcomes: PrimaryOutcomes) -> list[Finding]:
    """One problem per repeated case whose primary verdict changes between its samples.

    Example:
        >>> outcomes = PrimaryOutcomes(set(), sampled=True)
        >>> outcomes.add([{"case_id": f"q#sample{j}", "model": "m", "evaluator": "e",
        ...                "metric": "f1", "primary": True, "passed": j != 2, "sample_of": "q"}
        ...               for j in (1, 2, 3)])
        >>> [(p["kind"], p["evidence"]) for p in _flaky(outcomes)]
        [('flaky_case', {'samples': 3, 'passing': 2, 'pass_share': 0.667})]
    """
    out: list[Finding] = []
    for (model, evaluator, metric, case_id), (n, n_pass) in sorted(outcomes.samples.items()):
        if 0 < n_pass < n:
            out.append(
                {
                    "kind": "flaky_case",
                    "severity": "medium",
                    "case_id": case_id,
                    "model": model,
                    "evaluator": evaluator,
                    "metric": metric,
                    "message": (
                        f"Model {model or '(unnamed)'}: {metric} passes on {n_pass} of {n} "
                        f"samples of case {case_id}: its verdict changes between samples."
                    ),
                    "evidence": {
                        "samples": n,
                        "passing": n_pass,
                        "pass_share": round(n_pass / n, 3),
                    },
                }
            )
    return out


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


def parent_pairs(judged: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Each perturbed row (``parent_id`` set) beside its parent's row of the same model and
    metric — for a repeated sample, the parent's sample of the same index — with the parent's
    ``columns`` suffixed ``_parent``.

    Example:
        >>> frame = pd.DataFrame({"case_id": ["p#sample1", "c#sample1"], "model": "m",
        ...     "metric": "acc", "passed": [True, False], "parent_id": [None, "p"],
        ...     "sample_of": ["p", "c"], "sample": [1, 1]})
        >>> parent_pairs(frame, ["passed"])[["case_id", "passed", "passed_parent"]].values.tolist()
        [['c#sample1', False, True]]
    """
    children = judged[judged["parent_id"].notna()]
    if children.empty:
        return children.assign(**{f"{c}_parent": [] for c in columns})

    def keyed(frame: pd.DataFrame, own: pd.Series) -> pd.DataFrame:
        sample = frame["sample"] if "sample" in frame else pd.Series(-1, index=frame.index)
        return frame.assign(_own=own.astype(str), _sample=sample.fillna(-1).astype(int))

    # As text: the id columns of a compactly read table are categories of different texts.
    case_ids = judged["case_id"].astype(str)
    of = judged["sample_of"].astype(object) if "sample_of" in judged else case_ids
    parents = keyed(judged, of.where(of.notna(), case_ids))
    parents = parents[["_own", "_sample", "model", "metric", *columns]]
    return keyed(children, children["parent_id"]).merge(
        parents.rename(columns={c: f"{c}_parent" for c in columns}),
        on=["_own", "_sample", "model", "metric"],
    ).drop(columns=["_own", "_sample"])


def _flips(primary: pd.DataFrame) -> list[Finding]:
    judged = primary[primary["passed"].notna()]
    merged = parent_pairs(judged, ["value", "passed"])
    if merged.empty:
        return []
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
