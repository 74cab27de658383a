"""Splitting a suite into batches, keeping groups whole for grouped evaluators."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from assay.data.case import TestCase
from assay.evaluators.base import Evaluator


def batches(cases: Sequence[TestCase], evaluator: Evaluator, size: int) -> Iterator[list[TestCase]]:
    """Yield batches of about ``size`` cases; a grouped evaluator's groups are never split.

    Example:
        >>> from assay.evaluators import get_evaluator
        >>> cases = [TestCase(id=str(i)) for i in range(5)]
        >>> [len(b) for b in batches(cases, get_evaluator("exact_match"), 2)]
        [2, 2, 1]
    """
    if not evaluator.grouped:
        for start in range(0, len(cases), size):
            yield list(cases[start : start + size])
        return
    groups: dict[object, list[TestCase]] = {}
    for case in cases:
        groups.setdefault(evaluator.group_key(case), []).append(case)
    batch: list[TestCase] = []
    for group in groups.values():
        if batch and len(batch) + len(group) > size:
            yield batch
            batch = []
        batch.extend(group)
    if batch:
        yield batch
