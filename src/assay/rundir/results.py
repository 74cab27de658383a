"""The long results table (one row per case × metric): its schema, its writer and its readers.

The one place that knows how results are stored: change the format here and every reader and
writer follows (design note 0021).
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
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
    _parquet: pq.ParquetWriter | None = None
    _csv_handle: Any = None
    _csv: Any = None
    n_rows: int = 0
    _closed: bool = field(default=False)

    @classmethod
    def in_directory(cls, directory: Path) -> ResultWriter:
        """A writer of the results files of the run directory ``directory``."""
        return cls(directory / RESULTS_FILE, directory / RESULTS_CSV)

    @property
    def paths(self) -> list[Path]:
        """The files written."""
        return [self.parquet_path, self.csv_path]

    def write(self, rows: list[ResultRow]) -> None:
        """Append rows to both files."""
        if not rows:
            return
        table = pa.Table.from_pylist(rows, schema=RESULT_SCHEMA)
        if self._parquet is None:
            self._parquet = pq.ParquetWriter(self.parquet_path, RESULT_SCHEMA)
            self._csv_handle = self.csv_path.open("w", encoding="utf-8", newline="")
            self._csv = csv.DictWriter(self._csv_handle, fieldnames=COLUMNS)
            self._csv.writeheader()
        self._parquet.write_table(table)
        self._csv.writerows(rows)
        self.n_rows += len(rows)

    def close(self) -> None:
        """Finish both files (writing empty ones when no row came)."""
        if self._closed:
            return
        self._closed = True
        if self._parquet is None:
            pq.write_table(RESULT_SCHEMA.empty_table(), self.parquet_path)
            with self.csv_path.open("w", encoding="utf-8", newline="") as handle:
                csv.DictWriter(handle, fieldnames=COLUMNS).writeheader()
            return
        self._parquet.close()
        self._csv_handle.close()


def read_results(directory: Path, *, lean: bool = False) -> pd.DataFrame:
    """The results table of the run directory ``directory``; ``lean`` leaves out the long text
    columns (:data:`~assay.rundir.layout.TEXT_COLUMNS`), which analysis does not need."""
    path = directory / RESULTS_FILE
    if not lean:
        return pd.read_parquet(path)
    names = [n for n in pq.read_schema(path).names if n not in TEXT_COLUMNS]
    return pd.read_parquet(path, columns=names)


def read_results_for(directory: Path, case_ids: set[str]) -> pd.DataFrame:
    """Every column of the result rows of the given case ids only (read with a filter)."""
    import pyarrow.compute as pc

    ids = pa.array(sorted(case_ids), type=pa.string())
    table = pq.read_table(directory / RESULTS_FILE, filters=pc.field("case_id").isin(ids))
    return table.to_pandas()


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
