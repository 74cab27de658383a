"""What an assessment reads of its suite, gathered in one streamed pass.

An assessment needs of every case its :class:`~assay.verdict.case_table.CaseTable` row, and of a
case labelled for one of the plan's criteria its key and those labels; the whole case (answers,
contexts) only for the review queue, which reads the suite again. Holding every
:class:`~assay.data.TestCase` took ~450 MB at 119,100 cases (~3.8 GB at a million), and each
labelled case's ``labels`` mapping ~1.3 kB more.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa

from assay.memory import Batches
from assay.verdict.case_table import CaseTable

#: A criterion the case has no label for (``None`` is a label value: a blank one).
_MISSING = object()
#: The key columns of the labelled cases (``model`` as the case has it: None for none).
_KEYS = pa.schema([("id", pa.string()), ("model", pa.string())])


class LabelledCase(NamedTuple):
    """What the label readers read of a case with labels (``model`` as the case has it)."""

    id: str
    model: str | None
    labels: dict[str, Any]


class SuiteCases:
    """A suite's case table, label names and the plan criteria's labels, read chunk by chunk.

    Iterating yields the cases labelled for one of ``criteria`` in suite order, each with those
    labels only: a reader of these criteria's labels
    (:func:`~assay.verdict.labels.labels_from_cases`) sees what it would over every case.
    """

    def __init__(self, path: Path, criteria: Iterable[str]) -> None:
        from assay.data.suite import iter_suite

        self.criteria = tuple(sorted(set(criteria)))
        self.table = CaseTable()
        #: every label name a case carries (the criteria the suite knows)
        self.names: set[str] = set()
        # the labelled cases' ids and models as Arrow columns, and per criterion one list of its
        # raw values (small ints and booleans are shared objects: no Python object is kept per
        # case but the values' own)
        self._keys = Batches(_KEYS)
        self._values: list[list[Any]] = [[] for _ in self.criteria]
        for chunk in iter_suite(path):
            self.table.add(chunk)
            self._add(chunk)

    def _add(self, chunk: list[Any]) -> None:
        ids: list[str] = []
        models: list[str | None] = []
        for case in chunk:
            self.names.update(case.labels)
            if not any(c in case.labels for c in self.criteria):
                continue
            ids.append(case.id)
            models.append(case.model)
            for column, criterion in zip(self._values, self.criteria, strict=True):
                column.append(case.labels.get(criterion, _MISSING))
        if ids:
            self._keys.append(pa.record_batch([ids, models], schema=_KEYS))

    def __iter__(self) -> Iterator[LabelledCase]:
        start = 0
        for batch in self._keys.batches:
            ids, models = batch.column(0).to_pylist(), batch.column(1).to_pylist()
            values = [column[start : start + len(ids)] for column in self._values]
            start += len(ids)
            for case_id, model, row in zip(ids, models, zip(*values, strict=True), strict=True):
                labels = {
                    c: v for c, v in zip(self.criteria, row, strict=True) if v is not _MISSING
                }
                yield LabelledCase(case_id, model, labels)


def label_names(cases: Iterable[Any]) -> set[str]:
    """Every label name the cases carry (of a :class:`SuiteCases`: every case of the suite)."""
    if isinstance(cases, SuiteCases):
        return cases.names
    return {name for case in cases for name in case.labels}


def each_case(path: Path, *, keys_unique: bool = False) -> Iterator[Any]:
    """Every case of a suite, read chunk by chunk (``keys_unique``: the suite's keys were checked
    on an earlier read, :func:`~assay.data.suite.iter_suite`)."""
    from assay.data.suite import iter_suite

    for chunk in iter_suite(path, keys_unique=keys_unique):
        yield from chunk


def case_table(cases: Iterable[Any] | SuiteCases | CaseTable) -> CaseTable:
    """The :class:`CaseTable` of cases, of a suite read as :class:`SuiteCases`, or the table."""
    if isinstance(cases, CaseTable):
        return cases
    if isinstance(cases, SuiteCases):
        return cases.table
    return CaseTable.of(cases)
