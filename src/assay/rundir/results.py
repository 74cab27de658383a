"""The long results table (one row per case × metric): its schema, its writer and its readers.

The one place that knows how results are stored: change the format here and every reader and
writer follows (design note 0021).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from assay.fileio import atomic_path
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

    @classmethod
    def in_directory(cls, directory: Path) -> ResultWriter:
        """A writer of the results files of the run directory ``directory``."""
        return cls(directory / RESULTS_FILE, directory / RESULTS_CSV, CSV_MAX_ROWS)

    @property
    def paths(self) -> list[Path]:
        """The files written (``results.csv`` only while it is kept, see :data:`CSV_MAX_ROWS`)."""
        return [self.parquet_path] + ([self.csv_path] if self.csv_max_rows is not None else [])

    def write(self, rows: list[ResultRow]) -> None:
        """Append rows to both files, one columnar batch each."""
        if not rows:
            return
        table = pa.Table.from_pylist(rows, schema=RESULT_SCHEMA)
        if self._parquet is None:
            self._parquet = pq.ParquetWriter(self.parquet_path, RESULT_SCHEMA)
        self._parquet.write_table(table)
        self.n_rows += len(rows)
        if self.csv_max_rows is not None and self.n_rows > self.csv_max_rows:
            self._drop_csv()
        elif self.csv_max_rows is not None:
            if self._csv is None:
                self._csv = pa_csv.CSVWriter(str(self.csv_path), RESULT_SCHEMA)
            self._csv.write_table(table)

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
) -> pd.DataFrame:
    """The results table of the run directory ``directory``.

    Args:
        directory: the run directory.
        lean: leave out the long text columns (:data:`~assay.rundir.layout.TEXT_COLUMNS`),
            which analysis does not need.
        columns: read only these columns (overrides ``lean``).
        measured: read only the rows with status ``ok`` and a value (filtered while reading,
            so the other rows never take memory); implies ``compact``.
        compact: the columns of few distinct values (:data:`_FEW_VALUES`) as ``category`` in
            text order (one code per row instead of one string).
    """
    path = directory / RESULTS_FILE
    if columns is None and lean:
        columns = [n for n in pq.read_schema(path).names if n not in TEXT_COLUMNS]
    if not (measured or compact):
        return pd.read_parquet(path, columns=columns)
    import pyarrow.compute as pc

    ok = (pc.field("status") == "ok") & pc.field("value").is_valid() if measured else None
    names = [n for n in _FEW_VALUES if columns is None or n in columns]
    frame = pq.read_table(path, columns=columns, filters=ok, read_dictionary=names).to_pandas()
    for name in names:  # categories in text order: sorting and grouping as on plain text
        frame[name] = frame[name].cat.reorder_categories(sorted(frame[name].cat.categories))
    return frame


def read_results_for(directory: Path, case_ids: set[str]) -> pd.DataFrame:
    """Every column of the result rows of the given case ids only.

    Read one record batch at a time, keeping the matching rows: a filtered ``read_table``
    decoded every row group whole first (550 MB transient at 100,000 cases for 3,000 cases).
    """
    import pyarrow.compute as pc

    ids = pa.array(sorted(case_ids), type=pa.string())
    file = pq.ParquetFile(directory / RESULTS_FILE)
    kept = []
    for batch in file.iter_batches(batch_size=_READ_BATCH):
        mask = pc.is_in(batch.column("case_id"), value_set=ids)
        if pc.any(mask).as_py():
            kept.append(batch.filter(mask))
    return pa.Table.from_batches(kept, schema=file.schema_arrow).to_pandas()


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
