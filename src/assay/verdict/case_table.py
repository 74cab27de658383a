"""What deciding a run reads of each case, as columns gathered chunk by chunk.

The verdict needs of every case its key, kind, question group and scopes (attack, perturbed,
abstaining, truncated) — not the case. Kept as Arrow record batches merged every few chunks
(:class:`~assay.memory.Batches`), no Python object is held per case: a list of per-case key
objects was ~475 MB resident at 1,000,000 cases, and a pandas frame per chunk (~100 small objects
each) still pinned ~250 MB of the Python heap's arenas around the parsed chunks' transient
objects, for 91 MB of columns.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from assay.data.case import model_key
from assay.data.samples import question_of
from assay.memory import Batches

#: The kinds of case a check can be about (a metric applies to one kind).
SINGLE, CONVERSATION, AGENT = "single-turn", "conversation", "agent"
#: The columns of a case table (one row per case, in suite order).
COLUMNS = ("case_id", "model", "kind", "group", "question", "sample", "sample_of", "attacks",
           "perturbed", "abstain", "truncated")  # fmt: skip
#: Their Arrow types: texts (pandas' ``str`` once in a frame), ``sample`` a float (NaN for
#: none, as pandas holds it), flags.
_SCHEMA = pa.schema([
    *((name, pa.string()) for name in COLUMNS[:5]),
    ("sample", pa.float64()),
    ("sample_of", pa.string()),
    *((name, pa.bool_()) for name in COLUMNS[7:]),
])  # fmt: skip


def case_kind(case: Any) -> str:
    """Single-turn, conversation or agent: a case key's own kind, else from the case's turns
    and trajectory."""
    kind = getattr(case, "kind", None)
    if kind is not None:
        return str(kind)
    return CONVERSATION if case.turns else AGENT if case.trajectory else SINGLE


def expects_abstention(case: Any) -> bool:
    """Whether the case's expected behaviour is to abstain."""
    return str(case.labels.get("expected_behaviour", "")).lower() == "abstain"


class CaseTable:
    """Per case: ``case_id``, ``model`` (as text), ``kind``, ``group`` (the question it answers,
    :func:`~assay.data.samples.question_of`), ``question`` (an abstaining case's question, its id
    when it has none), ``sample``, ``sample_of``, and the flags ``attacks``, ``perturbed``,
    ``abstain``, ``truncated``.

    Example:
        >>> from assay.data import TestCase
        >>> table = CaseTable.of([TestCase(id="q", model="m"),
        ...                       TestCase(id="q~t", model="m", parent_id="q", perturbation="t")])
        >>> table.frame()[["case_id", "group", "perturbed"]].values.tolist()
        [['q', 'q', False], ['q~t', 'q', True]]
    """

    def __init__(self) -> None:
        self._batches = Batches(_SCHEMA)
        self._frame: pd.DataFrame | None = None

    @classmethod
    def of(cls, cases: Iterable[Any]) -> CaseTable:
        """The table of test cases or case keys."""
        table = cls()
        table.add(cases)
        return table

    def add(self, cases: Iterable[Any]) -> None:
        """Append the next cases (test cases or case keys)."""
        columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
        for case in cases:
            perturbation = case.perturbation or ""
            attack = perturbation.startswith("attack:")
            abstain = expects_abstention(case)
            columns["case_id"].append(case.id)
            columns["model"].append(model_key(case.model))
            columns["kind"].append(case_kind(case))
            columns["group"].append(question_of(case))
            # the unit an out-of-scope case asks (no text: never a duplicate), with its sample;
            # only an abstaining case's is compared
            columns["question"].append((case.question or f"\x00{case.id}") if abstain else None)
            columns["sample"].append(case.sample)
            columns["sample_of"].append(case.sample_of)
            columns["attacks"].append(attack)
            columns["perturbed"].append(bool(perturbation) and not attack)
            columns["abstain"].append(abstain)
            columns["truncated"].append(case.truncated is not None)
        if columns["case_id"]:
            self._batches.append(pa.RecordBatch.from_pydict(columns, schema=_SCHEMA))

    def frame(self) -> pd.DataFrame:
        """Every case's row, in the order added (texts as pandas' ``str``; made on each call
        from the batches, not kept beside them)."""
        if self._frame is not None:
            return self._frame
        return pa.Table.from_batches(self._batches.batches, schema=_SCHEMA).to_pandas()

    def of_kind(self, kind: str) -> CaseTable:
        """The cases of one kind (the table itself when every case is of that kind)."""
        if self._frame is None and all(pc.all(pc.equal(b.column("kind"), kind)).as_py()
                                       for b in self._batches.batches):  # fmt: skip
            return self
        frame = self.frame()
        table = CaseTable()
        table._frame = frame[frame["kind"] == kind].reset_index(drop=True)
        return table

    def models(self) -> list[str]:
        """The distinct models, sorted."""
        if self._frame is not None:
            return sorted(set(self._frame["model"].tolist()))
        column = pa.chunked_array([b.column("model") for b in self._batches.batches], pa.string())
        return sorted(pc.unique(column).to_pylist())

    def sampled(self) -> dict[tuple[str, str], str]:
        """``(case_id, model)`` of each sample → the id of the case it samples."""
        frame = self.frame()
        rows = frame[frame["sample_of"].notna()]
        return dict(zip(zip(rows["case_id"], rows["model"], strict=True), rows["sample_of"],
                        strict=True))  # fmt: skip

    def __len__(self) -> int:
        if self._frame is not None:
            return len(self._frame)
        return sum(batch.num_rows for batch in self._batches.batches)
