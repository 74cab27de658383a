"""The drill-down's shown cases, chosen batch by batch from a file's row groups, are those an
in-memory ranking of every row chooses."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.report import case_choice
from assay.report.case_choice import SELECTION_COLUMNS, choose_cases
from assay.report.drilldown import run_drilldown
from assay.rundir import results as results_module
from assay.rundir.results import read_results
from assay.rundir.run import EvaluationRun, load_run


def _rows(n_cases: int, seed: int) -> pd.DataFrame:
    """Result rows of ``n_cases`` cases × 3 models × 4 metrics in shuffled order (a case's rows
    spread over many row groups), with failures, errors, skips and ids that sort unlike codes."""
    rng = np.random.default_rng(seed)
    ids = [f"q{int(i):05d}~{int(c)}" for i, c in zip(rng.permutation(n_cases),
                                                  rng.integers(0, 9, n_cases), strict=True)]
    frame = pd.DataFrame(
        [(case, model) for case in ids for model in ("sys-b", "sys-a", "") for _ in range(4)],
        columns=["case_id", "model"],
    )
    status = rng.choice(np.array(["ok", "ok", "ok", "error", "skipped"]), len(frame))
    passed = rng.random(len(frame)) < 0.7
    frame["status"] = status
    frame["passed"] = pd.Series(passed, dtype=object).where(status == "ok", None)
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def _reference(frame: pd.DataFrame, k: int) -> tuple[int, list[tuple[str, str]]]:
    """Every row in memory: bad rows per entry, most first, ties by model then case id."""
    bad = (frame["passed"] == False) | (frame["status"] == "error")  # noqa: E712
    counts = frame.assign(bad=bad).groupby(["case_id", "model"], as_index=False)["bad"].sum()
    ranked = counts.sort_values(["bad", "model", "case_id"], ascending=[False, True, True])
    return len(counts), list(zip(ranked["case_id"], ranked["model"], strict=True))[:k]


def test_the_streamed_choice_over_row_groups_equals_the_in_memory_ranking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frame = _rows(700, seed=4)
    path = tmp_path / "results.parquet"
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path, row_group_size=1000)
    file = pq.ParquetFile(path)
    assert file.num_row_groups == 9
    monkeypatch.setattr(case_choice, "_MERGE_SLACK", 50)  # merge the tallies many times over
    for k in (1, 10, 999, 2099, 2100, 5000):
        batches = file.iter_batches(batch_size=333, columns=list(SELECTION_COLUMNS))
        choice = choose_cases(batches, k)
        total, expected = _reference(frame, k)
        assert choice.total == total == 2100
        assert choice.keys == set(expected)
        assert len(choice.keys) == min(k, total)


def test_dictionary_and_in_memory_batches_choose_alike() -> None:
    frame = _rows(50, seed=9)
    compact = frame.astype({"case_id": "category", "model": "category", "status": "category"})
    table = pa.Table.from_pandas(compact, preserve_index=False)
    assert pa.types.is_dictionary(table.schema.field("case_id").type)
    for k in (7, 80):
        a = choose_cases(table.to_batches(max_chunksize=17), k)
        b = choose_cases([pa.Table.from_pandas(frame, preserve_index=False)], k)
        assert (a.total, a.keys) == (b.total, b.keys) == (_reference(frame, k)[0],
                                                           set(_reference(frame, k)[1]))


def test_the_report_drilldown_of_a_run_read_batch_by_batch_equals_the_in_memory_one(
    report_run: EvaluationRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert report_run.path is not None
    monkeypatch.setattr(results_module, "_READ_BATCH", 37)  # many batches of the one row group
    loaded = load_run(report_run.path)
    plain = read_results(report_run.path)
    for cap in (3, 7, 10_000):
        streamed = run_drilldown(loaded.result_batches(list(SELECTION_COLUMNS)), report_run.path,
                                 max_cases=cap, full_rows=loaded.results_for)
        in_memory = run_drilldown(plain, report_run.path, max_cases=cap)
        assert streamed["total"] == in_memory["total"] == 60
        assert streamed["shown"] == min(cap, 60)
        assert json.dumps(streamed, sort_keys=True, default=str) == json.dumps(
            in_memory, sort_keys=True, default=str
        )
