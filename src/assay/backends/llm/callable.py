"""Adapter that makes any callable a judge backend (a local model, another SDK, a fake)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from assay.backends.llm.protocol import JudgeRequest, JudgeResponse, Usage

#: ``fn(messages) -> text``, ``(text, usage)`` or a :class:`JudgeResponse`. ``usage`` is a
#: :class:`Usage` or a dict with ``prompt_tokens`` / ``completion_tokens``.
JudgeCallable = Callable[..., Any]


class CallableBackend:
    """Wraps ``fn(messages: list[dict]) -> str`` (or ``(str, usage)``) as a judge backend.

    ``fn`` may raise :class:`~assay.errors.TransientBackendError` to ask for a
    retry. When it accepts a ``timeout`` keyword, the judge's per-request timeout is passed on;
    otherwise bounding the call is ``fn``'s own business. Usage is estimated from text lengths
    when ``fn`` reports none.

    Example:
        >>> backend = CallableBackend(lambda messages: "yes", model="always-yes")
        >>> backend.complete(JudgeRequest(({"role": "user", "content": "ok?"},))).text
        'yes'
    """

    def __init__(
        self, fn: JudgeCallable, model: str = "callable", settings: dict[str, Any] | None = None
    ) -> None:
        self.fn = fn
        self._model = model
        self.settings = dict(settings or {})
        try:
            self._takes_timeout = "timeout" in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            self._takes_timeout = False

    @property
    def model(self) -> str:
        """The name given for the callable's model."""
        return self._model

    def describe(self) -> dict[str, Any]:
        """The model name and any settings declared by the caller."""
        return {"backend": "callable", "model": self._model, **self.settings}

    def complete(self, request: JudgeRequest, *, timeout: float | None = None) -> JudgeResponse:
        """Call ``fn`` and normalise what it returns."""
        messages = request.wire_messages()
        result = self.fn(messages, timeout=timeout) if self._takes_timeout else self.fn(messages)
        if isinstance(result, JudgeResponse):
            return result
        usage: Usage | None = None
        if isinstance(result, tuple):
            result, raw_usage = result
            if isinstance(raw_usage, Usage):
                usage = raw_usage
            elif isinstance(raw_usage, dict):
                usage = Usage(
                    int(raw_usage.get("prompt_tokens", 0)),
                    int(raw_usage.get("completion_tokens", 0)),
                )
        text = str(result)
        return JudgeResponse(
            text=text,
            usage=usage or Usage.estimate(request.prompt_text, text),
            model=self._model,
        )

    def __repr__(self) -> str:
        return f"CallableBackend({getattr(self.fn, '__name__', self.fn)!r}, model={self._model!r})"
