"""Everything the reports show about one run, computed once and returned as plain data.

:func:`analyze_run` gathers the leaderboard with intervals, pairwise significance, best models
and the weakness analysis (marginal slices, heatmaps, distributions). It decides nothing: the
verdict and its six dimensions come from the validation verdict
(:func:`assay.verdict.implicit.assess_run`), which the report writers add. Renderers (HTML,
Markdown, JUnit) consume the result; none of them computes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from assay.analyze.ranking import best_models, leaderboard_with_ci, pairwise
from assay.analyze.repeats import repeat_analysis
from assay.analyze.resampling import ClusterBootstrap
from assay.analyze.table import analysis_tables, metric_groups, with_case_ids
from assay.analyze.uncertainty import DEFAULT_RESAMPLES
from assay.analyze.weakness import (
    ALL_MODELS,
    NONE_LABEL,
    bivariate,
    distribution,
    marginal,
    measured,
    weakest_slices,
)
from assay.memory import release_memory
from assay.rundir.records import LeaderboardRow, LeaderboardRowCI

if TYPE_CHECKING:
    from assay.rundir.run import EvaluationRun

#: Fields tried, in order, as the axes of the weakness heatmaps.
HEATMAP_FIELDS = ("topic", "query_type", "perturbation", "model")
#: Per-model heatmaps are drawn when a run has at most this many models.
MAX_HEATMAP_MODELS = 6
#: How many metrics (those of the weakest slices) get per-model heatmaps.
MAX_FOCUS_METRICS = 2


def directions(leaderboard: Sequence[LeaderboardRow]) -> dict[str, bool]:
    """Metric → higher is better, from leaderboard rows.

    Example:
        >>> directions([{"metric": "x", "higher_is_better": False}])
        {'x': False}
    """
    return {r["metric"]: bool(r["higher_is_better"]) for r in leaderboard}


def _heatmap_axes(seen: dict[str, set[Any]]) -> tuple[str, str] | None:
    """The first two :data:`HEATMAP_FIELDS` with more than one value (``seen``: field → its
    values in the run's measured rows)."""
    varied = [f for f in HEATMAP_FIELDS if len(seen.get(f, ())) > 1]
    return (varied[0], varied[1]) if len(varied) >= 2 else None


def analyze_run(
    run: EvaluationRun,
    *,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    top_weaknesses: int = 15,
    heatmap_axes: tuple[str, str] | None = None,
    seed: int = 0,
) -> dict[str, Any]:
    """Analyse a run for the reports (data only).

    Args:
        run: an evaluated run (in memory or loaded from its directory).
        confidence: level of every confidence interval.
        n_resamples: bootstrap resamples.
        top_weaknesses: how many weakest slices to list.
        heatmap_axes: the two fields of the heatmaps (default: the first two of topic,
            query_type, perturbation, model that vary in the run).
        seed: bootstrap seed (the analysis is deterministic for a given seed).

    Returns:
        A JSON-serialisable dict with ``leaderboard``, ``pairwise``, ``best``, ``marginal``,
        ``weakest``, ``heatmaps``, ``distributions``, ``primary_metrics`` and ``repeats``
        (spread and flaky cases across repeated samples, see
        :func:`~assay.analyze.repeats.repeat_analysis`; None without samples).

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a", expected_answer="a")],
        ...                ["exact_match"])
        >>> analyze_run(run, n_resamples=50)["leaderboard"][0]["value"]
        1.0
    """
    direction = directions(run.leaderboard)
    primary = [m for m in dict.fromkeys(r["metric"] for r in run.leaderboard if r["primary"])]
    # The measured rows only, streamed from a run directory, in one table, or a group of
    # metrics at a time for a very large run (issue 48); every function below accepts them.
    groups = metric_groups(run.leaderboard, primary)
    n_models = None if len(groups) == 1 else len({r["model"] for r in run.leaderboard if r["n_ok"]})
    board: dict[int, LeaderboardRowCI] = {}
    marginal_parts: list[pd.DataFrame] = []
    seen: dict[str, set[Any]] = {f: set() for f in HEATMAP_FIELDS}
    boot: ClusterBootstrap | None = None
    for number, results in enumerate(analysis_tables(run, groups)):
        # One draw of resampling weights (by parent question) shared by every interval and
        # test; every table codes the whole run's clusters.
        if boot is None:
            boot = ClusterBootstrap.for_results(results, n_resamples=n_resamples, seed=seed)
        last, metrics = number == len(groups) - 1, groups[number]
        rows = [
            i
            for i, r in enumerate(run.leaderboard)
            if i not in board and (last or metrics is None or r["metric"] in metrics)
        ]
        with_ci = leaderboard_with_ci(
            [run.leaderboard[i] for i in rows], results, confidence=confidence, bootstrap=boot
        )
        board.update(zip(rows, with_ci, strict=True))
        release_memory()  # each step's transients, before the next one's
        marginal_parts.append(
            marginal(results, direction, confidence=confidence, bootstrap=boot, n_models=n_models)
        )
        for field in seen:
            if field in results:
                seen[field].update(results[field].unique())
        if not last:
            del results
            release_memory()
    assert boot is not None  # metric_groups gives at least one group
    marginal_frame = _joined(marginal_parts)
    weakest = weakest_slices(marginal_frame, top=top_weaknesses, metrics=primary)
    axes = heatmap_axes if heatmap_axes is not None else _heatmap_axes(seen)
    leaderboard = [board[i] for i in range(len(run.leaderboard))]
    figures = _primary_figures(
        run, results, primary, direction, weakest, axes, boot, confidence=confidence
    )
    return {
        "confidence": confidence,
        "n_resamples": n_resamples,
        "seed": seed,
        "primary_metrics": primary,
        "directions": direction,
        "leaderboard": leaderboard,
        "pairwise": figures["pairwise"],
        "best": best_models(leaderboard, figures["pairwise"]),
        "marginal": _records(marginal_frame),
        "weakest": weakest,
        "heatmaps": figures["heatmaps"],
        "distributions": figures["distributions"],
        "none_label": NONE_LABEL,
        "repeats": figures["repeats"],
    }


def _primary_figures(
    run: EvaluationRun,
    results: pd.DataFrame,
    primary: list[str],
    direction: dict[str, bool],
    weakest: list[dict[str, Any]],
    axes: tuple[str, str] | None,
    boot: ClusterBootstrap,
    *,
    confidence: float,
) -> dict[str, Any]:
    """The figures of the primary metrics, from the analysis table ``results`` that holds
    them: pairwise tests, heatmaps (per model for the metrics of the weakest slices),
    distributions and repeats."""
    comparisons = pairwise(
        with_case_ids(run, results, primary),
        direction,
        metrics=primary,
        confidence=confidence,
        bootstrap=boot,
    )
    release_memory()
    ok = measured(results)
    # Per-model heatmaps for the metrics of the top weaknesses (weaknesses are often per model).
    focus = list(dict.fromkeys(w["metric"] for w in weakest))[:MAX_FOCUS_METRICS]
    heatmaps, boxes = [], []
    measured_primary = [m for m in primary if (ok["metric"] == m).any()]
    for metric in measured_primary:
        if axes is not None:
            heatmaps.append(bivariate(results, metric, rows=axes[0], columns=axes[1]))
            models = sorted(ok.loc[ok["metric"] == metric, "model"].unique())
            if metric in focus and "model" not in axes and 1 < len(models) <= MAX_HEATMAP_MODELS:
                heatmaps += [
                    bivariate(results, metric, rows=axes[0], columns=axes[1], model=model)
                    for model in models
                ]
        for field in ("model", "topic", "query_type", "perturbation"):
            if field in ok and ok.loc[ok["metric"] == metric, field].nunique() > 1:
                boxes.append(
                    {
                        "metric": metric,
                        "field": field,
                        "boxes": distribution(results, metric, field=field),
                    }
                )
                break
    return {
        "pairwise": comparisons,
        "heatmaps": heatmaps,
        "distributions": boxes,
        "repeats": repeat_analysis(results, boot, metrics=primary, confidence=confidence),
    }


def _joined(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The marginal frames of the analysis tables as one, in the order one table gives:
    every model's scope first, then each model's by name, each scope's metrics by name (the
    rows of a scope and metric keep their order)."""
    if len(parts) == 1:
        return parts[0]
    frame = pd.concat(parts, ignore_index=True)
    if frame.empty:
        return frame
    order = frame.assign(_rest=frame["scope"] != ALL_MODELS).sort_values(
        ["_rest", "scope", "metric"], kind="stable"
    )
    return frame.loc[order.index].reset_index(drop=True)


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    if frame.empty:
        return []
    cleaned = frame.astype(object).where(frame.notna(), None)
    return [dict(r) for r in cleaned.to_dict("records")]
