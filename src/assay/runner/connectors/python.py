"""A Python callable as the system under test, and loading callables by ``module:name``."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.params import check
from assay.runner.connectors.base import TargetError, TargetResponse, chat_messages, map_response


def load_object(spec: str, base_dir: Path | None = None) -> Any:
    """Import the object ``module.path:name`` or ``path/to/file.py:name`` names.

    A relative file path is resolved against ``base_dir`` (the config file's folder).

    Example:
        >>> load_object("fractions:Fraction").__name__
        'Fraction'
    """
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        raise InvalidInputError(f"reference {spec!r} must look like 'package.module:name'")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            if not path.is_absolute() and base_dir is not None:
                path = base_dir / path
            loader_spec = importlib.util.spec_from_file_location(path.stem, path)
            if loader_spec is None or loader_spec.loader is None or not path.is_file():
                raise InvalidInputError(f"reference {spec!r}: no such file {path}")
            module = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except ImportError as exc:
        raise InvalidInputError(
            f"reference {spec!r}: cannot import {module_name!r} ({exc})"
        ) from None
    if not hasattr(module, attr):
        raise InvalidInputError(f"reference {spec!r}: {module_name!r} has no {attr!r}")
    return getattr(module, attr)


def load_callable(spec: str, base_dir: Path | None = None) -> Callable[..., Any]:
    """Import ``module.path:function`` or ``path/to/file.py:function`` (see :func:`load_object`).

    Example:
        >>> load_callable("os.path:basename")("/a/b.txt")
        'b.txt'
    """
    target = load_object(spec, base_dir)
    if not callable(target):
        module_name, _, attr = spec.rpartition(":")
        raise InvalidInputError(f"callable {spec!r}: {module_name!r} has no callable {attr!r}")
    return target


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
