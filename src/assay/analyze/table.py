"""The analysis table: the measured rows of a run as :func:`~assay.analyze.weakness.measured`
leaves them, built from ``results.parquet`` a record batch at a time.

At 1,000,000 cases (27.5 M measured rows) the table the analysis read held ids, status and
flags it never used after :func:`~assay.analyze.weakness.measured` — ~36 bytes a row, and the
cluster keys computed from the ids a few 220 MB arrays on top (issue 48). Here each batch of
rows is filtered, its cluster codes assigned (:class:`~assay.analyze.resampling.ClusterCoder`)
and its verdicts coded as it is read, into arrays of the file's row count (pages past the
measured rows are never touched): 18 bytes a row are kept — ``value`` (8), ``cluster`` (4),
``metric``, ``passed`` and the four slice fields (1 each) — and no row's ids. Pairwise tests,
the one figure that pairs rows by case, read the case ids of the primary metrics' rows alone
(:func:`with_case_ids`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from assay.analyze.resampling import CLUSTER, ClusterCoder
from assay.analyze.verdicts import verdict_codes
from assay.analyze.weakness import ANALYSED_COLUMNS, SLICE_FIELDS, label_slices, measured
from assay.memory import release_memory
from assay.rundir.results import TextCodes, read_results, result_batches

if TYPE_CHECKING:
    from pathlib import Path

    from assay.rundir.run import EvaluationRun

_IDS = ("case_id", "sample_of", "parent_id")


def analysis_table(run: EvaluationRun) -> pd.DataFrame:
    """The measured rows of ``run`` for the analysis: equal, column for column, to
    ``measured(run.lean_results(measured=True, columns=ANALYSED_COLUMNS))`` but for the ids
    (``case_id``, ``parent_id``; ``sample_of`` only when some row has one), ``status`` and
    ``primary``, which a table read from a run directory leaves out.

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a",
        ...                          expected_answer="a")], ["exact_match"])
        >>> analysis_table(run)[["metric", "value", "passed", "cluster"]].values.tolist()
        [['exact_match', 1.0, 1, 0]]
    """
    path = run.results_file()
    if path is None:
        return measured(run.lean_results(measured=True, columns=ANALYSED_COLUMNS))
    return _streamed(path)


def _streamed(path: Path) -> pd.DataFrame:
    """:func:`analysis_table` of the results file ``path``, a record batch at a time."""
    file = pq.ParquetFile(path)
    names = [n for n in file.schema_arrow.names if n != "sample_of" or _has_values(file, n)]
    size = file.metadata.num_rows
    labels = {n: TextCodes(size) for n in ("metric", *SLICE_FIELDS, "sample_of") if n in names}
    value = np.empty(size, dtype=np.float64)
    passed = np.empty(size, dtype=np.int8) if "passed" in names else None
    cluster = np.empty(size, dtype=np.int32)
    coder = ClusterCoder()
    read = [n for n in (*labels, "value", "passed", *_IDS) if n in names]
    filled = 0
    for batch in result_batches(path, read, measured=True):
        rows = slice(filled, filled + batch.num_rows)
        value[rows] = batch.column("value").to_numpy(zero_copy_only=False)
        if passed is not None:
            passed[rows] = verdict_codes(batch.column("passed"))
        ids = {n: batch.column(n) for n in _IDS if n in names}
        cluster[rows] = coder.codes(ids.get("case_id"), ids.get("sample_of"),
                                    ids.get("parent_id"))
        for name, codes in labels.items():
            codes.add(batch.column(name))
        filled = rows.stop
        del batch, ids
    columns: dict[str, object] = {n: codes.categorical() for n, codes in labels.items()}
    columns["value"] = value[:filled]
    if passed is not None:
        columns["passed"] = passed[:filled]
    columns[CLUSTER] = cluster[:filled]
    frame = pd.DataFrame(columns, copy=False)
    release_memory()  # the decoded batches' pages
    return label_slices(frame)


def _has_values(file: pq.ParquetFile, column: str) -> bool:
    """Whether ``column`` holds a value in some row (by the row groups' statistics when
    written): a run without repeated samples has no ``sample_of``, and the repeat analysis
    nothing to read."""
    index = file.schema_arrow.get_field_index(column)
    for group in range(file.num_row_groups):
        meta = file.metadata.row_group(group)
        stats = meta.column(index).statistics
        if stats is None or not stats.has_null_count or stats.null_count < meta.num_rows:
            return True
    return False


def with_case_ids(
    run: EvaluationRun, table: pd.DataFrame, metrics: Sequence[str]
) -> pd.DataFrame:
    """The rows of ``metrics`` in the :func:`analysis_table` ``table`` with their
    ``case_id`` (what pairwise tests pair by): read from the run directory for those rows
    alone, in the same order (the same filter over the same file).

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a",
        ...                          expected_answer="a")], ["exact_match"])
        >>> with_case_ids(run, analysis_table(run), ["exact_match"])["case_id"].tolist()
        ['1']
    """
    if "case_id" in table:
        return table
    rows = table[table["metric"].isin(list(metrics))]
    path = run.results_file()
    assert path is not None  # a table without ids was streamed from a run directory
    ids = read_results(path.parent, columns=["case_id"], measured=True, metrics=metrics)
    return rows.assign(case_id=ids["case_id"].array)  # by position: a categorical, no index
