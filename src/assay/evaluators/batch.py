"""Columnar outcomes: what an evaluator's batch becomes, one column per metric (design note 0036).

:meth:`Evaluator.evaluate <assay.evaluators.base.Evaluator.evaluate>` returns a
:class:`ResultBatch`: a value matrix (NaN where a metric was not computed), a status matrix, a
reason matrix, and an explanation and a details column. It is a ``Sequence[CaseResult]`` too, so
``evaluate(cases)[0].outcomes["bleu1"].value`` reads as before; the case result is built only when
asked for. The engine reads the columns: the range check runs once per metric column, and result
rows are made from the columns without a per-case object in between.

An evaluator whose per-case Python is a visible share of its time (lexical, retrieval) builds its
batch directly (:meth:`ResultBatch.scored`, :meth:`ResultBatch.uniform`, :meth:`ResultBatch.stack`),
with explanations and details as a :class:`LazyColumn` filled when a row is read. Evaluators whose
cost is a model call keep returning one :class:`~assay.evaluators.base.CaseResult` per case;
:meth:`ResultBatch.of` turns them into the same columns.
"""

from __future__ import annotations

import gc
import math
from abc import abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import numpy as np

from assay.evaluators.outcomes import CaseResult, MetricSpec, Outcome, Status

T = TypeVar("T")

#: Status codes of :attr:`ResultBatch.status`, in :class:`Status` order; ``ABSENT`` marks a
#: ``corpus`` metric that a case does not report (no result row).
OK, SKIPPED, ERROR, ABSENT = 0, 1, 2, 3
STATUSES = (Status.OK, Status.SKIPPED, Status.ERROR)
_CODE = {status: code for code, status in enumerate(STATUSES)}

#: Relative tolerance of the range check: float32 arithmetic (embedding models) rounds to about
#: 6e-8, so a cosine of 1.0000000271 is a rounding of 1, not an out-of-range value.
RANGE_TOLERANCE = 1e-6


class Rows(Sequence[T]):
    """A sequence known by its length and how to read one row: the index checks, the slices and
    the iteration of :class:`LazyColumn`, the picked rows of a column and :class:`ResultBatch`
    are written here once (each of them wrote its own ``__getitem__`` before)."""

    @abstractmethod
    def __len__(self) -> int:
        """The number of rows."""

    @abstractmethod
    def _row(self, i: int) -> T:
        """Row ``i``, with ``0 <= i < len(self)``."""

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[T]: ...

    def __getitem__(self, index: int | slice) -> T | Sequence[T]:
        n = len(self)
        if isinstance(index, slice):
            return [self._row(i) for i in range(n)[index]]
        if not -n <= index < n:
            raise IndexError(index)
        return self._row(index % n)

    def __iter__(self) -> Iterator[T]:
        return (self._row(i) for i in range(len(self)))


class LazyColumn(Rows[T]):
    """A column whose row ``i`` is ``fill(i)``, computed when read (not kept).

    ``fill`` must be picklable (a module-level function or a :func:`functools.partial` of one
    over plain data) when batches travel to other processes (the Ray executor).

    Example:
        >>> column = LazyColumn(3, str)
        >>> len(column), column[2], column[-1], column[:2], list(column)
        (3, '2', '2', ['0', '1'], ['0', '1', '2'])
    """

    def __init__(self, n: int, fill: Callable[[int], T]) -> None:
        self.n = n
        self.fill = fill

    def __len__(self) -> int:
        return self.n

    def _row(self, i: int) -> T:
        return self.fill(i)


class _Picked(Rows[T]):
    """Rows ``positions`` of ``column``, read through when asked for."""

    def __init__(self, column: Sequence[T], positions: Sequence[int]) -> None:
        self.column = column
        self.positions = positions

    def __len__(self) -> int:
        return len(self.positions)

    def _row(self, i: int) -> T:
        return self.column[self.positions[i]]


