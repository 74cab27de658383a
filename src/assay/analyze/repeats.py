"""Repeated samples (``assay run --repeats k``): spread across samples and flaky cases.

A non-deterministic system answers the same case differently from one call to the next. For each
(model, metric) this module reports, over the cases that were sampled:

* ``within_sd`` — the typical spread of a case's value across its samples (square root of the
  mean within-case variance) beside ``between_sd``, the spread of the case means;
* ``flaky_share`` — the share of cases whose verdict (pass / fail) changes between samples;
* ``pass_all`` (pass^k, Yao et al. 2024, τ-bench) — the share of cases passing in every sample,
  and ``pass_any`` (pass@k) — in at least one;

each share with a cluster-bootstrap interval from the analysis' shared weights (a case's samples,
and its perturbations, are one cluster), and the flaky cases themselves with the share of their
samples that pass. Only measured samples count; a case needs two measured samples to be judged
flaky or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from assay.analyze.resampling import CLUSTER, ClusterBootstrap, percentile_interval
from assay.analyze.verdicts import verdict_floats

#: Most flaky cases listed (those whose samples split closest to half and half first).
MAX_FLAKY_CASES = 50


def _per_case(sampled: pd.DataFrame) -> pd.DataFrame:
    """One row per (model, metric, sampled case): sample count, passes, value spread."""
    codes = sampled["passed"].to_numpy()  # int8 codes (measured)
    judged = sampled.assign(_pass=verdict_floats(codes), _judged=(codes >= 0).astype(int))
    grouped = judged.groupby(["model", "metric", "sample_of"], sort=True)
    cases = grouped.agg(
        samples=("value", "size"),
        mean=("value", "mean"),
        var=("value", "var"),
        low=("value", "min"),
        high=("value", "max"),
        judged=("_judged", "sum"),
        passing=("_pass", "sum"),
        cluster=(CLUSTER, "first"),
    ).reset_index()
    cases["passing"] = cases["passing"].fillna(0).astype(int)
    return cases[cases["samples"] >= 2]


def _interval(
    boot: ClusterBootstrap, clusters: np.ndarray, values: np.ndarray, confidence: float
) -> tuple[float | None, float | None]:
    if not len(values):
        return None, None
    low, high = percentile_interval(boot.means(clusters, values), confidence)
    return (None, None) if np.isnan(low[0]) else (float(low[0]), float(high[0]))


def repeat_analysis(
    results: pd.DataFrame,
    bootstrap: ClusterBootstrap,
    *,
    metrics: Sequence[str] | None = None,
    confidence: float = 0.95,
) -> dict[str, Any] | None:
    """Spread and flakiness of the repeated cases of a run, or None when it has none.

    Args:
        results: the :func:`~assay.analyze.weakness.measured` results table.
        bootstrap: the analysis' shared cluster-bootstrap weights.
        metrics: the metrics to analyse (default: all).
        confidence: level of the intervals.

    Example:
        >>> from assay.analyze.weakness import measured
        >>> frame = measured(pd.DataFrame({
        ...     "case_id": [f"{q}#sample{j}" for q in "ab" for j in (1, 2, 3)],
        ...     "sample_of": [q for q in "ab" for _ in range(3)], "model": "m", "metric": "acc",
        ...     "status": "ok", "value": [1.0, 0.0, 1.0, 1.0, 1.0, 1.0],
        ...     "passed": [True, False, True, True, True, True]}))
        >>> out = repeat_analysis(frame, ClusterBootstrap(2, n_resamples=100))
        >>> row = out["metrics"][0]
        >>> out["samples"], row["n_cases"], row["flaky_share"], row["pass_all"], row["pass_any"]
        (3, 2, 0.5, 0.5, 1.0)
        >>> [(c["case_id"], c["passing"], c["judged"]) for c in out["flaky"]]
        [('a', 2, 3)]
    """
    if "sample_of" not in results:
        return None
    sampled = results[results["sample_of"].notna()]
    if metrics is not None:
        sampled = sampled[sampled["metric"].isin(list(metrics))]
    if sampled.empty:
        return None
    cases = _per_case(sampled)
    if cases.empty:
        return None
    rows: list[dict[str, Any]] = []
    for (model, metric), group in cases.groupby(["model", "metric"], sort=True):
        row: dict[str, Any] = {
            "model": str(model),
            "metric": str(metric),
            "n_cases": len(group),
            "samples_per_case": float(group["samples"].mean()),
            "mean": float(group["mean"].mean()),
            "within_sd": float(np.sqrt(group["var"].mean())),
            "between_sd": float(group["mean"].std(ddof=1)) if len(group) > 1 else None,
        }
        judged = group[group["judged"] >= 2]
        clusters = judged["cluster"].to_numpy(dtype=np.intp)
        shares = {
            "flaky_share": ((judged["passing"] > 0) & (judged["passing"] < judged["judged"])),
            "pass_all": judged["passing"] == judged["judged"],
            "pass_any": judged["passing"] > 0,
        }
        row["n_judged"] = len(judged)
        for name, hits in shares.items():
            values = hits.to_numpy(dtype=float)
            row[name] = float(values.mean()) if len(values) else None
            row[f"{name}_ci_low"], row[f"{name}_ci_high"] = _interval(
                bootstrap, clusters, values, confidence
            )
        row["n_flaky"] = int(shares["flaky_share"].sum())
        rows.append(row)
    flaky = cases[(cases["judged"] >= 2) & (cases["passing"] > 0)]
    flaky = flaky[flaky["passing"] < flaky["judged"]].assign(
        pass_share=lambda f: f["passing"] / f["judged"]
    )
    flaky = flaky.assign(_balance=(flaky["pass_share"] - 0.5).abs()).sort_values(
        ["_balance", "model", "metric", "sample_of"]
    )
    listed = [
        {
            "model": str(r.model),
            "metric": str(r.metric),
            "case_id": str(r.sample_of),
            "samples": int(r.samples),
            "judged": int(r.judged),
            "passing": int(r.passing),
            "pass_share": float(r.pass_share),
            "value_mean": float(r.mean),
            "value_min": float(r.low),
            "value_max": float(r.high),
        }
        for r in flaky.head(MAX_FLAKY_CASES).itertuples(index=False)
    ]
    return {
        "samples": int(cases["samples"].max()),
        "confidence": confidence,
        "metrics": rows,
        "flaky": listed,
        "n_flaky_listed": len(listed),
        "n_flaky": len(flaky),
    }
