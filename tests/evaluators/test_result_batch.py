"""The columnar result batch: range checks per column, placement, lazy columns, pickling."""

from __future__ import annotations

import math
import pickle
from collections.abc import Sequence
from functools import partial

import numpy as np
import pytest

from assay import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec, Outcome, Status
from assay.evaluators.batch import (
    ABSENT,
    ERROR,
    OK,
    BatchBuilder,
    LazyColumn,
    ResultBatch,
)

SPECS = (
    MetricSpec("a", "a value in [0, 1]"),
    MetricSpec("b", "a value in [-1, 1]", range=(-1.0, 1.0)),
    MetricSpec("c", "a corpus value", aggregation="corpus"),
)
NAMES = [s.name for s in SPECS]


def _square(values: Sequence[float], index: int) -> str:
    return f"{values[index] ** 2:.2f}"


def test_checked_turns_bad_values_into_errors_and_clips_rounding() -> None:
    values = np.array([[0.5, 1.0000000001, np.nan], [math.nan, -3.0, np.nan],
                       [1.5, math.inf, np.nan], [-1e-7, 0.0, np.nan]])
    batch = ResultBatch.scored(NAMES, values[:, :2], [None] * 4, [{}] * 4).checked(SPECS, "demo")
    assert batch.values[0, 1] == 1.0 and batch.status[0, 1] == OK  # float rounding: clipped
    assert batch.values[3, 0] == 0.0 and batch.status[3, 0] == OK
    assert batch[1].outcomes["a"] == Outcome(Status.ERROR, None, "non-finite value nan")
    assert batch[1].outcomes["b"].reason == "value -3.0 outside declared range [-1.0, 1.0]"
    assert batch[2].outcomes["a"].reason == "value 1.5 outside declared range [0.0, 1.0]"
    assert batch[2].outcomes["b"].reason == "non-finite value inf"
    assert "c" not in batch[0].outcomes  # a corpus metric is not reported per case
    assert np.isnan(batch.values[batch.status == ERROR]).all()


def test_a_per_case_metric_not_reported_is_an_error_with_the_evaluator_named() -> None:
    batch = ResultBatch.of(NAMES, [CaseResult.ok({"a": 0.5})]).checked(SPECS, "demo")
    assert batch[0].outcomes["b"] == Outcome(Status.ERROR, None, "demo did not report b")
    assert batch[0].outcomes["a"].value == 0.5 and "c" not in batch[0].outcomes


def test_of_and_indexing_round_trip_case_results() -> None:
    results = [
        CaseResult.ok({"a": 0.25, "b": -0.5}, "why", {"n": 1}),
        CaseResult.skipped(["a", "b"], "no answer"),
        CaseResult({"a": Outcome(Status.OK, 1.0), "b": Outcome(Status.ERROR, None, "boom")}),
    ]
    batch = ResultBatch.of(NAMES, results)
    assert [(r.outcomes, r.explanation, r.details) for r in batch] == [
        (r.outcomes, r.explanation, r.details) for r in results]
    assert batch.column("b")[0] == -0.5 and math.isnan(batch.column("b")[1])
    assert ResultBatch.of(NAMES, batch) is batch


def test_stack_and_take_place_rows_and_keep_lazy_columns_lazy() -> None:
    calls: list[int] = []

    def explain(index: int) -> str:
        calls.append(index)
        return f"row {index}"

    scored = ResultBatch.scored(["a"], np.array([[0.1], [0.2]]), LazyColumn(2, explain),
                                [{}, {"k": 1}])
    skipped = ResultBatch.uniform(["a"], 1, Status.SKIPPED, "missing")
    whole = ResultBatch.stack(3, [([0, 2], scored), ([1], skipped)])
    assert whole.values[:, 0].tolist()[::2] == [0.1, 0.2]
    assert [r.explanation for r in whole] == ["row 0", None, "row 1"]
    calls.clear()
    part = whole.take([2])
    assert not calls and part[0].details == {"k": 1} and part[0].outcomes["a"].value == 0.2


