"""Which case × model entries the report's drill-down shows: the most failing and erroring first.

The choice is made from the result rows batch by batch (a Parquet file's row groups, or an
in-memory table cut into batches): each batch is reduced to its (case, model) pairs with their
count of bad rows (``passed`` false or ``status`` error), and the tallies are merged as they grow.
Only one tally row per entry is held (its two ids as Arrow text and a count, ~40 bytes), never a
column of every result row (~14 bytes a row and an 8-byte key a row at 35 rows a case: ~770 MB
for a million cases).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from assay.rundir.results import as_text

#: The result columns the choice reads.
SELECTION_COLUMNS = ("case_id", "model", "status", "passed")
#: Unmerged tally rows tolerated beyond the merged tally's size before merging again.
_MERGE_SLACK = 262_144


@dataclass(frozen=True)
class Choice:
    """The chosen entries: ``total`` entries in the results, ``keys`` the shown ones'
    ``(case_id, model)``."""

    total: int
    keys: set[tuple[str, str]]

    @property
    def all(self) -> bool:
        """Whether every entry of the results is shown."""
        return len(self.keys) == self.total


class BadTally:
    """Bad result rows per (case, model), accumulated from record batches of
    :data:`SELECTION_COLUMNS`.

    Example:
        >>> tally = BadTally()
        >>> tally.add(pa.record_batch({"case_id": ["a", "a", "b"], "model": ["m", "m", "m"],
        ...     "status": ["ok", "error", "ok"], "passed": [False, None, True]}))
        >>> sorted(tally.table().to_pylist(), key=lambda r: r["case_id"])
        [{'case_id': 'a', 'model': 'm', 'bad': 2}, {'case_id': 'b', 'model': 'm', 'bad': 0}]
    """

    def __init__(self) -> None:
        self._merged: pa.Table | None = None
        self._parts: list[pa.Table] = []
        self._n_parts = 0

    def add(self, batch: pa.RecordBatch | pa.Table) -> None:
        """Tally one batch of result rows."""
        failed = pc.fill_null(pc.invert(batch.column("passed").cast(pa.bool_())), False)
        errored = pc.fill_null(pc.equal(as_text(batch.column("status")), "error"), False)
        rows = pa.table({
            "case_id": as_text(batch.column("case_id")),
            "model": as_text(batch.column("model")),
            "bad": pc.or_(failed, errored).cast(pa.int64()),
        })  # fmt: skip
        self._parts.append(_sum_by_key(rows))
        self._n_parts += self._parts[-1].num_rows
        merged = self._merged.num_rows if self._merged is not None else 0
        if self._n_parts > 2 * merged + _MERGE_SLACK:
            self._merge()

    def _merge(self) -> None:
        parts = [self._merged] if self._merged is not None else []
        self._merged = _sum_by_key(pa.concat_tables([*parts, *self._parts]))
        self._parts, self._n_parts = [], 0

    def table(self) -> pa.Table:
        """One row per (case, model): ``case_id``, ``model``, ``bad``."""
        if self._parts:
            self._merge()
        return self._merged if self._merged is not None else _EMPTY


#: The tally of no row.
_EMPTY = pa.table({"case_id": pa.array([], pa.string()), "model": pa.array([], pa.string()),
                   "bad": pa.array([], pa.int64())})


def _sum_by_key(rows: pa.Table) -> pa.Table:
    """``rows`` reduced to one row per (case_id, model), ``bad`` summed."""
    summed = rows.group_by(["case_id", "model"], use_threads=False).aggregate([("bad", "sum")])
    return summed.rename_columns({"bad_sum": "bad"}).select(["case_id", "model", "bad"])


def choose_cases(batches: Iterable[pa.RecordBatch | pa.Table], max_cases: int) -> Choice:
    """The ``max_cases`` entries with the most bad rows (ties: by model, then case id, as text),
    from batches of :data:`SELECTION_COLUMNS`.

    Example:
        >>> batch = pa.record_batch({"case_id": ["a", "b", "c"], "model": ["m"] * 3,
        ...     "status": ["ok", "ok", "error"], "passed": [True, False, None]})
        >>> choice = choose_cases([batch], 2)
        >>> choice.total, sorted(choice.keys), choice.all
        (3, [('b', 'm'), ('c', 'm')], False)
    """
    tally = BadTally()
    for batch in batches:
        tally.add(batch)
    table = everything = tally.table()
    if table.num_rows > max_cases:
        order = [("bad", "descending"), ("model", "ascending"), ("case_id", "ascending")]
        shown = pc.select_k_unstable(table, k=max_cases, sort_keys=order)
        table = table.take(shown)  # keys are unique: the order is total, "unstable" is exact
    keys = set(zip(table.column("case_id").to_pylist(), table.column("model").to_pylist(),
                   strict=True))  # fmt: skip
    return Choice(everything.num_rows, keys)
