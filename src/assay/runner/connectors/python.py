"""A Python callable as the system under test (loaded by ``module:name`` with
:func:`assay.registry.load_callable`)."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Callable
from typing import Any

from assay.data.case import TestCase
from assay.params import check
from assay.runner.connectors.base import TargetError, TargetResponse, chat_messages, map_response


def call_with_timeout(fn: Callable[[], Any], timeout_s: float) -> Any:
    """Run ``fn()`` in a daemon thread and wait at most ``timeout_s`` seconds.

    A call that overruns is abandoned (Python cannot stop a thread) and reported as a timeout.

    Example:
        >>> call_with_timeout(lambda: 42, 1.0)
        42
    """
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True, name="assay-callable")
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        raise TargetError(f"no answer within {timeout_s:g} s", kind="timeout", retryable=True)
    if "error" in box:
        error = box["error"]
        if isinstance(error, TargetError):
            raise error
        raise TargetError(
            f"{type(error).__name__}: {error}", kind="exception", retryable=False
        ) from error
    return box.get("value")


def as_response(value: Any, mapping: dict[str, str] | None = None) -> TargetResponse:
    """Turn what a callable returned (text, a mapping or a TargetResponse) into a response.

    Example:
        >>> as_response({"answer": "12 euros", "retrieved_context": ["Fee: 12 euros."]}).answer
        '12 euros'
    """
    if isinstance(value, TargetResponse):
        return value
    if isinstance(value, str):
        return TargetResponse(answer=value)
    if isinstance(value, dict):
        return map_response(value, mapping)
    raise TargetError(
        f"callable returned {type(value).__name__}; expected text, a dict or a TargetResponse",
        kind="bad_response",
        retryable=False,
    )


class CallableConnector:
    """A Python function as the system under test.

    The function receives the whole :class:`TestCase` when it declares a parameter named
    ``case``, the chat history (``[{"role", "content"}]``, see
    :func:`~assay.runner.connectors.base.chat_messages`) when it declares one named
    ``messages``, else the question text (in a conversation: the latest user turn). It returns
    text, a dict (mapped with ``response``) or a :class:`TargetResponse`.

    Example:
        >>> c = CallableConnector(lambda question: question.upper(), name="shout")
        >>> c.answer(TestCase(id="1", question="fee?"), timeout_s=1).answer
        'FEE?'
        >>> count = CallableConnector(lambda messages: f"{len(messages)} messages")
        >>> count.answer(TestCase(id="1", question="fee?"), timeout_s=1).answer
        '1 messages'
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str = "python",
        response: dict[str, str] | None = None,
    ) -> None:
        check(callable(fn), "fn", "CallableConnector", "a callable", fn)
        self.fn = fn
        self.name = name
        self.response = response
        try:
            parameters = set(inspect.signature(fn).parameters)
        except (TypeError, ValueError):
            parameters = set()
        self._wants = next((p for p in ("case", "messages") if p in parameters), "question")

    def answer(self, case: TestCase, timeout_s: float) -> TargetResponse:
        """Call the function (see :class:`Connector`)."""
        argument: Any
        if self._wants == "case":
            argument = case
        elif self._wants == "messages":
            argument = chat_messages(case)
        else:
            argument = case.question or ""
        value = call_with_timeout(lambda: self.fn(argument), timeout_s)
        return as_response(value, self.response)

    def close(self) -> None:
        """Nothing to release."""
