"""Reports read large runs compactly (issue 23): the same analysis and the same shown cases."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from assay import evaluate
from assay.analyze.resampling import cluster_codes
from assay.analyze.summary import analyze_run
from assay.data.samples import repeat_cases
from assay.report.drilldown import SELECTION_COLUMNS, run_drilldown
from assay.rundir.results import read_results
from assay.rundir.run import EvaluationRun, load_run

from .report_runs import report_cases


def test_measured_compact_read_equals_the_filtered_table(report_run: EvaluationRun) -> None:
    assert report_run.path is not None
    full = read_results(report_run.path, lean=True)
    plain = full[(full["status"] == "ok") & full["value"].notna()].reset_index(drop=True)
    compact = read_results(report_run.path, lean=True, measured=True)
    assert isinstance(compact["metric"].dtype, pd.CategoricalDtype)
    pd.testing.assert_frame_equal(compact.astype(plain.dtypes.to_dict()), plain)


def test_analysis_of_a_loaded_run_equals_the_in_memory_one(report_run: EvaluationRun) -> None:
    assert report_run.path is not None
    loaded = load_run(report_run.path)  # reads measured rows compactly
    in_memory = load_run(report_run.path)
    in_memory._results = read_results(report_run.path)  # plain text columns
    a = analyze_run(loaded, n_resamples=100)
    b = analyze_run(in_memory, n_resamples=100)
    assert json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def test_capped_drilldown_shows_the_same_cases_from_compact_columns(
    report_run: EvaluationRun,
) -> None:
    assert report_run.path is not None
    loaded = load_run(report_run.path)
    compact = loaded.result_columns(list(SELECTION_COLUMNS))
    assert isinstance(compact["model"].dtype, pd.CategoricalDtype)
    plain = read_results(report_run.path)
    for cap in (3, 7, 10_000):
        a = run_drilldown(compact, report_run.path, max_cases=cap, full_rows=loaded.results_for)
        b = run_drilldown(plain, report_run.path, max_cases=cap)
        assert a["total"] == b["total"]
        keys = [(e["case_id"], e["model"]) for e in a["entries"]]
        assert keys == [(e["case_id"], e["model"]) for e in b["entries"]]
        assert len(keys) == min(cap, b["total"])


def test_analysis_of_repeated_samples_read_compactly_equals_the_in_memory_one(
    tmp_path: Path,
) -> None:
    # Samples (sample_of) of perturbed cases (parent_id): every id column is a category when
    # read compactly, and the clusters, pairs and repeats must come out as from plain text.
    cases = repeat_cases(report_cases(n=12, seed=3), 3)
    run = evaluate(cases, ["token_f1", "exact_match"], out=tmp_path / "run")
    assert run.path is not None
    loaded = load_run(run.path)
    compact = loaded.lean_results(measured=True)
    assert all(
        isinstance(compact[c].dtype, pd.CategoricalDtype)
        for c in ("case_id", "parent_id", "sample_of", "topic")
    )
    in_memory = load_run(run.path)
    in_memory._results = read_results(run.path)
    a = analyze_run(loaded, n_resamples=200)
    b = analyze_run(in_memory, n_resamples=200)
    assert a["repeats"] is not None and a["pairwise"]
    assert json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def test_cluster_codes_of_category_ids_equal_those_of_text_ids(report_run: EvaluationRun) -> None:
    assert report_run.path is not None
    compact = read_results(report_run.path, lean=True, measured=True)
    plain = compact.astype({c: object for c in ("case_id", "parent_id", "sample_of")})
    links = plain["parent_id"].notna()
    assert links.any() and (plain["parent_id"][links] != plain["case_id"][links]).all()
    np.testing.assert_array_equal(cluster_codes(compact), cluster_codes(plain))
