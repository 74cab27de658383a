"""What an assessment reads of its suite, gathered in one streamed pass.

An assessment needs of every case its :class:`~assay.verdict.case_table.CaseTable` row, and of a
case with labels its key and ``labels``; the whole case (answers, contexts) only for the review
queue, which reads the suite again. Holding every :class:`~assay.data.TestCase` took ~450 MB at
119,100 cases (~3.8 GB at a million).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from assay.verdict.case_table import CaseTable


class LabelledCase(NamedTuple):
    """What the label readers read of a case with labels (``model`` as the case has it)."""

    id: str
    model: Any
    labels: dict[str, Any]


class SuiteCases:
    """A suite's case table and its labelled cases, read chunk by chunk.

    Iterating yields the labelled cases, in suite order: a reader of cases' labels
    (:func:`~assay.verdict.labels.labels_from_cases`, the criteria the suite knows) sees what it
    would over every case, since a case without labels adds nothing.
    """

    def __init__(self, path: Path) -> None:
        from assay.data.suite import iter_suite

        self.table = CaseTable()
        self.labelled: list[LabelledCase] = []
        for chunk in iter_suite(path):
            self.table.add(chunk)
            self.labelled.extend(LabelledCase(c.id, c.model, c.labels) for c in chunk if c.labels)

    def __iter__(self) -> Iterator[LabelledCase]:
        return iter(self.labelled)


def each_case(path: Path) -> Iterator[Any]:
    """Every case of a suite, read chunk by chunk."""
    from assay.data.suite import iter_suite

    for chunk in iter_suite(path):
        yield from chunk


def case_table(cases: Iterable[Any] | SuiteCases | CaseTable) -> CaseTable:
    """The :class:`CaseTable` of cases, of a suite read as :class:`SuiteCases`, or the table."""
    if isinstance(cases, CaseTable):
        return cases
    if isinstance(cases, SuiteCases):
        return cases.table
    return CaseTable.of(cases)