@dataclass(eq=False, repr=False)
class ResultBatch(Rows[CaseResult]):
    """The outcomes of one evaluator on ``n`` cases, column by column.

    Attributes:
        metrics: the metric names, the columns of the matrices.
        values: float64 ``(n, len(metrics))``; NaN wherever the status is not ok.
        status: uint8 ``(n, len(metrics))`` codes :data:`OK`, :data:`SKIPPED`, :data:`ERROR`,
            :data:`ABSENT`.
        reasons: object ``(n, len(metrics))``: why a metric is skipped or in error, else None.
        explanations: one human-readable explanation (or None) per case.
        details: one JSON-serialisable dict per case (empty when there is nothing to show).

    Example:
        >>> batch = ResultBatch.scored(["a", "b"], np.array([[0.5, 1.0]]), ["fine"], [{}])
        >>> batch[0].outcomes["b"].value, batch[0].explanation, len(batch)
        (1.0, 'fine', 1)
        >>> ResultBatch.uniform(["a"], 2, Status.SKIPPED, "no answer")[1].outcomes["a"].reason
        'no answer'
    """

    metrics: Sequence[str]
    values: np.ndarray
    status: np.ndarray
    reasons: np.ndarray
    explanations: Sequence[str | None]
    details: Sequence[dict[str, Any]]

    def __post_init__(self) -> None:
        self.metrics = tuple(self.metrics)
        shape = (len(self.explanations), len(self.metrics))
        if not (self.values.shape == self.status.shape == self.reasons.shape == shape
                and len(self.details) == shape[0]):
            raise ValueError(f"columns of unequal shape: {self.values.shape}, {self.status.shape}, "
                             f"{self.reasons.shape}, {len(self.explanations)}, "
                             f"{len(self.details)} cases")

    # -- building ------------------------------------------------------------------------
    @classmethod
    def scored(
        cls,
        metrics: Sequence[str],
        values: np.ndarray,
        explanations: Sequence[str | None],
        details: Sequence[dict[str, Any]],
    ) -> ResultBatch:
        """Every metric computed for every case (``values``: one row per case). When ``values``
        has fewer columns than ``metrics``, the metrics past them are not reported per case
        (:data:`ABSENT`: ``corpus`` metrics, declared last)."""
        given = np.asarray(values, dtype=np.float64)
        shape = (given.shape[0], len(metrics))
        status = np.zeros(shape, np.uint8)
        if given.shape[1] < shape[1]:
            values = np.full(shape, np.nan)
            values[:, : given.shape[1]] = given
            status[:, given.shape[1]:] = ABSENT
        else:
            values = given
        return cls(metrics, values, status, np.full(shape, None, object), explanations, details)

    @classmethod
    def uniform(cls, metrics: Sequence[str], n: int, status: Status, reason: str) -> ResultBatch:
        """``n`` cases with every metric skipped or in error, for ``reason``."""
        if status is Status.OK or not reason:
            raise ValueError("a uniform batch is skipped or in error, with a reason")
        shape = (n, len(metrics))
        return cls(metrics, np.full(shape, np.nan), np.full(shape, _CODE[status], np.uint8),
                   np.full(shape, reason, object), [None] * n, [{} for _ in range(n)])

    @classmethod
    def of(cls, metrics: Sequence[str], results: Sequence[CaseResult]) -> ResultBatch:
        """The columns of ``results`` (a batch itself is returned as it is); a metric a result
        does not report is :data:`ABSENT`."""
        if isinstance(results, ResultBatch):
            return results
        shape = (len(results), len(metrics))
        values = np.full(shape, np.nan)
        status = np.full(shape, ABSENT, np.uint8)
        reasons = np.full(shape, None, object)
        ok, code = Status.OK, _CODE
        for i, result in enumerate(results):
            outcomes = result.outcomes
            for j, name in enumerate(metrics):
                outcome = outcomes.get(name)
                if outcome is None:
                    continue
                if outcome.status is ok:
                    status[i, j] = OK
                    values[i, j] = outcome.value
                else:
                    status[i, j] = code[outcome.status]
                    reasons[i, j] = outcome.reason
        return cls(metrics, values, status, reasons, [r.explanation for r in results],
                   [r.details for r in results])

    @classmethod
    def stack(cls, n: int, parts: Sequence[tuple[Sequence[int], ResultBatch]]) -> ResultBatch:
        """One batch of ``n`` cases from ``parts``: ``(positions, batch)`` pairs that together
        place every position once (explanations and details are read here)."""
        metrics = parts[0][1].metrics
        shape = (n, len(metrics))
        values, status = np.full(shape, np.nan), np.full(shape, ABSENT, np.uint8)
        reasons = np.full(shape, None, object)
        explanations: list[str | None] = [None] * n
        details: list[dict[str, Any]] = [{} for _ in range(n)]
        for positions, part in parts:
            index = np.asarray(positions, dtype=np.intp)
            values[index], status[index], reasons[index] = part.values, part.status, part.reasons
            for k, position in enumerate(positions):
                explanations[position], details[position] = part.explanations[k], part.details[k]
        return cls(metrics, values, status, reasons, explanations, details)

    def take(self, positions: Sequence[int]) -> ResultBatch:
        """The cases at ``positions``, in that order (explanations and details still lazy)."""
        if len(positions) == len(self) and all(i == p for i, p in enumerate(positions)):
            return self
        index = np.asarray(positions, dtype=np.intp)
        return ResultBatch(self.metrics, self.values[index], self.status[index],
                           self.reasons[index], _Picked(self.explanations, positions),
                           _Picked(self.details, positions))

    # -- checking ------------------------------------------------------------------------
    def checked(self, specs: Sequence[MetricSpec], evaluator: str) -> ResultBatch:
        """Validate column by column, in place: a non-``corpus`` metric a case does not report
        is an error; a non-finite value or one outside the declared range is an error with the
        reason, one within float rounding of a bound (:data:`RANGE_TOLERANCE`) is clipped."""
        for j, spec in enumerate(specs):
            status, values = self.status[:, j], self.values[:, j]
            if spec.aggregation != "corpus":
                self._fail(j, status == ABSENT, f"{evaluator} did not report {spec.name}")
            low, high = spec.range
            with np.errstate(invalid="ignore"):
                outside = (status == OK) & ~((values >= low) & (values <= high))
            if not outside.any():
                continue
            finite = np.isfinite(values)
            self._fail(j, outside & ~finite, "non-finite value {}")
            near = (values >= low - _slack(low)) & (values <= high + _slack(high))
            values[outside & near] = np.clip(values[outside & near], low, high)
            self._fail(j, outside & finite & ~near,
                       f"value {{}} outside declared range [{low}, {high}]")
        return self

    def _fail(self, column: int, rows: np.ndarray, reason: str) -> None:
        """Turn ``rows`` of ``column`` into errors; ``{}`` in ``reason`` is the value."""
        for i in np.flatnonzero(rows):
            self.reasons[i, column] = reason.format(float(self.values[i, column]))
            self.status[i, column], self.values[i, column] = ERROR, np.nan

    # -- reading -------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.explanations)

    def _row(self, i: int) -> CaseResult:
        status, values, reasons = self.status[i], self.values[i], self.reasons[i]
        outcomes: dict[str, Outcome] = {}
        for j, name in enumerate(self.metrics):
            code = status[j]
            if code == OK:
                outcomes[name] = Outcome(Status.OK, float(values[j]))
            elif code != ABSENT:
                outcomes[name] = Outcome(STATUSES[code], None, reasons[j])
        return CaseResult(outcomes, self.explanations[i], self.details[i])

    def column(self, metric: str) -> np.ndarray:
        """The values of ``metric`` (NaN where not ok)."""
        return self.values[:, self.metrics.index(metric)]


