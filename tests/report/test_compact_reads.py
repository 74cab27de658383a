"""Reports read large runs compactly (issue 23): the same analysis and the same shown cases."""

from __future__ import annotations

import json

import pandas as pd

from assay.analyze.summary import analyze_run
from assay.report.drilldown import SELECTION_COLUMNS, run_drilldown
from assay.rundir.results import read_results
from assay.rundir.run import EvaluationRun, load_run


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
