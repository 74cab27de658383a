"""The run's copy of its suite: written once while the suite is validated, read back in chunks.

A suite given as a file is never held whole (issue 23: at 100,000 cases the cases alone took
hundreds of MB): one validating pass streams it into the run directory's compressed copy
(:data:`~assay.rundir.layout.SUITE_FILE`) and keeps, per case, only what the analysis needs
(:class:`CaseIndex`); scoring then reads the copy back chunk by chunk. A suite given in memory
is copied too, and its chunks are slices of the cases the caller already holds.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from assay.data.case import TestCase, model_key
from assay.data.suite import CHUNK_SIZE, TestSuite, iter_suite
from assay.data.suite_parquet import ParquetSuiteWriter
from assay.fileio import sha256_file
from assay.rundir.layout import LEGACY_SUITE_FILE, SUITE_FILE

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


def suite_copy(directory: Path) -> Path | None:
    """The suite copy of the run directory ``directory`` (compressed Parquet, or the JSON Lines
    copy of runs written before it), None when the run has none.

    Example:
        >>> import tempfile
        >>> suite_copy(Path(tempfile.mkdtemp())) is None
        True
    """
    for name in (SUITE_FILE, LEGACY_SUITE_FILE):
        if (directory / name).is_file():
            return directory / name
    return None


@dataclass
class CaseIndex:
    """What the analysis needs of every case, as columns (the cases themselves are not kept).

    No Python object is kept per case (numbers in arrays, ids in Arrow columns, model names
    interned): kept while each chunk's cases were parsed, such objects pinned the Python heap's
    arenas around them — 89 MB resident for 7 MB of objects at 119,100 cases.

    Example:
        >>> index = CaseIndex()
        >>> index.add([TestCase(id="q1", model="m", latency_s=0.5),
        ...            TestCase(id="q1~t", parent_id="q1")])
        >>> index.models, sorted(index.linked_ids())
        (['m', ''], ['q1', 'q1~t'])
        >>> index.usage()["latency_s"].tolist()
        [0.5, nan]
    """

    #: Model name of each case (``""`` when unnamed), in suite order.
    model: list[str] = field(default_factory=list)
    #: Latency and cost of each case, in suite order (NaN when not recorded: never a value).
    latency_s: array[float] = field(default_factory=lambda: array("d"))
    cost_usd: array[float] = field(default_factory=lambda: array("d"))
    #: Case id → words in its answer (kept only when asked for: judge checks need them).
    answer_words: dict[str, int] = field(default_factory=dict)
    count_words: bool = False
    #: Whether any case is one of k samples of a case (``assay run --repeats``).
    sampled: bool = False
    #: Ids of the perturbed cases and of their parents, one Arrow column per chunk.
    _children: list[pa.Array] = field(default_factory=list)
    _parents: list[pa.Array] = field(default_factory=list)
    _samples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, cases: Sequence[TestCase]) -> None:
        """Index the next cases of the suite."""
        import pyarrow as pa

        children, parents = [], []
        for case in cases:
            self.model.append(model_key(case.model))  # one string per model, not case
            self.latency_s.append(math.nan if case.latency_s is None else case.latency_s)
            self.cost_usd.append(math.nan if case.cost_usd is None else case.cost_usd)
            if case.parent_id:
                children.append(case.id)
                parents.append(case.parent_id)
            if case.sample_of is not None:
                self._samples.setdefault(case.sample_of, []).append(case.id)
            self.sampled = self.sampled or case.sample is not None
            if self.count_words:
                self.answer_words[case.id] = len((case.actual_answer or "").split())
        if children:
            self._children.append(pa.array(children, pa.string()))
            self._parents.append(pa.array(parents, pa.string()))

    def compact(self) -> None:
        """Join the per-chunk id columns into one each, once every chunk is indexed.

        Each chunk's columns are small objects made last, amid the chunk's freed cases: each
        kept one of the Python heap's 1 MiB arenas from being returned (122 chunks at a
        million cases: 141 arenas, 146 MiB resident for 2 KiB of objects; issue 48).
        """
        import pyarrow as pa

        for columns in (self._children, self._parents):
            if len(columns) > 1:
                columns[:] = [pa.concat_arrays(columns)]

    def linked_ids(self) -> set[str]:
        """Ids of the perturbed cases and of their parents (and of every sample of those)."""
        import pyarrow as pa

        parents = set(pa.chunked_array(self._parents, pa.string()).to_pylist())
        linked = parents.union(pa.chunked_array(self._children, pa.string()).to_pylist())
        for root, ids in self._samples.items():
            if root in parents:
                linked.update(ids)
        return linked

    def usage(self) -> pd.DataFrame:
        """Model, latency and cost of each case (latency and cost NaN where not recorded)."""
        import numpy as np
        import pandas as pd

        return pd.DataFrame({"model": self.model,
                             "latency_s": np.frombuffer(self.latency_s, dtype=np.float64),
                             "cost_usd": np.frombuffer(self.cost_usd, dtype=np.float64)})

    @property
    def models(self) -> list[str]:
        """Distinct model names in order of first appearance."""
        return list(dict.fromkeys(self.model))

    def __len__(self) -> int:
        return len(self.model)


class StagedSuite:
    """A validated suite, copied into a run directory, served to scoring in chunks.

    Build it with :func:`stage_suite`.
    """

    def __init__(
        self,
        index: CaseIndex,
        copy: Path | None,
        cases: Sequence[TestCase] | None,
        *,
        source: str | None,
        sha256: str | None,
    ) -> None:
        self.index = index
        self.copy = copy
        self.source = source
        self.sha256 = sha256
        self._cases = cases

    def __len__(self) -> int:
        return len(self.index)

    def chunks(self, size: int) -> Iterator[Sequence[TestCase]]:
        """The cases, ``size`` at a time (read back from the copy unless held in memory)."""
        if self._cases is not None:
            for start in range(0, len(self._cases), size):
                yield self._cases[start : start + size]
        elif self.copy is not None:
            yield from iter_suite(self.copy, chunk_size=size, keys_unique=True)  # staging checked


def stage_suite(
    suite: TestSuite | str | Path,
    directory: Path,
    *,
    count_words: bool = False,
    chunk_size: int = CHUNK_SIZE,
) -> StagedSuite:
    """Validate ``suite``, copy it into ``directory`` and index it.

    Args:
        suite: the cases in memory, or a suite file (streamed: never held whole).
        directory: the run directory being written.
        count_words: also index the words of each answer (:attr:`CaseIndex.answer_words`).
        chunk_size: cases validated and copied at a time (what staging holds of the suite).

    Raises:
        InvalidInputError: a suite file with invalid rows (every problem named), or none.
    """
    index = CaseIndex(count_words=count_words)
    path = directory / SUITE_FILE
    with ParquetSuiteWriter(path) as writer:
        if isinstance(suite, TestSuite):
            for start in range(0, len(suite.cases), chunk_size):
                chunk = suite.cases[start : start + chunk_size]
                writer.write(chunk)
                index.add(chunk)
            index.compact()
            return StagedSuite(index, path, suite.cases, source=suite.source, sha256=suite.sha256)
        for chunk in iter_suite(suite, chunk_size=chunk_size):
            writer.write(chunk)
            index.add(chunk)
    index.compact()
    return StagedSuite(index, path, None, source=str(suite), sha256=sha256_file(Path(suite)))