def _slack(bound: float) -> float:
    """How far past ``bound`` a value may lie and still count as float rounding (then clipped)."""
    return 0.0 if math.isinf(bound) else RANGE_TOLERANCE * max(1.0, abs(bound))


class BatchBuilder:
    """A :class:`ResultBatch` built case by case, in case order, without a
    :class:`~assay.evaluators.base.CaseResult` per case: each case is either scored (one value
    per metric, in metric order) or not scored (a status and a reason).

    Example:
        >>> builder = BatchBuilder(["a", "b"])
        >>> builder.ok((0.5, 1.0), "fine")
        >>> builder.not_scored(Status.SKIPPED, "no answer")
        >>> batch = builder.build()
        >>> batch.values[0].tolist(), batch[1].outcomes["b"].reason, batch[0].explanation
        ([0.5, 1.0], 'no answer', 'fine')
    """

    def __init__(self, metrics: Sequence[str]) -> None:
        self.metrics = tuple(metrics)
        self.n = 0
        self.rows: list[Sequence[float]] = []
        self.scored: list[int] = []
        self.explanations: list[str | None] = []
        self.details: list[dict[str, Any]] = []
        self.unscored: dict[tuple[Status, str], list[int]] = {}

    def ok(
        self,
        values: Sequence[float],
        explanation: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        """The next case, scored: ``values`` in metric order (the same number for every case;
        metrics past them are ``corpus`` metrics, not reported per case)."""
        self.scored.append(self.n)
        self.rows.append(values)
        self.explanations.append(explanation)
        self.details.append({} if details is None else details)
        self.n += 1

    def not_scored(self, status: Status, reason: str) -> None:
        """The next case, skipped or in error for ``reason`` (every metric)."""
        self.unscored.setdefault((status, reason), []).append(self.n)
        self.n += 1

    def build(
        self,
        explanations: Sequence[str | None] | None = None,
        details: Sequence[dict[str, Any]] | None = None,
    ) -> ResultBatch:
        """The batch; ``explanations`` / ``details`` (e.g. a :class:`LazyColumn`, one entry per
        scored case) replace those given to :meth:`ok`."""
        k = len(self.rows)
        scored = ResultBatch.scored(
            self.metrics,
            np.array(self.rows, dtype=np.float64).reshape(k, -1) if k
            else np.empty((0, len(self.metrics))),
            self.explanations if explanations is None else explanations,
            self.details if details is None else details,
        )
        if not self.unscored:
            return scored
        parts = [(positions, ResultBatch.uniform(self.metrics, len(positions), status, reason))
                 for (status, reason), positions in self.unscored.items()]
        return ResultBatch.stack(self.n, [(self.scored, scored), *parts] if k else parts)


@contextmanager
def without_cyclic_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector around a loop that allocates many objects but no
    reference cycles (n-gram counters, result rows): a collection there can free nothing, yet
    the allocations keep triggering collections that rescan every live object (about 40 % of
    the time of building 120,000 result rows, 11 % of BLEU's scoring). Reference counting frees
    as usual meanwhile; the collector is re-enabled after (when it was enabled before).

    Example:
        >>> with without_cyclic_gc():
        ...     gc.isenabled()
        False
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
