"""Conversation turns and agent trajectories carried by a :class:`~assay.data.case.TestCase`.

A conversation is a list of :class:`Turn` (role, content, optional retrieved context and tool
calls). A trajectory is the ordered tool calls an agent made (:class:`ToolCall`: name, arguments,
result or error), its final answer, and optionally what was expected of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """One tool call: the tool's name, its arguments and its result (or error).

    Example:
        >>> ToolCall(name="get_rate", arguments={"currency": "EUR"}, result=0.031).name
        'get_rate'
    """

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None


class Turn(BaseModel):
    """One turn of a conversation.

    Example:
        >>> Turn(role="user", content="What is my balance?").role
        'user'
    """

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str = ""
    retrieved_context: list[str] | None = None
    tool_calls: list[ToolCall] | None = None


class Trajectory(BaseModel):
    """What an agent did (``steps``, ``final_answer``) and what was expected of it.

    ``expected_tools`` lists the expected calls in order; an expected call's ``arguments`` are
    checked only for the keys it gives. ``min_steps`` is the least number of steps the task needs
    (defaults to the number of expected calls where those are given).

    Example:
        >>> call = ToolCall(name="search")
        >>> t = Trajectory(steps=[call], expected_tools=[call])
        >>> t.minimal_steps
        1
    """

    model_config = ConfigDict(extra="forbid")

    steps: list[ToolCall] = Field(default_factory=list)
    final_answer: str | None = None
    expected_tools: list[ToolCall] | None = None
    min_steps: int | None = Field(default=None, ge=0)

    @property
    def minimal_steps(self) -> int | None:
        """``min_steps`` if given, else the number of expected calls, else None."""
        if self.min_steps is not None:
            return self.min_steps
        return None if self.expected_tools is None else len(self.expected_tools)


def transcript(turns: Sequence[Turn]) -> str:
    """The conversation as numbered ``[turn n] ROLE: content`` lines (as judges and simulated
    users are shown it).

    Example:
        >>> transcript([Turn(role="user", content="Fee?"), Turn(role="assistant", content="12.")])
        '[turn 1] USER: Fee?\\n[turn 2] ASSISTANT: 12.'
    """
    return "\n".join(f"[turn {n}] {t.role.upper()}: {t.content}" for n, t in enumerate(turns, 1))
