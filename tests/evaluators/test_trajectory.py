"""Trajectory metrics: hand-computed values, skipped metrics with reasons, the conformance check."""

from __future__ import annotations

import pytest

from assay.agents.trajectory import error_recovery, tool_precision_recall
from assay.data import TestCase, ToolCall, Trajectory
from assay.evaluators.base import Status
from assay.evaluators.registry import get_evaluator
from assay.testing.conformance import check_evaluator

EXPECTED = [
    ToolCall(name="get_rate", arguments={"pair": "EURUSD"}),
    ToolCall(name="multiply", arguments={"a": 100}),
]


def _case(steps: list[ToolCall], final: str | None = "It is 108 USD.", **kw: object) -> TestCase:
    traj = Trajectory(steps=steps, final_answer=final, expected_tools=EXPECTED)
    return TestCase(id="t", trajectory=traj, expected_outcome="108 USD", **kw)


def test_good_trajectory_scores_one_everywhere_applicable() -> None:
    steps = [
        ToolCall(name="get_rate", arguments={"pair": "eurusd"}, error="timeout"),
        ToolCall(name="get_rate", arguments={"pair": "EURUSD"}, result=1.08),
        ToolCall(name="multiply", arguments={"a": 100.0, "b": 1.08}, result=108.0),
    ]
    result = get_evaluator("trajectory").evaluate([_case(steps)])[0]
    values = {k: o.value for k, o in result.outcomes.items()}
    assert values == {
        "tool_precision": pytest.approx(2 / 3),
        "tool_recall": 1.0,
        "argument_correctness": 1.0,
        "step_efficiency": pytest.approx(2 / 3),
        "error_recovery": 1.0,
        "task_completion": 1.0,
    }


def test_wrong_arguments_missing_tool_and_wrong_outcome() -> None:
    steps = [
        ToolCall(name="get_rate", arguments={"pair": "GBPUSD"}, result=1.27),
        ToolCall(name="search", arguments={"q": "rate"}, error="denied"),
        ToolCall(name="search", arguments={"q": "rate"}, error="denied"),
    ]
    result = get_evaluator("trajectory").evaluate([_case(steps, final="127 USD")])[0]
    values = {k: o.value for k, o in result.outcomes.items()}
    assert values["tool_precision"] == pytest.approx(1 / 3)
    assert values["tool_recall"] == 0.5
    assert values["argument_correctness"] == 0.0
    assert values["error_recovery"] == 0.0
    assert values["task_completion"] == 0.0
    assert result.details["unrecovered_steps"] == [2, 3]


def test_order_aware_option() -> None:
    steps = [ToolCall(name="multiply"), ToolCall(name="get_rate")]
    unordered = tool_precision_recall(steps, EXPECTED)
    ordered = tool_precision_recall(steps, EXPECTED, ordered=True)
    assert unordered == (1.0, 1.0)
    assert ordered == (0.5, 0.5)
    result = get_evaluator("trajectory", ordered=True).evaluate([_case(steps)])[0]
    assert result.outcomes["tool_recall"].value == 0.5


def test_missing_expectations_are_skipped_with_reasons() -> None:
    case = TestCase(id="t", trajectory=Trajectory(steps=[ToolCall(name="a", result=1)]))
    result = get_evaluator("trajectory").evaluate([case, TestCase(id="plain")])
    for outcome in result[0].outcomes.values():
        assert outcome.status is Status.SKIPPED and outcome.reason
    assert result[1].outcomes["tool_recall"].reason == "the case has no trajectory"


def test_identical_retry_after_error_that_then_succeeds_counts_as_recovered() -> None:
    steps = [ToolCall(name="fx", error="timeout"), ToolCall(name="fx", result=1.0)]
    assert error_recovery(steps) == (1.0, [])
    assert error_recovery([ToolCall(name="fx", error="x")]) == (0.0, [1])


def test_conformance_with_trajectory_cases() -> None:
    steps = [ToolCall(name="get_rate", arguments={"pair": "EURUSD"}, result=1.08)]
    check_evaluator(get_evaluator("trajectory"), [_case(steps), TestCase(id="plain")])
