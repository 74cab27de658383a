"""The common contract, checked over every registered evaluator (DESIGN §10)."""

from __future__ import annotations

import pytest

from assay.evaluators import evaluator_class, evaluator_names
from assay.testing import check_evaluator, with_test_doubles


@pytest.mark.parametrize("name", evaluator_names())
def test_evaluator_conforms(name: str) -> None:
    check_evaluator(with_test_doubles(evaluator_class(name)))


@pytest.mark.parametrize("name", evaluator_names())
def test_declaration_is_complete(name: str) -> None:
    cls = evaluator_class(name)
    assert cls.description and cls.family
    assert sum(m.primary for m in cls.metrics) <= 1, "at most one primary metric"
    for metric in cls.metrics:
        low, high = metric.range
        assert low < high
        if metric.threshold is not None:
            assert low <= metric.threshold <= high, f"{metric.name}: threshold outside range"
        assert metric.aggregation in ("mean", "corpus")


def test_registry_lists_core_evaluators() -> None:
    assert {"exact_match", "token_f1"} <= set(evaluator_names())