def test_builder_places_scored_and_unscored_cases_in_order() -> None:
    builder = BatchBuilder(NAMES)
    builder.ok((0.5, 0.0), "first")
    builder.not_scored(Status.ERROR, "bad ids")
    builder.ok((1.0, -1.0))
    builder.not_scored(Status.SKIPPED, "nothing relevant")
    values = [0.5, 1.0]
    batch = builder.build(LazyColumn(2, partial(_square, values)))
    assert [r.explanation for r in batch] == ["0.25", None, "1.00", None]
    assert batch[1].outcomes["a"].status is Status.ERROR
    assert batch[3].outcomes["b"].reason == "nothing relevant"
    # a scored case does not report the corpus metric; an unscored one reports every metric
    # unscored, as CaseResult.skipped / error over metric_names() did
    assert batch.status[:, 2].tolist() == [ABSENT, ERROR, ABSENT, 1]
    shipped = pickle.loads(pickle.dumps(batch))  # a LazyColumn over a partial travels
    assert [r.explanation for r in shipped] == ["0.25", None, "1.00", None]


class _Flaky(Evaluator):
    name = "flaky_demo"
    family = "demo"
    description = "raises on a batch"
    metrics = (MetricSpec("x", "x"),)
    requires = ("actual_answer",)

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        raise RuntimeError("model unavailable")


def test_evaluate_skips_missing_fields_and_reports_a_failing_batch() -> None:
    cases = [TestCase(id="1", actual_answer="a"), TestCase(id="2"), TestCase(id="3",
                                                                             actual_answer="b")]
    batch = _Flaky().evaluate(cases)
    assert [r.outcomes["x"].status for r in batch] == [Status.ERROR, Status.SKIPPED,
                                                       Status.ERROR]
    assert batch[0].outcomes["x"].reason == "RuntimeError: model unavailable"
    assert batch[1].outcomes["x"].reason == "missing required field(s): actual_answer"
    assert len(_Flaky().evaluate([])) == 0


def test_unequal_columns_are_refused() -> None:
    with pytest.raises(ValueError, match="unequal shape"):
        ResultBatch.scored(["a"], np.zeros((2, 1)), [None], [{}])


def test_the_cyclic_collector_is_back_after_scoring_and_left_off_when_it_was_off() -> None:
    import gc

    from assay.evaluators import get_evaluator
    from assay.evaluators.batch import without_cyclic_gc

    case = TestCase(id="1", actual_answer="The fee is 12 euros.", expected_answer="12 euros",
                    context_ids=["a"], relevant_ids={"a": 1})
    assert gc.isenabled()
    for name in ("bleu", "retrieval"):
        assert get_evaluator(name).evaluate([case])[0].outcomes
        assert gc.isenabled(), name
    with pytest.raises(RuntimeError), without_cyclic_gc():
        raise RuntimeError("a failing loop")
    assert gc.isenabled()
    gc.disable()
    try:
        with without_cyclic_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_every_row_sequence_indexes_slices_and_iterates_alike() -> None:
    batch = ResultBatch.scored(["a"], np.array([[0.1], [0.2], [0.3]]), ["x", "y", "z"],
                               [{}, {}, {}])
    picked = batch.take([2, 0, 1])
    sequences: list[Sequence[object]] = [LazyColumn(3, str), picked.explanations, batch]
    for rows in sequences:
        assert len(rows) == 3 and list(rows) == [rows[0], rows[1], rows[2]]
        assert rows[-1] == rows[2] and rows[-3] == rows[0] and list(rows[1:]) == [rows[1], rows[2]]
        for outside in (3, -4):
            with pytest.raises(IndexError):
                rows[outside]
    assert list(picked.explanations) == ["z", "x", "y"]
    assert [r.outcomes["a"].value for r in batch[::-1]] == [0.3, 0.2, 0.1]
