"""The local executor: batches evaluated one after another in this process (the default)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, ResultBatch


class LocalExecutor:
    """Evaluate batches in-process, in order.

    Example:
        >>> from assay import TestCase
        >>> from assay.evaluators import get_evaluator
        >>> batches = [[TestCase(id="1", actual_answer="a", expected_answer="a")]]
        >>> [(i, r[0].outcomes["exact_match"].value)
        ...  for i, _, r in LocalExecutor().map_batches(get_evaluator("exact_match"), batches)]
        [(0, 1.0)]
    """

    name = "local"

    def start(self) -> None:
        """Nothing to start."""

    def map_batches(
        self, evaluator: Evaluator, batches: Iterable[list[TestCase]]
    ) -> Iterator[tuple[int, list[TestCase], ResultBatch]]:
        """Yield ``(index, batch, evaluator.evaluate(batch))`` for each batch in turn."""
        for index, batch in enumerate(batches):
            yield index, batch, evaluator.evaluate(batch)

    def close(self) -> None:
        """Nothing to release."""

    def describe(self) -> dict[str, Any]:
        """``{"name": "local"}``."""
        return {"name": self.name}
