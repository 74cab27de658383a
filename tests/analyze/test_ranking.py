"""Leaderboard intervals, pairwise significance and best models."""

from __future__ import annotations

import pandas as pd
import pytest

from assay.analyze.ranking import best_models, leaderboard_with_ci, pairwise

from .synthetic_results import results_frame


def _board(frame: pd.DataFrame) -> list[dict]:
    rows = []
    for model, group in frame.groupby("model"):
        rows.append(
            {
                "model": model,
                "metric": "acc",
                "evaluator": "e",
                "primary": True,
                "aggregation": "mean",
                "higher_is_better": True,
                "value": float(group["value"].mean()),
                "passed": None,
            }
        )
    return rows


def test_intervals_contain_the_value_and_pairwise_finds_the_winner() -> None:
    frame = results_frame({("a", "t"): 0.9, ("b", "t"): 0.5, ("c", "t"): 0.52}, n=150)
    board = leaderboard_with_ci(_board(frame), frame, n_resamples=300)
    for row in board:
        assert row["ci_low"] <= row["value"] <= row["ci_high"]
        assert row["pass_ci_low"] <= row["value"] <= row["pass_ci_high"]
    comparisons = pairwise(frame, {"acc": True}, n_resamples=300)
    by_pair = {(c["model_a"], c["model_b"]): c for c in comparisons}
    assert by_pair[("a", "b")]["winner"] == "a" and by_pair[("a", "b")]["test"] == "mcnemar"
    assert by_pair[("b", "c")]["winner"] is None
    assert by_pair[("a", "b")]["n_paired"] == 150
    # Holm never lowers a p-value.
    assert all(c["p_adjusted"] >= c["p_used"] - 1e-12 for c in comparisons)
    best = best_models(board, comparisons)
    assert best["per_metric"][0]["model"] == "a" and best["per_metric"][0]["clear"] is True
    assert best["overall"]["model"] == "a"


def test_pairs_use_only_cases_both_models_measured() -> None:
    frame = results_frame({("a", "t"): 0.8, ("b", "t"): 0.8}, n=20)
    frame.loc[(frame["model"] == "b") & (frame.index % 2 == 0), "status"] = "skipped"
    out = pairwise(frame, {"acc": True}, n_resamples=100)
    assert out[0]["n_paired"] == 10


def test_without_verdicts_the_paired_bootstrap_is_used_and_lower_is_better_respected() -> None:
    frame = results_frame({("a", "t"): 0.9, ("b", "t"): 0.1}, n=60, metric="err")
    frame["passed"] = None
    out = pairwise(frame, {"err": False}, n_resamples=200)[0]
    assert out["test"] == "paired_bootstrap" and out["mcnemar"] is None
    assert out["winner"] == "b"
    board = [
        {"model": m, "metric": "err", "primary": True, "higher_is_better": False, "value": v}
        for m, v in (("a", 0.9), ("b", 0.1))
    ]
    assert best_models(board)["per_metric"][0]["model"] == "b"


def test_corpus_metrics_get_no_interval() -> None:
    frame = results_frame({("a", "t"): 0.5}, n=10)
    row = {"model": "a", "metric": "acc", "aggregation": "corpus", "value": 0.4}
    out = leaderboard_with_ci([row], frame)[0]
    assert out["ci_low"] is None and out["value"] == pytest.approx(0.4)
