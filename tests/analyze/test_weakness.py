"""Marginal and bivariate weakness analysis."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from assay.analyze.resampling import ClusterBootstrap
from assay.analyze.weakness import (
    ALL_MODELS,
    bivariate,
    distribution,
    marginal,
    measured,
    weakest_slices,
)

from .synthetic_results import results_frame


def test_the_planted_weakness_is_found_significant_and_ranked_first(
    weak_loans: pd.DataFrame,
) -> None:
    frame = marginal(weak_loans, {"acc": True}, n_resamples=400)
    weakest = weakest_slices(frame, top=5)
    first = weakest[0]
    assert (first["scope"], first["field"], first["slice"]) == ("b", "topic", "loans")
    assert first["significant"] and first["gap"] < -0.3
    assert first["ci_low"] <= first["mean"] <= first["ci_high"]
    assert "topic=loans" in first["message"]
    # Model a has no planted weakness: none of its slices is significantly worse.
    a_rows = frame[(frame["scope"] == "a") & (frame["gap"] < 0)]
    assert not a_rows["significant"].any()


def test_a_model_scope_equals_the_analysis_of_that_models_rows_alone(
    weak_loans: pd.DataFrame,
) -> None:
    # Scopes are read at the model's row positions of the whole table (not copied): the same
    # rows, in the same order, under the same resampling weights, give the same figures.
    ok = measured(weak_loans.assign(topic=pd.Categorical(weak_loans["topic"])))
    boot = ClusterBootstrap.for_results(ok, n_resamples=200, seed=3)
    both = marginal(ok, {"acc": True}, bootstrap=boot)
    for model in ("a", "b"):
        alone = marginal(ok[ok["model"] == model], {"acc": True}, bootstrap=boot)
        scoped = both[both["scope"] == model].reset_index(drop=True)
        assert len(scoped) >= 3  # its three topics, and the other fields' slices
        pd.testing.assert_frame_equal(scoped, alone)


def test_marginal_means_counts_and_scopes(weak_loans: pd.DataFrame) -> None:
    frame = marginal(weak_loans, {"acc": True}, n_resamples=100)
    assert set(frame["scope"]) == {ALL_MODELS, "a", "b"}
    assert set(frame.loc[frame["scope"] == ALL_MODELS, "field"]) == {"topic", "query_type", "model"}
    assert "model" not in set(frame.loc[frame["scope"] == "a", "field"])
    row = frame[(frame["scope"] == "b") & (frame["slice"] == "loans")].iloc[0]
    sub = weak_loans[(weak_loans["model"] == "b") & (weak_loans["topic"] == "loans")]
    assert row["n"] == len(sub) == 40
    assert row["mean"] == pytest.approx(sub["value"].mean())
    assert row["pass_rate"] == pytest.approx(sub["passed"].mean())
    assert row["n_fail"] == int((~sub["passed"]).sum())


def test_lower_is_better_metrics_are_oriented() -> None:
    frame = results_frame({("m", "x"): 0.9, ("m", "y"): 0.1}, metric="err")
    out = marginal(frame, {"err": False}, n_resamples=100)
    worst = weakest_slices(out)[0]
    assert worst["slice"] == "x"  # high error rate is the weakness
    assert worst["gap"] < 0


def test_skipped_and_errored_outcomes_are_not_counted() -> None:
    frame = results_frame({("m", "x"): 1.0, ("m", "y"): 1.0}, n=10)
    extra = frame.iloc[:5].copy()
    extra["status"] = "skipped"
    extra["value"] = None
    extra["passed"] = None
    out = marginal(pd.concat([frame, extra]), {"acc": True}, n_resamples=50)
    assert out.loc[out["slice"] == "x", "n"].iloc[0] == 10
    assert weakest_slices(out) == []


def test_bivariate_grid_matches_a_pivot_table(weak_loans: pd.DataFrame) -> None:
    grid = bivariate(weak_loans, "acc", rows="topic", columns="query_type", model="b")
    pivot = weak_loans[weak_loans["model"] == "b"].pivot_table(
        index="topic", columns="query_type", values="value", aggfunc="mean"
    )
    for i, topic in enumerate(grid["row_labels"]):
        for j, qtype in enumerate(grid["column_labels"]):
            assert grid["mean"][i][j] == pytest.approx(pivot.loc[topic, qtype])
            assert grid["n"][i][j] == 20
    with pytest.raises(Exception, match="'columns'"):
        bivariate(weak_loans, "acc", rows="topic", columns="topic")


def test_distribution_matches_numpy_quantiles() -> None:
    values = np.random.default_rng(0).random(101)
    frame = pd.DataFrame(
        {
            "case_id": [str(i) for i in range(101)],
            "model": "m",
            "metric": "s",
            "status": "ok",
            "value": values,
            "topic": None,
            "query_type": None,
            "perturbation": None,
        }
    )
    box = distribution(frame, "s")[0]
    q1, med, q3 = np.quantile(values, [0.25, 0.5, 0.75])
    assert (box["q1"], box["median"], box["q3"]) == pytest.approx((q1, med, q3))
    assert box["whisker_low"] >= q1 - 1.5 * (q3 - q1)
    assert box["n"] == 101 and box["outliers"] == []


def test_weakest_slices_are_json_safe_without_verdicts() -> None:
    import json

    frame = results_frame({("m", "x"): 0.9, ("m", "y"): 0.1})
    frame["passed"] = None
    weakest = weakest_slices(marginal(frame, {"acc": True}, n_resamples=50))
    assert weakest[0]["pass_rate"] is None
    json.dumps(weakest, allow_nan=False)


def test_ranking_is_scale_free_and_tiny_slices_are_never_significant() -> None:
    # Metric "pct" lives on a 0-1000 scale, metric "acc" on 0-1: the bigger raw gap must not win.
    acc = results_frame({("m", "x"): 0.95, ("m", "y"): 0.05}, n=40)
    pct = results_frame({("m", "x"): 0.6, ("m", "y"): 0.4}, n=40, metric="pct")
    pct["value"] = pct["value"] * 1000
    one = results_frame({("m", "z"): 0.0}, n=1)  # a single case in topic z
    frame = pd.concat([acc, pct, one])
    out = marginal(frame, {"acc": True, "pct": True}, n_resamples=200)
    ranked = weakest_slices(out)
    assert (ranked[0]["metric"], ranked[0]["slice"]) == ("acc", "y")
    single = out[(out["slice"] == "z")]
    assert not single["significant"].any()
    assert [r["metric"] for r in weakest_slices(out, metrics=["pct"])] == ["pct"] * len(
        weakest_slices(out, metrics=["pct"])
    )
