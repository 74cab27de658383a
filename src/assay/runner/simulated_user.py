"""A simulated user: the next user turn of a conversation, written by the judge LLM from the
case's ``scenario`` (persona and goal) and ``expected_outcome``.

The simulator sees the transcript so far and replies ``{"goal_met", "stop", "message"}``: the
conversation ends when it says the goal is met, when it stops (the user gives up), or at the
runner's ``max_turns``. Every call goes through the one :class:`~assay.backends.llm.client.Judge`
client (retries, rate limits, cache) and the one prompt loader (``assay/runner/prompts``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from assay.backends.llm.client import JsonTask, Judge
from assay.backends.llm.prompts import build_request
from assay.backends.llm.scripted import TASK_REPLIES
from assay.data.case import TestCase
from assay.data.dialogue import Turn, transcript
from assay.errors import JudgeParseError
from assay.evaluators.judge_tasks import as_flag, object_schema

#: The task name of simulated user turns (and of their prompt file).
TASK = "simulate_user"
SCHEMA = object_schema({
    "goal_met": {"type": ["boolean", "integer", "string"]},
    "stop": {"type": ["boolean", "integer", "string"]},
    "message": {"type": "string"},
}, "goal_met", "stop", "message")
_OPENING = "(no messages yet: write the user's opening message)"
TASK_REPLIES.register_lazy(TASK, "assay.runner.scripted:simulate_user_reply")


@dataclass(frozen=True)
class UserTurn:
    """What the simulated user does next: a ``message``, or stop with ``stop_reason``
    (``goal_met`` or ``user_stopped``)."""

    message: str | None
    stop_reason: str | None = None


def _interpret(value: Any) -> UserTurn:
    if not isinstance(value, dict):
        raise JudgeParseError(f"expected a JSON object; got {type(value).__name__}")
    if as_flag(value.get("goal_met"), "goal_met"):
        return UserTurn(None, "goal_met")
    if as_flag(value.get("stop"), "stop"):
        return UserTurn(None, "user_stopped")
    message = value.get("message")
    if not isinstance(message, str) or not message.strip():
        raise JudgeParseError("message must be the user's next message when neither goal_met "
                              "nor stop is true")
    return UserTurn(message.strip())


def simulate_request(case: TestCase, history: Sequence[Turn], max_turns: int) -> JsonTask:
    """The judge task asking for the next user turn of ``case`` after ``history``.

    Example:
        >>> task = simulate_request(TestCase(id="c", scenario="Asks the card fee."), [], 4)
        >>> task.request.task, "Asks the card fee." in task.request.prompt_text
        ('simulate_user', True)
    """
    replies = [t.content for t in history if t.role == "assistant"]
    variables = {
        "scenario": case.scenario or "",
        "expected_outcome": case.expected_outcome or "(not stated: pursue the scenario's goal)",
        "conversation": transcript(history) if history else _OPENING,
        "user_turns": str(sum(t.role == "user" for t in history)),
        "max_turns": str(max_turns),
    }
    extra = {"last_reply": replies[-1] if replies else "", "outcome": case.expected_outcome or ""}
    request = build_request(TASK, variables, SCHEMA, package="assay.runner", extra=extra)
    return JsonTask(request, _interpret)


class SimulatedUser:
    """Writes user turns through ``judge``.

    Example:
        >>> from assay.backends.llm.scripted import ScriptedJudge
        >>> user = SimulatedUser(Judge(ScriptedJudge()))
        >>> case = TestCase(id="c", scenario="Asks the card fee.", expected_outcome="12 euros")
        >>> user.next_turn(case, [], max_turns=3)
        UserTurn(message='Asks the card fee?', stop_reason=None)
    """

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    def next_turn(self, case: TestCase, history: Sequence[Turn], max_turns: int) -> UserTurn:
        """The next user turn, or why the conversation stops.

        Raises:
            JudgeParseError: the simulator's reply was unusable (after the client's retry) or
                the judge call failed; the conversation runner records it as the case's error.
        """
        outcome = self.judge.complete_json([simulate_request(case, history, max_turns)])[0]
        if not outcome.ok:
            raise JudgeParseError(f"simulated user: {outcome.error}")
        value: UserTurn = outcome.value
        return value
