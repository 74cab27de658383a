"""Suites as flat records and as Parquet: one fixed schema, written batch by batch.

A run directory keeps a copy of its suite (the texts reports and the labeling app show). As
JSON Lines that copy was a second raw copy of the suite: 142 MB at 100,000 cases (issue 23).
Stored here as zstd-compressed Parquet with a fixed schema it is a fraction of that, is written
batch by batch (no whole-suite table in memory) and can be read by column or filtered by id.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from assay.data.case import CASE_FIELDS, TestCase
from assay.errors import InvalidInputError

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

#: Fields stored as JSON text in flat formats (CSV, Parquet).
NESTED_FIELDS = (
    "expected_answers",
    "retrieved_context",
    "context_ids",
    "relevant_ids",
    "relevant_context",
    "labels",
    "metadata",
    "turns",
    "trajectory",
)
#: Numeric fields; every other field is text (nested ones as JSON).
_FLOAT_FIELDS = ("latency_s", "cost_usd")
_INT_FIELDS = ("sample",)
#: Rows decoded from Parquet at a time.
_PARQUET_BATCH = 2048
#: Compression of the suite copy: zstd is ~4x smaller than snappy on answer texts and fast.
COMPRESSION = "zstd"


def flat_records(cases: Sequence[TestCase]) -> list[dict[str, Any]]:
    """The cases as flat records: every field, nested ones as JSON text.

    Example:
        >>> flat_records([TestCase(id="a", retrieved_context=["x"])])[0]["retrieved_context"]
        '["x"]'
    """
    rows = []
    for case in cases:
        record = case.model_dump()
        for key in NESTED_FIELDS:
            if record[key] is not None:
                record[key] = json.dumps(record[key], ensure_ascii=False)
        rows.append(record)
    return rows


def suite_schema() -> pa.Schema:
    """The Parquet schema of a suite: one column per case field (a fixed schema, so every batch
    of a streamed write agrees, whatever fields its cases leave empty)."""
    import pyarrow as pa

    def kind(name: str) -> pa.DataType:
        if name in _FLOAT_FIELDS:
            return pa.float64()
        return pa.int64() if name in _INT_FIELDS else pa.string()

    return pa.schema([(name, kind(name)) for name in CASE_FIELDS])


class ParquetSuiteWriter:
    """Writes cases to a Parquet suite file, one row group per :meth:`write`.

    Example:
        >>> import tempfile
        >>> from assay.data.suite import read_suite
        >>> path = Path(tempfile.mkdtemp()) / "s.parquet"
        >>> with ParquetSuiteWriter(path) as writer:
        ...     writer.write([TestCase(id="a", actual_answer="x")])
        ...     writer.write([TestCase(id="b", latency_s=0.5)])
        >>> [(c.id, c.actual_answer, c.latency_s) for c in read_suite(path)]
        [('a', 'x', None), ('b', None, 0.5)]
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._writer: pq.ParquetWriter | None = None
        self._closed = False

    def write(self, cases: Sequence[TestCase]) -> None:
        """Append ``cases`` (nothing for an empty sequence)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        if not cases:
            return
        schema = suite_schema()
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.path, schema, compression=COMPRESSION)
        self._writer.write_table(pa.Table.from_pylist(flat_records(cases), schema=schema))

    def close(self) -> None:
        """Finish the file (an empty table when no case was written)."""
        import pyarrow.parquet as pq

        if self._closed:
            return
        self._closed = True
        if self._writer is None:
            pq.write_table(suite_schema().empty_table(), self.path, compression=COMPRESSION)
        else:
            self._writer.close()

    def __enter__(self) -> ParquetSuiteWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def unflatten(
    record: dict[str, Any], row: int, source: str, *, empty_is_missing: bool
) -> dict[str, Any]:
    """Decode the JSON-text columns of a flat (CSV / Parquet) record; unset values are left out.

    CSV cannot tell an empty text from a missing one, so there an empty cell means "not set".

    Example:
        >>> unflatten({"id": "a", "labels": '{"ok": 1}', "topic": None}, 1, "s.csv",
        ...           empty_is_missing=True)
        {'id': 'a', 'labels': {'ok': 1}}
    """
    out: dict[str, Any] = {}
    for key, value in record.items():
        if value is None or (empty_is_missing and isinstance(value, str) and value == ""):
            continue
        if isinstance(value, float) and math.isnan(value):
            continue
        if key in NESTED_FIELDS and isinstance(value, str):
            try:
                value = json.loads(value)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(
                    f"{source}: row {row}, field {key!r}: expected JSON text ({exc.msg})"
                ) from None
        elif hasattr(value, "tolist"):
            value = value.tolist()
        out[key] = value
    return out


def parquet_records(
    path: Path, *, ids: Collection[str] | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row, record)`` of a Parquet suite, read one record batch at a time (never whole).

    Args:
        path: the Parquet file.
        ids: read only the rows with these ``id`` values (a filter pushed into the reader);
            their row numbers then count the rows read.

    Raises:
        InvalidInputError: the file is not readable Parquet, or a JSON column holds no JSON.
    """
    number = 0
    for batch in _record_batches(path, ids):
        for record in batch.to_pylist():
            number += 1
            yield number, unflatten(record, number, str(path), empty_is_missing=False)


def rows_with(file: pq.ParquetFile, column: str, values: Collection[str]) -> Iterator[pa.Table]:
    """The rows of ``file`` whose text ``column`` holds one of ``values``, one row group at a
    time: each group's ``column`` is read first and only the groups holding a wanted row are
    decoded whole (a filtered ``read_table`` decoded every row group first: the whole 100,000-case
    suite copy, ~120 MB, to show 3,000 cases; issue 23)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    wanted = pa.array(sorted(values), type=pa.string())
    for group in range(file.num_row_groups):
        found = pc.is_in(file.read_row_group(group, columns=[column]).column(column),
                         value_set=wanted)
        if pc.any(found).as_py():
            yield file.read_row_group(group, use_threads=False).filter(found)


def _record_batches(path: Path, ids: Collection[str] | None) -> Iterator[pa.RecordBatch]:
    """The record batches of a Parquet file (only rows of ``ids`` when given)."""
    import pyarrow.parquet as pq

    try:
        if ids is None:
            yield from pq.ParquetFile(path).iter_batches(batch_size=_PARQUET_BATCH)
        else:
            for table in rows_with(pq.ParquetFile(path), "id", ids):
                yield from table.to_batches(_PARQUET_BATCH)
    except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid and ArrowIOError are these
        raise InvalidInputError(f"{path}: not a readable Parquet file ({exc})") from None
