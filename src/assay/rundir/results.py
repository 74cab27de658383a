"""The long results table (one row per case × metric): its schema, its writer and its readers.

The one place that knows how results are stored: change the format here and every reader and
writer follows (design note 0021).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from assay.data.suite_parquet import rows_with
from assay.fileio import atomic_path
from assay.memory import release_memory
from assay.rundir.layout import (
    CALIBRATED_CSV,
    CALIBRATED_FILE,
    RESULTS_CSV,
    RESULTS_FILE,
    TEXT_COLUMNS,
)
from assay.rundir.records import ResultRow

logger = logging.getLogger(__name__)

#: ``results.csv`` (a convenience copy of ``results.parquet``) is written only for runs of at
#: most this many result rows: at 100,000 cases x 18 metrics it was 422 MB, 70 % of the run
#: directory, for data the Parquet file already holds (read it with pandas, DuckDB, Arrow, ...).
CSV_MAX_ROWS = 250_000
#: Text columns with few distinct values (names, statuses, slices), read compactly.
_FEW_VALUES = ("model", "evaluator", "metric", "status", "topic", "query_type", "perturbation")
#: Result rows decoded at a time by the filtered readers.
_READ_BATCH = 65_536
#: Result rows per Parquet row group: the writer gathers the scoring batches' rows up to this
#: many (one row group per evaluator batch made 80 groups of 512-6,144 rows at 10,000 cases;
#: the analysis and report reads took ~40 % longer and the file was 24 % larger, issue 23).
ROW_GROUP_ROWS = 65_536

RESULT_SCHEMA = pa.schema(
    [
        ("case_id", pa.string()),
        ("model", pa.string()),
        ("evaluator", pa.string()),
        ("metric", pa.string()),
        ("primary", pa.bool_()),
        ("status", pa.string()),
        ("value", pa.float64()),
        ("passed", pa.bool_()),
        ("threshold", pa.float64()),
        ("reason", pa.string()),
        ("explanation", pa.string()),
        ("details", pa.string()),
        ("topic", pa.string()),
        ("query_type", pa.string()),
        ("perturbation", pa.string()),
        ("parent_id", pa.string()),
        ("sample_of", pa.string()),
        ("sample", pa.int64()),
    ]
)
COLUMNS = RESULT_SCHEMA.names
#: Per case × calibrator: calibrated probability and prediction set (``assay evaluate
#: --calibrator``).
CALIBRATED_SCHEMA = pa.schema(
    [
        ("case_id", pa.string()),
        ("model", pa.string()),
        ("calibrator", pa.string()),
        ("metric", pa.string()),
        ("status", pa.string()),
        ("probability", pa.float64()),
        ("predicted", pa.string()),
        ("probabilities", pa.string()),
        ("prediction_set", pa.string()),
        ("needs_review", pa.bool_()),
        ("reason", pa.string()),
    ]
)


@dataclass
class ResultWriter:
    """Streams result rows to Parquet and CSV so memory does not grow with the suite.

    Example:
        >>> import tempfile
        >>> directory = Path(tempfile.mkdtemp())
        >>> writer = ResultWriter.in_directory(directory)
        >>> writer.close()
        >>> len(read_results(directory))
        0
    """

    parquet_path: Path
    csv_path: Path
    csv_max_rows: int | None = None
    _parquet: pq.ParquetWriter | None = None
    _csv: pa_csv.CSVWriter | None = None
    n_rows: int = 0
    _closed: bool = field(default=False)
    #: Batches not written to Parquet yet (less than :data:`ROW_GROUP_ROWS` rows).
    _pending: list[pa.Table] = field(default_factory=list)
    _n_pending: int = 0

    @classmethod
    def in_directory(cls, directory: Path) -> ResultWriter:
        """A writer of the results files of the run directory ``directory``."""
        return cls(directory / RESULTS_FILE, directory / RESULTS_CSV, CSV_MAX_ROWS)

    @property
    def paths(self) -> list[Path]:
        """The files written (``results.csv`` only while it is kept, see :data:`CSV_MAX_ROWS`)."""
        return [self.parquet_path] + ([self.csv_path] if self.csv_max_rows is not None else [])

    def write(self, rows: list[ResultRow]) -> None:
        """Append rows to both files (columnar batches; Parquet in whole row groups)."""
        if not rows:
            return
        table = pa.Table.from_pylist(rows, schema=RESULT_SCHEMA)
        self._pending.append(table)
        self._n_pending += len(rows)
        if self._n_pending >= ROW_GROUP_ROWS:
            self._flush(whole_groups=True)
        self.n_rows += len(rows)
        if self.csv_max_rows is not None and self.n_rows > self.csv_max_rows:
            self._drop_csv()
        elif self.csv_max_rows is not None:
            if self._csv is None:
                self._csv = pa_csv.CSVWriter(str(self.csv_path), RESULT_SCHEMA)
            self._csv.write_table(table)

    def _flush(self, *, whole_groups: bool = False) -> None:
        """Write the pending rows to Parquet in row groups of :data:`ROW_GROUP_ROWS` rows; with
        ``whole_groups``, the rows short of a whole group stay pending."""
        table = pa.concat_tables(self._pending) if self._pending else None
        if table is None or not table.num_rows:
            return
        n = table.num_rows - table.num_rows % ROW_GROUP_ROWS if whole_groups else table.num_rows
        if self._parquet is None:
            self._parquet = pq.ParquetWriter(self.parquet_path, RESULT_SCHEMA)
        self._parquet.write_table(table.slice(0, n), row_group_size=ROW_GROUP_ROWS)
        rest = table.slice(n)
        self._pending, self._n_pending = ([rest] if rest.num_rows else []), rest.num_rows

    def _drop_csv(self) -> None:
        """Stop the CSV copy of a large run (results.parquet holds every row)."""
        if self._csv is not None:
            self._csv.close()
            self._csv = None
        self.csv_path.unlink(missing_ok=True)
        logger.info(
            "results.csv not written: more than %s result rows (results.parquet has them all)",
            f"{self.csv_max_rows:,}",
        )
        self.csv_max_rows = None

    def close(self) -> None:
        """Finish both files (writing empty ones when no row came)."""
        if self._closed:
            return
        self._closed = True
        self._flush()
        if self._parquet is None:
            pq.write_table(RESULT_SCHEMA.empty_table(), self.parquet_path)
        else:
            self._parquet.close()
        if self.csv_max_rows is not None:
            if self._csv is None:
                self._csv = pa_csv.CSVWriter(str(self.csv_path), RESULT_SCHEMA)
            self._csv.close()


def read_results(
    directory: Path,
    *,
    lean: bool = False,
    columns: list[str] | None = None,
    measured: bool = False,
    compact: bool = False,
    metrics: Collection[str] | None = None,
    statuses: Collection[str] | None = None,
) -> pd.DataFrame:
    """The results table of the run directory ``directory``.

    Args:
        directory: the run directory.
        lean: leave out the long text columns (:data:`~assay.rundir.layout.TEXT_COLUMNS`),
            which analysis does not need.
        columns: read only these columns (overrides ``lean``).
        measured: read only the rows with status ``ok`` and a value (filtered while reading,
            so the other rows never take memory); implies ``compact``.
        compact: the text columns of few distinct values (:data:`_FEW_VALUES`) and the ids
            (:data:`_IDS`) as ``category`` in text order (one code per row instead of one
            string).
        metrics: read only the rows of these metrics (filtered while reading, like
            ``measured``); implies ``compact``.
        statuses: read only the rows of these statuses (e.g. ``{"error"}``; filtered while
            reading); implies ``compact``.
    """
    path = directory / RESULTS_FILE
    if columns is None and lean:
        columns = [n for n in result_names(directory) if n not in TEXT_COLUMNS]
    if not (measured or compact or metrics is not None or statuses is not None):
        return pd.read_parquet(path, columns=columns)
    return _read_compact(path, columns, measured=measured, metrics=metrics, statuses=statuses)


def result_names(directory: Path) -> list[str]:
    """The columns of the results table of the run directory ``directory``."""
    return list(pq.read_schema(directory / RESULTS_FILE).names)


#: Text columns of ids (one value per case), read compactly too: one ``int32`` code per row.
_IDS = ("case_id", "parent_id", "sample_of")


def _read_compact(
    path: Path,
    columns: list[str] | None,
    *,
    measured: bool,
    metrics: Collection[str] | None = None,
    statuses: Collection[str] | None = None,
) -> pd.DataFrame:
    """The text columns as ``category`` (categories in text order), read batch by batch.

    Text columns are decoded from the file's dictionary pages into codes (no string per row),
    each record batch is filtered and its codes copied into one array per column before the
    next batch is decoded: the plain table is never held whole (a filtered ``read_table``
    decoded every row group first: ~400 MB transient for the 1.8 M measured rows of a
    100,000-case run, issue 23).
    """
    file = pq.ParquetFile(path)
    schema, size = file.schema_arrow, file.metadata.num_rows
    names = columns if columns is not None else schema.names
    codes = {n: TextCodes(size) for n in names if n in _FEW_VALUES or n in _IDS}
    # Other columns batch by batch as pandas would convert them; concatenated at the end
    # (numpy's promotion of a column with and without nulls is pandas' own: int -> float,
    # bool -> object).
    plain: dict[str, list[np.ndarray]] = {n: [] for n in names if n not in codes}
    batches = result_batches(path, names, measured=measured, metrics=metrics, statuses=statuses)
    for batch in batches:
        for name, column in codes.items():
            column.add(batch.column(name))
        for name, arrays in plain.items():
            arrays.append(batch.column(name).to_pandas().to_numpy())
        del batch
    columns_out: dict[str, Any] = {}
    for name in names:
        if name in codes:
            columns_out[name] = codes.pop(name).categorical()
        else:
            pieces = plain.pop(name)
            empty = schema.field(name).type.to_pandas_dtype()
            array = np.concatenate(pieces) if pieces else np.empty(0, dtype=empty)
            del pieces
            # As a Series of its own dtype: an object column (flags with nulls) handed to the
            # frame bare is scanned for a better type through a temporary of ~40 bytes a row
            # (130 MB for the 3.3 M measured rows of a 119,100-case run), to stay object.
            columns_out[name] = pd.Series(array, dtype=array.dtype, copy=False)
    frame = pd.DataFrame(columns_out, copy=False)
    release_memory()  # the decoded batches' pages
    return frame


def result_batches(
    path: Path,
    columns: list[str],
    *,
    measured: bool = False,
    metrics: Collection[str] | None = None,
    statuses: Collection[str] | None = None,
) -> Iterator[pa.RecordBatch]:
    """The ``columns`` of the results file ``path``, a record batch at a time (of at most
    :data:`_READ_BATCH` rows, in file order): text columns of few values and ids
    dictionary-encoded as stored (no string per row); with ``measured`` only the rows with
    status ``ok`` and a value, with ``metrics`` only the rows of those metrics, with
    ``statuses`` only the rows of those statuses (filtered batch by batch: the other rows never
    take memory). A batch may hold extra columns the filters read.
    """
    import pyarrow.compute as pc

    file = pq.ParquetFile(path, read_dictionary=[*_FEW_VALUES, *_IDS])
    read = [*columns, *(["status", "value"] if measured else []),
            *(["metric"] if metrics is not None else []),
            *(["status"] if statuses is not None else [])]  # fmt: skip
    wanted = pa.array(sorted(metrics), pa.string()) if metrics is not None else None
    kept = pa.array(sorted(statuses), pa.string()) if statuses is not None else None
    for batch in file.iter_batches(
        batch_size=_READ_BATCH, columns=list(dict.fromkeys(read)), use_threads=False
    ):
        if measured:
            status = batch.column("status")
            ok = pc.and_(pc.equal(status.cast(pa.string()), "ok"),
                         pc.is_valid(batch.column("value")))
            batch = batch.filter(ok)
        if wanted is not None:
            batch = batch.filter(pc.is_in(batch.column("metric").cast(pa.string()), wanted))
        if kept is not None:
            batch = batch.filter(pc.is_in(batch.column("status").cast(pa.string()), kept))
        yield batch


class TextCodes:
    """One text column as integer codes into the distinct texts, filled batch by batch.

    Each batch's codes are kept in the narrowest integer type that holds the texts seen so far:
    a column of a few names (model, metric, status, slices) takes a byte a row while it is read,
    not four (at 119,100 cases six such columns of 4.2 M rows were 75 MB of the read's peak).
    Given the most rows to expect (``size``), the codes go into one array of that many rows
    (pages past the rows written are never touched) instead of a part per batch: the parts of
    a large read, small blocks amid the batches' buffers, pinned the heap's pages after they
    were freed (issue 48).
    """

    def __init__(self, size: int | None = None) -> None:
        self.parts: list[np.ndarray] = []
        self.texts: dict[str, int] = {}
        self._codes: np.ndarray | None = None if size is None else np.empty(size, np.int8)
        self._filled = 0

    def add(self, column: pa.Array) -> None:
        """Append a dictionary-encoded (or plain) text column."""
        if not pa.types.is_dictionary(column.type):
            column = column.dictionary_encode()
        texts = column.dictionary.to_pylist()
        local = [self.texts.setdefault(t, len(self.texts)) for t in texts]
        mapping = np.array([*local, -1], dtype=code_type(len(self.texts)))
        codes = mapping[column.indices.fill_null(len(texts)).to_numpy()]
        if self._codes is None:
            self.parts.append(codes)
            return
        if self._codes.dtype != mapping.dtype:  # more texts than the narrower type holds
            wider = np.empty(self._codes.size, dtype=mapping.dtype)
            wider[: self._filled] = self._codes[: self._filled]  # only the rows written
            self._codes = wider
        self._codes[self._filled : self._filled + codes.size] = codes
        self._filled += codes.size

    def categorical(self) -> pd.Categorical:
        """The codes as a categorical with its categories in text order (sorting and grouping
        as on plain text)."""
        ordered = sorted(self.texts)
        remap = np.empty(len(ordered) + 1, dtype=code_type(len(ordered)))
        remap[[self.texts[t] for t in ordered]] = np.arange(len(ordered))
        remap[-1] = -1
        if self._codes is not None:
            stored = self._codes[: self._filled]
            self._codes = None
            for start in range(0, stored.size, _READ_BATCH):  # in place, a block at a time
                block = stored[start : start + _READ_BATCH]
                block[:] = remap[block]
            return pd.Categorical.from_codes(stored, categories=ordered)
        codes = np.concatenate(self.parts) if self.parts else np.empty(0, dtype=remap.dtype)
        self.parts = []
        return pd.Categorical.from_codes(remap[codes], categories=ordered)


def code_type(n_texts: int) -> type[np.signedinteger[Any]]:
    """The narrowest signed integer type holding codes ``-1 .. n_texts - 1``.

    Example:
        >>> code_type(3).__name__, code_type(200).__name__
        ('int8', 'int16')
    """
    for kind in (np.int8, np.int16):
        if n_texts <= np.iinfo(kind).max:
            return kind
    return np.int32


def frame_batches(frame: pd.DataFrame, columns: list[str]) -> Iterator[pa.RecordBatch]:
    """The given columns of an in-memory results table as record batches of :data:`_READ_BATCH`
    rows (as :func:`result_batches` reads them from a file)."""
    for start in range(0, len(frame), _READ_BATCH):
        part = frame[columns].iloc[start : start + _READ_BATCH]
        # a table first: Arrow-backed columns (chunked) convert, then one batch per slice
        yield from pa.Table.from_pandas(part, preserve_index=False).combine_chunks().to_batches()


def rows_of(frame: pd.DataFrame, keys: Collection[tuple[str, str]]) -> pd.DataFrame:
    """The rows of ``frame`` whose ``(case_id, model)``, as text, is one of ``keys``."""
    pairs = pd.MultiIndex.from_frame(frame[["case_id", "model"]].astype(str))
    return frame[pairs.isin(list(keys))]


def read_results_for(directory: Path, keys: Collection[tuple[str, str]]) -> pd.DataFrame:
    """Every column of the result rows of the given ``(case_id, model)`` keys only.

    Reads the ids of one row group at a time and decodes only the row groups holding a chosen
    case, one at a time, keeping the rows of the chosen keys: a filtered ``read_table`` decoded
    every row group whole first (550 MB transient at 100,000 cases for 3,000 cases), batches of
    every column of every row (the long texts too) were still a 120 MB transient, and the rows
    of a chosen case's other models, kept until the end, tripled the table handed to pandas.
    """
    file = pq.ParquetFile(directory / RESULTS_FILE)
    # (case id, model) joined as one text: exact up to an id holding the separator, which
    # ``rows_of`` below settles (the filter only ever keeps too much, never too little)
    wanted = pa.array(sorted({f"{case_id}{_KEY_SEPARATOR}{model}" for case_id, model in keys}),
                      pa.string())
    kept = [
        table.filter(pc.is_in(pc.binary_join_element_wise(
            as_text(table.column("case_id")), as_text(table.column("model")), _KEY_SEPARATOR
        ), value_set=wanted))
        for table in rows_with(file, "case_id", {case_id for case_id, _ in keys})
    ]  # fmt: skip
    frame = pa.Table.from_batches(
        [b for table in kept for b in table.to_batches()], schema=file.schema_arrow
    ).to_pandas()
    return rows_of(frame, keys)


#: What joins a case id and its model into one text when rows are filtered by key.
_KEY_SEPARATOR = "\x1f"


def as_text(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """A column as plain strings (a dictionary-encoded one decoded)."""
    return column if pa.types.is_string(column.type) else column.cast(pa.string())


def write_calibrated_table(directory: Path, frame: pd.DataFrame) -> list[Path]:
    """Write the calibrated table (:data:`CALIBRATED_SCHEMA`) as Parquet and CSV into
    ``directory``, each atomically; return the paths."""
    table = pa.Table.from_pandas(frame, schema=CALIBRATED_SCHEMA, preserve_index=False)
    parquet, csv_path = directory / CALIBRATED_FILE, directory / CALIBRATED_CSV
    with atomic_path(parquet) as tmp:
        pq.write_table(table, tmp)
    with atomic_path(csv_path) as tmp:
        frame.to_csv(tmp, index=False)
    return [parquet, csv_path]


def read_calibrated(directory: Path) -> pd.DataFrame | None:
    """The calibrated table of the run directory ``directory``, or None when it has none."""
    path = directory / CALIBRATED_FILE
    return pd.read_parquet(path) if path.is_file() else None
