"""What changed between two runs: metric deltas per model with significance, regressions first.

Runs are matched on (model, metric). Where both runs measured the same cases (same ``case_id``)
the change is measured and tested on those pairs only: values, deltas and threshold verdicts are
recomputed on the shared cases (``scope="shared"``), so a run of 257 cases (attacks included) and
a run of 48 are compared on what both measured, never one population against another. The test
is a paired cluster bootstrap of the value difference (a perturbed child or attack variant is
resampled with its parent question, as in the run's own analysis: see
:mod:`assay.analyze.resampling`) and, for pass / fail verdicts of independent cases, McNemar's
test (it assumes independent pairs, so it is not used when cases share a parent).
Without any shared case the difference is *unpaired* (``scope="unpaired"``): reported as such,
with no interval, and never more than a possible change. A change is a *regression* when it is
significant and in the bad direction, or when a metric's threshold verdict turns from pass to
fail on the shared cases.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from assay.analyze.resampling import CLUSTER, ClusterBootstrap
from assay.analyze.uncertainty import DEFAULT_RESAMPLES, mcnemar
from assay.analyze.weakness import measured
from assay.evaluators.base import MetricSpec
from assay.rundir.records import LeaderboardRow

if TYPE_CHECKING:
    from assay.rundir.run import EvaluationRun

ALPHA = 0.05
#: Order of change kinds in the output (regressions first).
KIND_ORDER = (
    "regression",
    "possible_regression",
    "improvement",
    "possible_improvement",
    "unchanged",
    "added",
    "removed",
)


def _key_rows(board: Sequence[LeaderboardRow]) -> dict[tuple[str, str], LeaderboardRow]:
    return {(r["model"], r["metric"]): r for r in board}


def compare_runs(
    run_a: EvaluationRun,
    run_b: EvaluationRun,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    alpha: float = ALPHA,
    max_case_flips: int = 50,
    seed: int = 0,
) -> dict[str, Any]:
    """Compare run B (new) against run A (baseline).

    Returns:
        ``{"changes": [...], "case_flips": [...], "summary": {...}}``. Each change holds
        ``model``, ``metric``, ``value_a``, ``value_b``, ``delta`` (b − a), ``better`` (the delta
        oriented so positive is better), the paired test, ``verdict_a``/``verdict_b`` and ``kind``
        — one of :data:`KIND_ORDER`. Changes are sorted regressions first, then by size.

    Example:
        >>> from assay import TestCase, evaluate
        >>> cases = [TestCase(id=str(i), model="m", actual_answer="a", expected_answer="a")
        ...          for i in range(30)]
        >>> worse = [c.model_copy(update={"actual_answer": "b"}) for c in cases]
        >>> out = compare_runs(evaluate(cases, ["exact_match"]), evaluate(worse, ["exact_match"]))
        >>> out["changes"][0]["kind"], out["changes"][0]["delta"]
        ('regression', -1.0)
    """
    board_a, board_b = _key_rows(run_a.leaderboard), _key_rows(run_b.leaderboard)
    ok_a, ok_b = measured(run_a.results), measured(run_b.results)
    # One draw of weights for run B's parent questions serves every (model, metric) pair.
    bootstrap = ClusterBootstrap.for_results(ok_b, n_resamples=n_resamples, seed=seed)
    changes = []
    for key in list(dict.fromkeys([*board_a, *board_b])):
        row_a, row_b = board_a.get(key), board_b.get(key)
        changes.append(_change(key, row_a, row_b, ok_a, ok_b, bootstrap, alpha))
    order = {kind: i for i, kind in enumerate(KIND_ORDER)}
    changes.sort(
        key=lambda c: (order[c["kind"]], -abs(c["better"] or 0.0), c["model"], c["metric"])
    )
    flips = case_flips(run_a.results, run_b.results)
    counts = {kind: sum(c["kind"] == kind for c in changes) for kind in KIND_ORDER}
    cases_a = set(run_a.results["case_id"].astype(str))
    cases_b = set(run_b.results["case_id"].astype(str))
    return {
        "run_a": str(run_a.path) if run_a.path else None,
        "run_b": str(run_b.path) if run_b.path else None,
        "alpha": alpha,
        "summary": {
            **counts,
            "cases_a": len(cases_a),
            "cases_b": len(cases_b),
            "shared_cases": len(cases_a & cases_b),
            "case_regressions": sum(f["direction"] == "pass → fail" for f in flips),
            "case_improvements": sum(f["direction"] == "fail → pass" for f in flips),
        },
        "changes": changes,
        "case_flips": flips[:max_case_flips],
    }


def _change(
    key: tuple[str, str],
    row_a: LeaderboardRow | None,
    row_b: LeaderboardRow | None,
    ok_a: pd.DataFrame,
    ok_b: pd.DataFrame,
    bootstrap: ClusterBootstrap,
    alpha: float,
) -> dict[str, Any]:
    model, metric = key
    row = row_b or row_a
    higher = row is None or bool(row["higher_is_better"])
    value_a = row_a["value"] if row_a else None
    value_b = row_b["value"] if row_b else None
    delta = value_b - value_a if value_a is not None and value_b is not None else None
    better = (delta if higher else -delta) if delta is not None else None
    out: dict[str, Any] = {
        "model": model,
        "metric": metric,
        "primary": row is not None and bool(row.get("primary")),
        "higher_is_better": higher,
        "value_a": value_a,
        "value_b": value_b,
        "delta": delta,
        "better": better,
        "verdict_a": row_a.get("passed") if row_a else None,
        "verdict_b": row_b.get("passed") if row_b else None,
        "n_paired": 0,
        "n_a": row_a.get("n_ok") if row_a else None,
        "n_b": row_b.get("n_ok") if row_b else None,
        "scope": None,
        "ci_low": None,
        "ci_high": None,
        "p_value": None,
        "test": None,
    }
    if row_a is None or row_b is None:
        out["kind"] = "added" if row_a is None else "removed"
        return out
    pairs = _pairs(ok_a, ok_b, model, metric)
    mean = row_b.get("aggregation", "mean") == "mean"
    out["scope"] = "shared" if len(pairs) else "unpaired"
    out["n_paired"] = len(pairs)
    if mean and len(pairs) and len(pairs) < max(out["n_a"] or 0, out["n_b"] or 0):
        _restrict_to_shared(out, pairs, row_b)
    if len(pairs) >= 2 and mean:
        out.update(_paired_test(pairs, bootstrap, 1.0 - alpha))
    out["kind"] = _kind(out, alpha)
    return out


def _paired_test(
    pairs: pd.DataFrame, bootstrap: ClusterBootstrap, confidence: float
) -> dict[str, Any]:
    """Cluster-paired bootstrap of ``value_b - value_a`` (and McNemar's test when the pairs are
    independent cases and some verdict changed): interval, p-value and the number of clusters."""
    diffs = pairs["value_b"].to_numpy(float) - pairs["value_a"].to_numpy(float)
    codes = pairs[CLUSTER].to_numpy()
    n_clusters = int(np.unique(codes).size)
    low, high, p_value = bootstrap.difference_test(codes, diffs, confidence)
    out: dict[str, Any] = {
        "n_paired": int(diffs.size), "n_clusters": n_clusters, "ci_low": low, "ci_high": high,
        "p_value": p_value, "test": "paired_cluster_bootstrap",
    }
    judged = pairs[(pairs["passed_a"] >= 0) & (pairs["passed_b"] >= 0)]  # int8 codes
    changed = len(judged) >= 2 and bool((judged["passed_a"] != judged["passed_b"]).any())
    if changed and n_clusters == len(pairs):
        test = mcnemar(judged["passed_b"].astype(bool), judged["passed_a"].astype(bool))
        out["mcnemar"] = test
        out["p_value"] = min(p_value, test["p_value"])
    return out


def _restrict_to_shared(out: dict[str, Any], pairs: pd.DataFrame, row: LeaderboardRow) -> None:
    """Values, delta and verdicts of ``out`` on the shared cases only (the runs' own means,
    over different populations, are kept as ``value_a_all`` / ``value_b_all``)."""
    spec = MetricSpec(out["metric"], "", higher_is_better=out["higher_is_better"],
                      threshold=row.get("threshold"))
    value_a, value_b = float(pairs["value_a"].mean()), float(pairs["value_b"].mean())
    delta = value_b - value_a
    out.update(
        value_a_all=out["value_a"], value_b_all=out["value_b"],
        value_a=value_a, value_b=value_b, delta=delta,
        better=delta if out["higher_is_better"] else -delta,
        verdict_a=spec.passes(value_a), verdict_b=spec.passes(value_b),
    )


def _pairs(ok_a: pd.DataFrame, ok_b: pd.DataFrame, model: str, metric: str) -> pd.DataFrame:
    cols = ["case_id", "value", "passed"]
    a = ok_a.loc[(ok_a["model"] == model) & (ok_a["metric"] == metric), cols]
    b = ok_b.loc[(ok_b["model"] == model) & (ok_b["metric"] == metric), [*cols, CLUSTER]]
    a = a.drop_duplicates("case_id")
    b = b.drop_duplicates("case_id")
    return a.merge(b, on="case_id", suffixes=("_a", "_b"))


def _kind(change: dict[str, Any], alpha: float) -> str:
    better = change["better"]
    if change["scope"] == "unpaired":  # different populations: never more than possible
        if better is None or abs(better) < 1e-12:
            return "unchanged"
        return "possible_regression" if better < 0 else "possible_improvement"
    verdict_flip = change["verdict_a"] is True and change["verdict_b"] is False
    verdict_fix = change["verdict_a"] is False and change["verdict_b"] is True
    significant = change["p_value"] is not None and change["p_value"] < alpha
    if verdict_flip or (significant and better is not None and better < 0):
        return "regression"
    if verdict_fix or (significant and better is not None and better > 0):
        return "improvement"
    if better is None or abs(better) < 1e-12:
        return "unchanged"
    return "possible_regression" if better < 0 else "possible_improvement"


def case_flips(results_a: pd.DataFrame, results_b: pd.DataFrame) -> list[dict[str, Any]]:
    """Cases whose primary-metric verdict changed between two runs, pass → fail first.

    Example:
        >>> a = pd.DataFrame({"case_id": ["1"], "model": "m", "metric": "x", "primary": True,
        ...                   "status": "ok", "value": [1.0], "passed": [True]})
        >>> b = a.assign(value=[0.0], passed=[False])
        >>> case_flips(a, b)[0]["direction"]
        'pass → fail'
    """
    cols = ["case_id", "model", "metric", "value", "passed"]

    def judged(frame: pd.DataFrame) -> pd.DataFrame:
        keep = (frame["primary"] == True) & frame["passed"].notna()  # noqa: E712
        return frame.loc[keep, cols].drop_duplicates(["case_id", "model", "metric"])

    merged = judged(results_a).merge(
        judged(results_b), on=["case_id", "model", "metric"], suffixes=("_a", "_b")
    )
    flipped = merged[merged["passed_a"].astype(bool) != merged["passed_b"].astype(bool)]
    out = [
        {
            "case_id": r.case_id,
            "model": r.model,
            "metric": r.metric,
            "value_a": r.value_a,
            "value_b": r.value_b,
            "direction": "pass → fail" if bool(r.passed_a) else "fail → pass",
        }
        for r in flipped.itertuples(index=False)
    ]
    out.sort(key=lambda f: (f["direction"] != "pass → fail", f["model"], f["metric"], f["case_id"]))
    return out
