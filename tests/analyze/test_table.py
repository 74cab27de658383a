"""The streamed analysis table (issue 48): read a batch at a time, it equals the in-memory
table, and every figure of the analysis is the same."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay import TestCase, evaluate
from assay.analyze import table as table_module
from assay.analyze.resampling import CLUSTER, ClusterCoder, cluster_codes, cluster_keys
from assay.analyze.summary import analyze_run
from assay.analyze.table import analysis_table, analysis_tables, metric_groups, with_case_ids
from assay.analyze.weakness import SLICE_FIELDS, measured
from assay.data.samples import repeat_cases
from assay.rundir import results as results_module
from assay.rundir.layout import RESULTS_FILE
from assay.rundir.results import read_results
from assay.rundir.run import EvaluationRun, load_run


def _cases() -> list[TestCase]:
    """Two models, slices, perturbed children (parent_id) and repeated samples (sample_of)."""
    cases = []
    for i in range(15):
        for model, good in (("alpha", i % 3 != 0), ("beta", i % 4 == 0)):
            answer = f"{i} euros a month." if good else f"about {i + 1} euros"
            cases.append(TestCase(id=f"q{i}", model=model, actual_answer=answer,
                                  expected_answer=f"{i} euros a month.", topic=f"t{i % 3}",
                                  query_type="how" if i % 2 else "what"))
            if i % 5 == 0:
                cases.append(TestCase(id=f"q{i}~typo", parent_id=f"q{i}", model=model,
                                      actual_answer=answer.upper(), perturbation="case",
                                      expected_answer=f"{i} euros a month.", topic=f"t{i % 3}"))
    return repeat_cases(cases[:8], 3) + cases[8:]


@pytest.fixture()
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Read 7 rows at a time: many batches, so order across batches matters."""
    monkeypatch.setattr(results_module, "_READ_BATCH", 7)


@pytest.fixture()
def run_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(results_module, "ROW_GROUP_ROWS", 11)  # several row groups too
    run = evaluate(_cases(), ["token_f1", "exact_match"], out=tmp_path / "run")
    assert run.path is not None
    return run.path


def _in_memory(path: Path) -> EvaluationRun:
    run = load_run(path)
    run._results = read_results(path)  # plain text columns, analysed in memory
    return run


@pytest.mark.usefixtures("small_batches")
def test_streamed_table_equals_the_in_memory_measured_table(run_dir: Path) -> None:
    streamed = analysis_table(load_run(run_dir))
    expected = measured(read_results(run_dir, lean=True))
    assert pq.ParquetFile(run_dir / RESULTS_FILE).num_row_groups > 3
    assert len(streamed) == len(expected) > 0
    assert streamed["passed"].dtype == np.int8 and streamed[CLUSTER].dtype == np.int32
    for column in ("metric", "value", "passed", CLUSTER, "sample_of", *SLICE_FIELDS):
        values = [c.astype(object).where(c.notna(), None).tolist()
                  for c in (streamed[column], expected[column])]
        assert values[0] == values[1], column
    assert streamed[CLUSTER].max() < expected["case_id"].nunique()  # parents and samples shared


@pytest.mark.usefixtures("small_batches")
def test_case_ids_of_the_primary_rows_align_with_the_streamed_rows(run_dir: Path) -> None:
    run = load_run(run_dir)
    rows = with_case_ids(run, analysis_table(run), ["token_f1"])
    expected = measured(read_results(run_dir, lean=True))
    expected = expected[expected["metric"] == "token_f1"]
    assert rows["case_id"].astype(str).tolist() == expected["case_id"].astype(str).tolist()
    assert rows[CLUSTER].tolist() == expected[CLUSTER].tolist()


@pytest.mark.usefixtures("small_batches")
def test_streamed_analysis_equals_the_in_memory_analysis(run_dir: Path) -> None:
    a = analyze_run(load_run(run_dir), n_resamples=200)
    b = analyze_run(_in_memory(run_dir), n_resamples=200)
    assert a["pairwise"] and a["repeats"] is not None and a["marginal"]
    assert json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


@pytest.mark.usefixtures("small_batches")
def test_a_run_analysed_a_group_of_metrics_at_a_time_equals_one_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(results_module, "ROW_GROUP_ROWS", 11)
    metrics = ["token_f1", "exact_match", "text_statistics"]
    path = evaluate(_cases(), metrics, out=tmp_path / "run").path
    assert path is not None
    whole = analyze_run(load_run(path), n_resamples=200)
    monkeypatch.setattr(table_module, "MAX_TABLE_ROWS", 100)  # ~45 measured rows a metric
    groups = metric_groups(load_run(path).leaderboard, whole["primary_metrics"])
    assert len(groups) >= 3 and groups[-1] == whole["primary_metrics"]
    tables = list(analysis_tables(load_run(path), groups))
    assert len({t.attrs["assay_n_clusters"] for t in tables}) == 1
    assert [sorted(set(t["metric"])) for t in tables] == [sorted(g or []) for g in groups]
    for run in (load_run(path), _in_memory(path)):
        grouped = analyze_run(run, n_resamples=200)
        assert grouped["marginal"] and grouped["pairwise"] and grouped["heatmaps"]
        # equal up to floating-point rounding: an interval's endpoints computed over arrays of
        # another layout can differ in the ninth digit with the CPU's vector width
        assert _close(_as_json(grouped), _as_json(whole))


def test_metric_groups_keep_the_primary_metrics_together_last() -> None:
    board = [{"model": m, "metric": x, "n_ok": 10} for m in "ab" for x in ("p", "q", "r", "s")]
    assert metric_groups(board, ["r"], max_rows=80) == [None]
    assert metric_groups(board, ["r", "p"], max_rows=40) == [["q", "s"], ["r", "p"]]
    assert metric_groups(board, ["r"], max_rows=30) == [["p"], ["q"], ["s"], ["r"]]
    assert metric_groups(board, [], max_rows=40) == [["p", "q"], ["r", "s"]]
    unmeasured = [*board, {"model": "a", "metric": "z", "n_ok": 0}]
    assert metric_groups(unmeasured, ["z"], max_rows=40) == [["p", "q"], ["r", "s"]]


def test_cluster_codes_by_batches_equal_one_factorisation() -> None:
    rng = np.random.default_rng(0)
    n = 500
    case_id = [f"c{i}" for i in rng.integers(0, 60, n)]
    parent = [f"c{i}" if i < 20 else (None if i < 40 else "") for i in rng.integers(0, 60, n)]
    sample = [f"s{i}" if i < 10 else None for i in rng.integers(0, 60, n)]
    frame = pd.DataFrame({"case_id": case_id, "parent_id": parent, "sample_of": sample})
    expected, _ = pd.factorize(cluster_keys(frame))
    coder = ClusterCoder()
    batches = [coder.codes(pa.array(case_id[i:i + 37]), pa.array(sample[i:i + 37]),
                           pa.array(parent[i:i + 37])) for i in range(0, n, 37)]
    np.testing.assert_array_equal(np.concatenate(batches), expected)
    np.testing.assert_array_equal(cluster_codes(frame), expected)
    as_categories = frame.astype("category")
    np.testing.assert_array_equal(cluster_codes(as_categories), expected)



def _as_json(analysis: object) -> object:
    return json.loads(json.dumps(analysis, sort_keys=True, default=str))


def _close(left: object, right: object) -> bool:
    """Equal structures, floats within a relative 1e-6 of each other."""
    if isinstance(left, float) and isinstance(right, float):
        return math.isclose(left, right, rel_tol=1e-6, abs_tol=1e-9)
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_close(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_close, left, right))
    return left == right
