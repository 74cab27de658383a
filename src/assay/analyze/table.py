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

At 1,000,000 cases even those 18 bytes a row were 495 MB, most of the analysis' peak: a run of
more than :data:`MAX_TABLE_ROWS` measured rows is analysed a group of metrics at a time
(:func:`metric_groups`, :func:`analysis_tables`), every group's cluster codes those of the
whole run so that one bootstrap draw serves them all.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from assay.analyze.resampling import CLUSTER, N_CLUSTERS, ClusterCoder
from assay.analyze.verdicts import verdict_codes
from assay.analyze.weakness import ANALYSED_COLUMNS, SLICE_FIELDS, label_slices, measured
from assay.memory import release_memory
from assay.rundir.results import TextCodes, read_results, result_batches

if TYPE_CHECKING:
    from pathlib import Path

    from assay.rundir.records import LeaderboardRow
    from assay.rundir.run import EvaluationRun

_IDS = ("case_id", "sample_of", "parent_id")

#: The most measured rows analysed in one table (18 bytes a row: ~108 MB); a larger run is
#: analysed a group of metrics at a time (:func:`metric_groups`).
MAX_TABLE_ROWS = 6_000_000


def metric_groups(
    leaderboard: Sequence[LeaderboardRow], primary: Sequence[str], max_rows: int | None = None
) -> list[list[str] | None]:
    """The metrics of each table of the analysis: ``[None]`` (every metric in one table) when
    the run's measured rows fit in ``max_rows`` (default :data:`MAX_TABLE_ROWS`), else the
    other metrics packed in leaderboard order into groups of at most ``max_rows`` rows (a
    metric larger than that alone), then the ``primary`` metrics together, last: the figures
    that compare models on them (pairwise tests, heatmaps, repeats) read one table.

    Example:
        >>> board = [{"metric": m, "n_ok": n} for m, n in [("a", 4), ("b", 4), ("c", 3)]]
        >>> metric_groups(board, ["c"], max_rows=20)
        [None]
        >>> metric_groups(board, ["c"], max_rows=8)
        [['a', 'b'], ['c']]
        >>> metric_groups(board, ["c"], max_rows=5)
        [['a'], ['b'], ['c']]
    """
    limit = MAX_TABLE_ROWS if max_rows is None else max_rows
    rows: dict[str, int] = {}
    for row in leaderboard:
        rows[row["metric"]] = rows.get(row["metric"], 0) + int(row["n_ok"])
    if sum(rows.values()) <= limit:
        return [None]
    groups: list[list[str] | None] = []
    current: list[str] = []
    filled = 0
    for metric, n in rows.items():
        if metric in primary or not n:
            continue
        if current and filled + n > limit:
            groups.append(current)
            current, filled = [], 0
        current.append(metric)
        filled += n
    if current:
        groups.append(current)
    measured_primary = [m for m in dict.fromkeys(primary) if rows.get(m)]
    return [*groups, measured_primary] if measured_primary else groups


def analysis_table(run: EvaluationRun) -> pd.DataFrame:
    """The measured rows of ``run`` for the analysis: equal, column for column, to
    ``measured(run.lean_results(measured=True, columns=ANALYSED_COLUMNS))`` but for the ids
    (``case_id``, ``parent_id``; ``sample_of`` only when some row has one), ``status`` and
    ``primary``, which a table read from a run directory leaves out. Its ``attrs`` hold the
    number of clusters (:data:`~assay.analyze.resampling.N_CLUSTERS`).

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a",
        ...                          expected_answer="a")], ["exact_match"])
        >>> analysis_table(run)[["metric", "value", "passed", "cluster"]].values.tolist()
        [['exact_match', 1.0, 1, 0]]
    """
    return next(analysis_tables(run, [None]))


def analysis_tables(
    run: EvaluationRun, groups: Sequence[Sequence[str] | None]
) -> Iterator[pd.DataFrame]:
    """The :func:`analysis_table` of each group of metrics (None: every metric) in turn, the
    rows of the group's metrics alone, clusters coded over the whole run's measured rows (the
    codes, and their count in ``attrs``, are the same in every table).

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a",
        ...                          expected_answer="a")], ["exact_match", "token_f1"])
        >>> [t["metric"].tolist() for t in analysis_tables(run, [["token_f1"], ["exact_match"]])]
        [['token_f1'], ['exact_match']]
    """
    path = run.results_file()
    if path is None:
        whole = measured(run.lean_results(measured=True, columns=ANALYSED_COLUMNS))
        codes = whole[CLUSTER].to_numpy()
        whole.attrs[N_CLUSTERS] = int(codes.max()) + 1 if codes.size else 0
        for metrics in groups:
            yield whole if metrics is None else whole[whole["metric"].isin(list(metrics))]
        return
    coder = ClusterCoder()
    for number, metrics in enumerate(groups):
        # The first pass codes every measured row (codes in order of first appearance over
        # the whole run); later passes read their metrics' rows alone.
        yield _streamed(path, coder, metrics, every_row=number == 0)


def _streamed(
    path: Path, coder: ClusterCoder, metrics: Sequence[str] | None, *, every_row: bool
) -> pd.DataFrame:
    """:func:`analysis_table` of the ``metrics`` (None: all) of the results file ``path``, a
    record batch at a time, clusters coded by ``coder`` (of every measured row when
    ``every_row``)."""
    file = pq.ParquetFile(path)
    names = [n for n in file.schema_arrow.names if n != "sample_of" or _has_values(file, n)]
    size = file.metadata.num_rows
    labels = {n: TextCodes(size) for n in ("metric", *SLICE_FIELDS, "sample_of") if n in names}
    value = np.empty(size, dtype=np.float64)
    passed = np.empty(size, dtype=np.int8) if "passed" in names else None
    cluster = np.empty(size, dtype=np.int32)
    read = [n for n in (*labels, "value", "passed", *_IDS) if n in names]
    wanted = None if metrics is None else pa.array(sorted(metrics), pa.string())
    filled = 0
    for batch in result_batches(path, read, measured=True, metrics=None if every_row else metrics):
        codes = coder.codes(*(batch.column(n) if n in names else None for n in _IDS))
        if every_row and wanted is not None:  # coded, then left out
            keep = pc.is_in(batch.column("metric").cast(pa.string()), wanted)
            batch, codes = batch.filter(keep), codes[keep.to_numpy(zero_copy_only=False)]
        rows = slice(filled, filled + batch.num_rows)
        cluster[rows] = codes
        value[rows] = batch.column("value").to_numpy(zero_copy_only=False)
        if passed is not None:
            passed[rows] = verdict_codes(batch.column("passed"))
        for name, text_codes in labels.items():
            text_codes.add(batch.column(name))
        filled = rows.stop
        del batch, codes
    columns: dict[str, object] = {n: codes.categorical() for n, codes in labels.items()}
    columns["value"] = value[:filled]
    if passed is not None:
        columns["passed"] = passed[:filled]
    columns[CLUSTER] = cluster[:filled]
    frame = pd.DataFrame(columns, copy=False)
    frame.attrs[N_CLUSTERS] = coder.n_clusters
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


def with_case_ids(run: EvaluationRun, table: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
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
