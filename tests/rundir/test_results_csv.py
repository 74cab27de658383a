"""results.csv: a columnar copy of results.parquet for runs up to CSV_MAX_ROWS result rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

import assay
from assay import TestCase
from assay.rundir.results import COLUMNS, ResultWriter, read_results


def _rows(start: int, n: int) -> list[dict[str, object]]:
    rows = []
    for i in range(start, start + n):
        row: dict[str, object] = dict.fromkeys(COLUMNS)
        row.update(case_id=f"c{i}", model="m", evaluator="e", metric="x", primary=True,
                   status="ok", value=i / 10, passed=i % 2 == 0, threshold=0.5)  # fmt: skip
        rows.append(row)
    return rows


def test_csv_equals_parquet_below_the_limit(tmp_path: Path) -> None:
    writer = ResultWriter(tmp_path / "r.parquet", tmp_path / "r.csv", csv_max_rows=10)
    writer.write(_rows(0, 3))  # type: ignore[arg-type]
    writer.write(_rows(3, 4))  # type: ignore[arg-type]
    writer.close()
    assert writer.paths == [tmp_path / "r.parquet", tmp_path / "r.csv"]
    csv = pd.read_csv(tmp_path / "r.csv")
    parquet = pd.read_parquet(tmp_path / "r.parquet")
    assert list(csv.columns) == COLUMNS and len(csv) == len(parquet) == 7
    assert csv["value"].tolist() == parquet["value"].tolist()
    assert csv["passed"].tolist() == parquet["passed"].tolist()


def test_csv_is_dropped_above_the_limit_and_parquet_keeps_every_row(tmp_path: Path) -> None:
    writer = ResultWriter(tmp_path / "r.parquet", tmp_path / "r.csv", csv_max_rows=5)
    writer.write(_rows(0, 3))  # type: ignore[arg-type]
    assert (tmp_path / "r.csv").exists()
    writer.write(_rows(3, 3))  # type: ignore[arg-type]
    writer.close()
    assert not (tmp_path / "r.csv").exists()
    assert writer.paths == [tmp_path / "r.parquet"]
    assert len(pd.read_parquet(tmp_path / "r.parquet")) == 6


def test_a_small_run_directory_has_both_files(tmp_path: Path) -> None:
    cases = [TestCase(id=f"q{i}", actual_answer="a", expected_answer="a") for i in range(3)]
    run = assay.evaluate(cases, ["exact_match"], out=tmp_path / "run")
    assert run.path is not None
    assert len(pd.read_csv(run.path / "results.csv")) == len(read_results(run.path)) == 3


def test_parquet_is_written_in_whole_row_groups(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Scoring batches of any size are gathered into row groups of ROW_GROUP_ROWS rows (the
    last one shorter), every row kept in order."""
    import pyarrow.parquet as pq

    import assay.rundir.results as results

    monkeypatch.setattr(results, "ROW_GROUP_ROWS", 10)
    writer = ResultWriter(tmp_path / "r.parquet", tmp_path / "r.csv", csv_max_rows=None)
    start = 0
    for size in (3, 4, 9, 1, 12, 2):
        writer.write(_rows(start, size))  # type: ignore[arg-type]
        start += size
    writer.close()
    file = pq.ParquetFile(tmp_path / "r.parquet")
    groups = [file.metadata.row_group(g).num_rows for g in range(file.num_row_groups)]
    assert groups == [10, 10, 10, 1]
    assert pd.read_parquet(tmp_path / "r.parquet")["case_id"].tolist() == [
        f"c{i}" for i in range(31)
    ]


def test_rows_read_by_key_are_those_keys_rows_only(tmp_path: Path) -> None:
    """read_results_for keeps the rows of the chosen (case, model) keys, not the chosen cases'
    other models, and is exact for ids holding the separator it joins keys with."""
    from assay.rundir.results import read_results_for, rows_of

    ids = ["a", "b", "c\x1fm", "c"]
    cases = [TestCase(id=i, model=m, actual_answer="x", expected_answer="x" if m == "m" else "y")
             for i in ids for m in ("m", "n", "m\x1fn")]  # fmt: skip
    run = assay.evaluate(cases, ["exact_match", "token_f1"], out=tmp_path / "run")
    assert run.path is not None
    keys = {("a", "m"), ("b", "n"), ("c", "m\x1fn")}  # ("c\x1fm", "n") joins the same
    read = read_results_for(run.path, keys)
    assert set(zip(read["case_id"], read["model"], strict=True)) == keys
    assert len(read) == 2 * len(keys)  # two metrics per case
    everything = read_results(run.path)
    expected = rows_of(everything, keys)
    pd.testing.assert_frame_equal(read.reset_index(drop=True), expected.reset_index(drop=True),
                                  check_categorical=False)
