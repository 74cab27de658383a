"""What every connector shares: the response type, the error type, response mapping and the
conversation interface.

Conversations reach connectors inside the case: the conversation runner
(:mod:`assay.runner.conversation`) asks one case per assistant turn whose ``turns`` hold the
conversation so far, ending with the user turn to answer, and whose ``question`` is that user
turn. :func:`chat_messages` turns it into the ``[{"role", "content"}]`` history every chat
protocol takes, so a connector that sends :func:`chat_messages` (or the ``messages`` template
variable) handles single questions and conversations alike, and the :class:`Connector` protocol
stays one method.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from assay.data.case import TestCase
from assay.data.dialogue import ToolCall
from assay.errors import TargetError
from assay.runner.mapping import PathError, get_path

#: Error kinds a connector reports; the runner retries the retryable ones.
ERROR_KINDS = ("timeout", "connection", "http_status", "bad_response", "exit_status", "exception")


@dataclass
class TargetResponse:
    """One answer of the system under test, with what it retrieved, the tools it called (in
    order; they become the answered case's ``trajectory.steps``), what it cost and whether it
    was cut at the system's token limit."""

    answer: str
    retrieved_context: list[str] | None = None
    context_ids: list[str] | None = None
    cost_usd: float | None = None
    usage: dict[str, int] = field(default_factory=dict)
    tool_calls: list[ToolCall] | None = None
    #: the system stopped at its token limit: the answer is incomplete
    truncated: bool = False


class Connector(Protocol):
    """A way to ask the system under test one question, or for the next turn of a conversation
    (a case whose ``turns`` end with the user turn to answer; see :func:`chat_messages`)."""

    #: Name of the system under test; it becomes ``TestCase.model`` of the answers.
    name: str

    def answer(self, case: TestCase, timeout_s: float) -> TargetResponse:
        """Answer ``case`` within ``timeout_s`` seconds or raise :class:`TargetError`."""

    def close(self) -> None:
        """Release connections and processes."""


#: Default response mapping: response field → path in the parsed response.
DEFAULT_RESPONSE = {"answer": "answer"}
_MAPPABLE = ("answer", "retrieved_context", "context_ids", "cost_usd")


#: Roles sent as chat messages; tool turns belong to the system's own answers and are not sent.
CHAT_ROLES = ("system", "user", "assistant")


def chat_messages(case: TestCase) -> list[dict[str, str]]:
    """The chat history to send for ``case``: its ``turns`` (system, user and assistant turns,
    in order), then the question as a user message unless the turns already end with a user
    turn (a single question: one user message).

    Example:
        >>> from assay.data.dialogue import Turn
        >>> chat_messages(TestCase(id="q1", question="Fee?"))
        [{'role': 'user', 'content': 'Fee?'}]
        >>> turns = [Turn(role="user", content="Fee?"), Turn(role="assistant", content="12 EUR."),
        ...          Turn(role="user", content="Abroad?")]
        >>> [m["role"] for m in chat_messages(TestCase(id="c1", question="Abroad?", turns=turns))]
        ['user', 'assistant', 'user']
        >>> system = [Turn(role="system", content="Be brief.")]
        >>> [m["role"] for m in chat_messages(TestCase(id="q2", question="Fee?", turns=system))]
        ['system', 'user']
    """
    messages = [
        {"role": t.role, "content": t.content} for t in case.turns or [] if t.role in CHAT_ROLES
    ]
    if not messages or messages[-1]["role"] != "user":
        messages.append({"role": "user", "content": case.question or ""})
    return messages


def case_variables(case: TestCase) -> dict[str, Any]:
    """The variables a request template may use: every case field, plus ``context`` (the
    retrieved context joined by blank lines), ``injected_context`` (passages an attack or
    perturbation asks the system to retrieve in addition to its own) and ``messages`` (the chat
    history, see :func:`chat_messages`).

    Example:
        >>> case_variables(TestCase(id="q1", question="Fee?"))["messages"]
        [{'role': 'user', 'content': 'Fee?'}]
    """
    data = case.model_dump()
    data["context"] = "\n\n".join(case.retrieved_context or [])
    data["injected_context"] = list(case.metadata.get("injected_context") or [])
    data["messages"] = chat_messages(case)
    return data


def _texts(value: Any, name: str) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list) or not all(
        isinstance(v, str | int | float) and not isinstance(v, bool) for v in value
    ):
        raise TargetError(
            f"response field {name!r} must be a list of texts; got {type(value).__name__}",
            kind="bad_response",
            retryable=False,
        )
    return [str(v) for v in value]


def map_response(data: Any, mapping: dict[str, str] | None = None) -> TargetResponse:
    """Build a :class:`TargetResponse` from parsed JSON using ``mapping`` (field → path).

    ``answer`` is required; ``retrieved_context``, ``context_ids`` and ``cost_usd`` are optional
    (a path that is absent leaves the field unset). Other mapping keys whose values are numbers
    are kept as token ``usage`` (e.g. ``prompt_tokens: usage.prompt_tokens``).

    Raises:
        TargetError: kind ``bad_response`` when the answer is missing or has the wrong type.

    Example:
        >>> r = map_response({"data": {"text": "12 euros", "docs": [{"id": 7}]}},
        ...                  {"answer": "data.text", "context_ids": "data.docs[*].id"})
        >>> r.answer, r.context_ids
        ('12 euros', ['7'])
    """
    mapping = {**DEFAULT_RESPONSE, **(mapping or {})}
    try:
        answer = get_path(data, mapping["answer"])
    except PathError as exc:
        raise TargetError(
            f"response has no answer at {mapping['answer']!r} ({exc})",
            kind="bad_response",
            retryable=False,
        ) from None
    if isinstance(answer, int | float) and not isinstance(answer, bool):
        answer = str(answer)
    if not isinstance(answer, str):
        raise TargetError(
            f"answer at {mapping['answer']!r} must be text; got {type(answer).__name__}",
            kind="bad_response",
            retryable=False,
        )
    found: dict[str, Any] = {}
    for key, path in mapping.items():
        if key == "answer":
            continue
        try:
            found[key] = get_path(data, path)
        except PathError:
            found[key] = None
    cost = found.get("cost_usd")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, int | float)):
        raise TargetError(
            f"cost at {mapping['cost_usd']!r} must be a number; got {cost!r}",
            kind="bad_response",
            retryable=False,
        )
    usage = {
        k: int(v)
        for k, v in found.items()
        if k not in _MAPPABLE and isinstance(v, int | float) and not isinstance(v, bool)
    }
    return TargetResponse(
        answer=answer,
        retrieved_context=_texts(found.get("retrieved_context"), "retrieved_context"),
        context_ids=_texts(found.get("context_ids"), "context_ids"),
        cost_usd=float(cost) if cost is not None else None,
        usage=usage,
    )
