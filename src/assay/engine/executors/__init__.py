"""Executors: where :meth:`Evaluator.evaluate` runs over a suite's batches.

:func:`assay.evaluate` keeps everything stateful in the driver (the result writer, the leaderboard,
corpus accumulators, findings); an executor only maps ``evaluator.evaluate`` over the batches and
yields ``(batch_index, batch, results)`` **in batch order**, so the run directory is the same
whichever executor computed it. ``"local"`` (the default) runs in-process;
``"ray"`` spreads batches over a Ray cluster (:mod:`assay.engine.executors.ray_executor`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

from assay.data.case import TestCase
from assay.engine.executors.local import LocalExecutor
from assay.errors import InvalidInputError
from assay.evaluators.base import Evaluator, ResultBatch
from assay.registry import GROUPS, Registry

#: One evaluated batch: its index in the evaluator's batch sequence, its cases and their results.
BatchResult = tuple[int, list[TestCase], ResultBatch]

#: Executor classes by name (Ray imported on first use); plugins add theirs through the
#: entry-point group ``assay.executors`` (a class taking keyword options).
EXECUTORS: Registry[Callable[..., Executor]] = Registry("executor", GROUPS["executor"])
EXECUTORS.register("local", LocalExecutor)
EXECUTORS.register_lazy("ray", "assay.engine.executors.ray_executor:RayExecutor")


@runtime_checkable
class Executor(Protocol):
    """Maps ``evaluator.evaluate`` over batches; yields each batch once, in order."""

    name: str

    def start(self) -> None:
        """Acquire what the executor needs (a cluster connection); idempotent."""

    def map_batches(
        self, evaluator: Evaluator, batches: Iterable[list[TestCase]]
    ) -> Iterator[BatchResult]:
        """Evaluate every batch; yield ``(index, batch, results)`` in batch order."""
        ...

    def close(self) -> None:
        """Release workers and connections that :meth:`start` acquired."""

    def describe(self) -> dict[str, Any]:
        """JSON-serialisable settings (recorded in the run manifest)."""
        ...


def get_executor(spec: str | Executor = "local", **options: Any) -> Executor:
    """Build an executor from a name (``"local"`` or ``"ray"``) and options, or pass one through.

    Example:
        >>> get_executor("local").describe()
        {'name': 'local'}
        >>> get_executor("ray", address="auto", num_workers=2).describe()["num_workers"]
        2
    """
    if not isinstance(spec, str):
        if options:
            raise InvalidInputError(
                "executor options are given with an executor name, not an instance"
            )
        return spec
    build = EXECUTORS.get(spec)
    try:
        return build(**options)
    except TypeError:
        if options:
            raise InvalidInputError(
                f"the {spec} executor takes no options {', '.join(sorted(options))}"
            ) from None
        raise


@contextmanager
def open_executor(spec: str | Executor = "local", **options: Any) -> Iterator[Executor]:
    """Start an executor for the duration of a block; one built here from a name is closed after.

    Example:
        >>> with open_executor("local") as ex:
        ...     ex.name
        'local'
    """
    owned = isinstance(spec, str)
    executor = get_executor(spec, **options)
    executor.start()
    try:
        yield executor
    finally:
        if owned:
            executor.close()


__all__ = [
    "EXECUTORS",
    "BatchResult",
    "Executor",
    "LocalExecutor",
    "get_executor",
    "open_executor",
]
