"""Trajectory evaluator: judge-free tool-use metrics of an agent against what was expected.

The logic lives in :mod:`assay.agents.trajectory`; this module adapts it to the evaluator
contract. Every metric that lacks its expected value is ``skipped`` with a reason.
"""

from __future__ import annotations

from assay.agents.trajectory import (
    argument_correctness,
    error_recovery,
    outcome_matches,
    step_efficiency,
    tool_precision_recall,
)
from assay.data.case import TestCase
from assay.evaluators.base import CaseByCaseEvaluator, CaseResult, MetricSpec, Outcome
from assay.evaluators.registry import register
from assay.params import check


@register
class TrajectoryMetrics(CaseByCaseEvaluator):
    """Tool-call precision and recall, argument correctness, step efficiency, error recovery
    and task completion (expected outcome found in the final answer) of ``case.trajectory``.

    Args:
        ordered: Tool-call precision / recall count matches in order (longest common
            subsequence of tool names) instead of as a multiset.

    Example:
        >>> from assay.data import ToolCall, Trajectory
        >>> traj = Trajectory(steps=[ToolCall(name="fx", arguments={"pair": "EURUSD"})],
        ...                   final_answer="1.08", expected_tools=[ToolCall(name="fx")])
        >>> r = TrajectoryMetrics().evaluate([TestCase(id="a", trajectory=traj)])[0]
        >>> r.outcomes["tool_recall"].value, r.outcomes["task_completion"].status.value
        (1.0, 'skipped')
    """

    name = "trajectory"
    family = "agent"
    description = (
        "Judge-free agent trajectory metrics: tools used vs expected (precision, recall), "
        "argument values, steps vs minimal, recovery after tool errors, expected outcome reached."
    )
    metrics = (
        MetricSpec("tool_precision", "share of tool calls that were expected", threshold=1.0),
        MetricSpec("tool_recall", "share of expected tool calls made", threshold=1.0, primary=True),
        MetricSpec(
            "argument_correctness",
            "share of expected calls whose given arguments some call matched",
            threshold=1.0,
        ),
        MetricSpec("step_efficiency", "minimal steps / steps taken (capped at 1)", threshold=0.5),
        MetricSpec("error_recovery", "share of failed tool calls recovered from", threshold=1.0),
        MetricSpec(
            "task_completion", "1 when the expected outcome is in the final answer", threshold=1.0
        ),
    )
    reproducible = True
    extra = None

    def __init__(self, ordered: bool = False) -> None:
        check(isinstance(ordered, bool), "ordered", type(self).__name__, "a bool", ordered)
        self.ordered = ordered

    def score_case(self, case: TestCase) -> CaseResult:
        traj = case.trajectory
        if traj is None:
            return CaseResult.skipped(self.metric_names(), "the case has no trajectory")
        expected = traj.expected_tools
        no_expected = "the trajectory gives no expected_tools"
        precision, recall = (None, None)
        if expected is not None:
            precision, recall = tool_precision_recall(traj.steps, expected, ordered=self.ordered)
        recovery, unrecovered = error_recovery(traj.steps)
        completion = (
            None
            if case.expected_outcome is None
            else outcome_matches(traj.final_answer, case.expected_outcome)
        )
        outcomes = {
            "tool_precision": Outcome.ok_or_skipped(
                precision, no_expected if expected is None else "the agent called no tool"
            ),
            "tool_recall": Outcome.ok_or_skipped(
                recall, no_expected if expected is None else "no tool call was expected"
            ),
            "argument_correctness": Outcome.ok_or_skipped(
                None if expected is None else argument_correctness(traj.steps, expected),
                "no expected tool call gives arguments",
            ),
            "step_efficiency": Outcome.ok_or_skipped(
                step_efficiency(len(traj.steps), traj.minimal_steps),
                "neither min_steps nor expected_tools is given",
            ),
            "error_recovery": Outcome.ok_or_skipped(recovery, "no tool call failed"),
            "task_completion": Outcome.ok_or_skipped(
                completion, "the case has no expected_outcome"
            ),
        }
        used = ", ".join(s.name for s in traj.steps) or "none"
        explanation = f"{len(traj.steps)} steps (tools: {used})"
        if unrecovered:
            explanation += f"; unrecovered failed steps: {unrecovered}"
        return CaseResult(outcomes, explanation, {"unrecovered_steps": unrecovered})
