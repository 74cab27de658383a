"""Conversation runs: drive a multi-turn conversation against the system under test.

A case is a conversation when its ``turns`` hold user turns (a *script*: the user turns are sent
one by one, each with the history so far; assistant and tool turns of the input are replaced by
the target's replies) or when it has a ``scenario`` and no user turn (a *simulated user* writes
each user turn through the judge client, see :mod:`assay.runner.simulated_user`).

Each turn is one :func:`~assay.runner.execute.ask` of the connector, with the run's retries and
timeout, on a case whose ``turns`` end with the user turn and whose ``question`` is that turn
(:func:`~assay.runner.connectors.base.chat_messages`). After each answered turn ``on_turn``
receives the conversation so far, which the runner writes to the checkpoint, so an interrupted
conversation resumes from its last completed turn.

The answered case has ``turns`` filled, ``actual_answer`` the last reply, ``latency_s`` and
``cost_usd`` summed over turns, and ``metadata["run"]`` with the status, the tries, per-turn
latencies and why the conversation ended. A turn that fails after its retries ends the
conversation as an error: the case keeps its input turns (so no evaluator scores a conversation
cut short as if complete) and the turns reached are kept in ``metadata["run"]["partial_turns"]``.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from assay.data.case import RUN_TRUNCATED, TRUNCATED_REASON, TestCase
from assay.data.dialogue import Turn
from assay.errors import AssayError
from assay.runner.connectors.base import Connector
from assay.runner.execute import RunSettings, ask
from assay.runner.simulated_user import SimulatedUser

#: Called with the conversation so far after each completed turn.
TurnCallback = Callable[[TestCase], None]
#: Roles of the input that a conversation run keeps (the rest are the target's to write).
_SCRIPT_ROLES = ("system", "user")


def is_conversation(case: TestCase) -> bool:
    """Whether ``case`` is run as a conversation (scripted user turns, or a scenario to
    simulate).

    Example:
        >>> is_conversation(TestCase(id="q", question="Fee?"))
        False
        >>> is_conversation(TestCase(id="c", scenario="Asks the card fee."))
        True
    """
    return has_script(case) or case.scenario is not None


def has_script(case: TestCase) -> bool:
    """Whether ``case`` carries scripted user turns."""
    return any(t.role == "user" for t in case.turns or [])


def needs_simulator(case: TestCase) -> bool:
    """Whether ``case`` is a conversation whose user turns a simulated user writes."""
    return case.scenario is not None and not has_script(case)


def _script(case: TestCase, done: list[Turn]) -> list[Turn]:
    """The scripted system and user turns not yet sent, given the turns ``done``."""
    script = [t for t in case.turns or [] if t.role in _SCRIPT_ROLES]
    answered = sum(t.role == "user" for t in done)
    users = [i for i, t in enumerate(script) if t.role == "user"]
    if answered > len(users):
        return []
    return script[users[answered - 1] + 1 if answered else 0 :]


def _progress(case: TestCase, turns: list[Turn], run: dict[str, Any]) -> TestCase:
    """The conversation so far, as recorded after a completed turn."""
    return case.model_copy(
        update={"turns": list(turns), "metadata": {**case.metadata, "run": dict(run)}}
    )


class _Conversation:
    """The state of one conversation: its turns so far and the run record."""

    def __init__(self, case: TestCase, resume: TestCase | None) -> None:
        self.case = case
        previous = dict(resume.metadata.get("run", {})) if resume is not None else {}
        self.turns: list[Turn] = list(resume.turns or []) if resume is not None else []
        self.run: dict[str, Any] = {
            "status": "running",
            "attempts": int(previous.get("attempts", 0)),
            "turns": list(previous.get("turns", [])),
        }
        if previous:
            self.run["resumed_at_turn"] = len(self.turns) + 1
        self.usage: dict[str, int] = dict(previous.get("usage", {}))
        self.cost: float | None = previous.get("cost_usd")

    def add(self, answered: TestCase, number: int) -> None:
        """Append the assistant turn of ``answered`` (turn ``number``)."""
        self.turns.append(
            Turn(
                role="assistant",
                content=answered.actual_answer or "",
                retrieved_context=answered.retrieved_context
                if answered.retrieved_context != self.case.retrieved_context
                else None,
                tool_calls=answered.trajectory.steps  # the tools the target ran in this turn
                if answered.trajectory is not None
                and answered.trajectory != self.case.trajectory
                and answered.trajectory.steps
                else None,
            )
        )
        record = answered.metadata["run"]
        if record.get("truncated"):  # the reply stopped at the system's token limit
            self.run.setdefault("truncated_turns", []).append(number)
            if record["status"] == RUN_TRUNCATED:
                self.run["reason"] = f"turn {number}: {record.get('reason', TRUNCATED_REASON)}"
        self.run["attempts"] += record["attempts"]
        self.run["turns"].append(
            {"turn": number, "latency_s": answered.latency_s, "attempts": record["attempts"]}
        )
        for key, value in record.get("usage", {}).items():
            self.usage[key] = self.usage.get(key, 0) + value
        if answered.cost_usd is not None:
            self.cost = (self.cost or 0.0) + answered.cost_usd
        if self.usage:
            self.run["usage"] = dict(self.usage)
        if self.cost is not None:
            self.run["cost_usd"] = round(self.cost, 10)

    def finished(self, name: str, stop: str) -> TestCase:
        """The answered conversation."""
        run = {k: v for k, v in self.run.items() if k != "cost_usd"}
        run.update(status=RUN_TRUNCATED if "reason" in run else "ok", stop=stop)
        replies = [t.content for t in self.turns if t.role == "assistant"]
        latency = sum(t["latency_s"] or 0.0 for t in run["turns"])
        return self.case.model_copy(
            update={
                "model": name,
                "turns": list(self.turns),
                "actual_answer": replies[-1] if replies else None,
                "latency_s": round(latency, 6),
                "cost_usd": None if self.cost is None else round(self.cost, 10),
                "metadata": {**self.case.metadata, "run": run},
            }
        )

    def failed(self, name: str, kind: str, error: str, number: int) -> TestCase:
        """The conversation ended by a failure at turn ``number``: the input turns are kept."""
        run = {k: v for k, v in self.run.items() if k not in ("cost_usd", "usage")}
        run.update(status="error", error_kind=kind, error=f"turn {number}: {error}")
        run["partial_turns"] = [t.model_dump(exclude_none=True) for t in self.turns]
        return self.case.model_copy(
            update={
                "model": name,
                "actual_answer": None,
                "latency_s": None,
                "cost_usd": None,
                "metadata": {**self.case.metadata, "run": run},
            }
        )


def converse(
    connector: Connector,
    case: TestCase,
    settings: RunSettings,
    rng: random.Random | None = None,
    *,
    user: SimulatedUser | None = None,
    resume: TestCase | None = None,
    on_turn: TurnCallback | None = None,
    stop: threading.Event | None = None,
) -> TestCase:
    """Run the conversation of ``case`` against ``connector``; never raises for a failure of
    the target or of the simulated user.

    Args:
        connector: the system under test.
        case: a conversation case (:func:`is_conversation`).
        settings: retries and timeout per turn; ``max_turns`` bounds simulated conversations.
        rng: seeds the back-off jitter.
        user: the simulated user (required when :func:`needs_simulator`).
        resume: the latest partial record of this conversation: its turns are not asked again.
        on_turn: called with the conversation so far after each completed turn.
        stop: when set, no further turn is sent: the conversation ends as an ``interrupted``
            error (the runner sets it when the run is interrupted; the turns completed are in
            the checkpoint, and a resumed run continues from them).

    Example:
        >>> from assay.runner.connectors import CallableConnector
        >>> turns = [Turn(role="user", content="Hi"), Turn(role="user", content="Fee?")]
        >>> done = converse(CallableConnector(lambda messages: f"{len(messages)} seen", name="m"),
        ...                 TestCase(id="c", turns=turns), RunSettings())
        >>> [t.content for t in done.turns], done.metadata["run"]["stop"]
        (['Hi', '1 seen', 'Fee?', '3 seen'], 'script_end')
    """
    rng = rng or random.Random()
    state = _Conversation(case, resume)
    simulated = needs_simulator(case)
    if simulated and user is None:
        return state.failed(connector.name, "simulator", "no simulated user (judge) given", 1)
    pending = [] if simulated else _script(case, state.turns)
    if not state.turns and simulated:  # the input's system turns open a simulated conversation
        state.turns = [t for t in case.turns or [] if t.role == "system"]
    while True:
        if stop is not None and stop.is_set():
            return state.failed(connector.name, "interrupted", "the run was interrupted",
                                len(state.turns) + 1)
        if simulated:
            try:  # asked after the last turn too: was the goal met?
                step = user.next_turn(case, state.turns, settings.max_turns)  # type: ignore[union-attr]
            except AssayError as exc:
                return state.failed(connector.name, "simulator", str(exc), len(state.turns) + 1)
            if step.message is None:
                return state.finished(connector.name, step.stop_reason or "user_stopped")
            if sum(t.role == "user" for t in state.turns) >= settings.max_turns:
                return state.finished(connector.name, "max_turns")
            state.turns.append(Turn(role="user", content=step.message))
        else:
            while pending and pending[0].role == "system":
                state.turns.append(pending.pop(0))
            if not pending:
                return state.finished(connector.name, "script_end")
            state.turns.append(pending.pop(0))
        number = len(state.turns) + 1
        turn_case = case.model_copy(
            update={"question": state.turns[-1].content, "turns": list(state.turns),
                    "actual_answer": None}
        )
        answered = ask(connector, turn_case, settings, rng)
        record = answered.metadata["run"]
        if record["status"] == "error":
            state.turns.pop()
            state.run["attempts"] += record["attempts"]
            return state.failed(connector.name, record["error_kind"], record["error"], number)
        state.add(answered, number)
        if on_turn is not None:
            on_turn(_progress(case, state.turns, state.run))
