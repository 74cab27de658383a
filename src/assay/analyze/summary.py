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
from assay.analyze.table import analysis_table, with_case_ids
from assay.analyze.uncertainty import DEFAULT_RESAMPLES
from assay.analyze.weakness import (
    NONE_LABEL,
    bivariate,
    distribution,
    marginal,
    measured,
    weakest_slices,
)
from assay.memory import release_memory
from assay.rundir.records import LeaderboardRow

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


def _heatmap_axes(ok: pd.DataFrame) -> tuple[str, str] | None:
    varied = [f for f in HEATMAP_FIELDS if f in ok and ok[f].nunique() > 1]
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
    # Once, the measured rows only, streamed from a run directory; every function below
    # accepts it.
    results = analysis_table(run)
    # One draw of resampling weights (by parent question) shared by every interval and test.
    boot = ClusterBootstrap.for_results(results, n_resamples=n_resamples, seed=seed)
    board = leaderboard_with_ci(run.leaderboard, results, confidence=confidence, bootstrap=boot)
    release_memory()  # each step's transients, before the next one's (issue 48)
    direction = directions(run.leaderboard)
    primary = [m for m in dict.fromkeys(r["metric"] for r in run.leaderboard if r["primary"])]
    comparisons = pairwise(
        with_case_ids(run, results, primary), direction, metrics=primary,
        confidence=confidence, bootstrap=boot,
    )
    release_memory()
    marginal_frame = marginal(results, direction, confidence=confidence, bootstrap=boot)
    ok = measured(results)
    weakest = weakest_slices(marginal_frame, top=top_weaknesses, metrics=primary)
    # Per-model heatmaps for the metrics of the top weaknesses (weaknesses are often per model).
    focus = list(dict.fromkeys(w["metric"] for w in weakest))[:MAX_FOCUS_METRICS]
    heatmaps, boxes = [], []
    axes = heatmap_axes if heatmap_axes is not None else _heatmap_axes(ok)
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
    repeats = repeat_analysis(results, boot, metrics=primary, confidence=confidence)
    return {
        "confidence": confidence,
        "n_resamples": n_resamples,
        "seed": seed,
        "primary_metrics": primary,
        "directions": direction,
        "leaderboard": board,
        "pairwise": comparisons,
        "best": best_models(board, comparisons),
        "marginal": _records(marginal_frame),
        "weakest": weakest,
        "heatmaps": heatmaps,
        "distributions": boxes,
        "none_label": NONE_LABEL,
        "repeats": repeats,
    }


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    if frame.empty:
        return []
    cleaned = frame.astype(object).where(frame.notna(), None)
    return [dict(r) for r in cleaned.to_dict("records")]
