"""The judge backend Protocol and the values that travel through it.

A backend sends one chat request to one model and returns its text and token usage. Everything
generic (concurrency, rate limits, retries, timeouts, the cache, cost accounting and JSON repair)
lives in :class:`assay.backends.llm.client.Judge`, so a backend stays a few dozen lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

#: One chat message: ``{"role": "system" | "user" | "assistant", "content": "..."}``.
Message = Mapping[str, str]


def approx_tokens(text: str) -> int:
    """A tokenizer-free token estimate (about four characters per token for English).

    Used for dry-run estimates, rate-limit reservations and servers that report no usage.

    Example:
        >>> approx_tokens("The fee is 12 euros a month.")
        7
    """
    return max(1, round(len(text) / 4)) if text else 0


@dataclass(frozen=True)
class JudgeRequest:
    """One chat completion to ask a judge.

    Attributes:
        messages: The chat messages, in order.
        max_tokens: Cap on generated tokens (the backend default when None).
        json_schema: JSON Schema of the expected reply, used for structured output where the
            server supports it (and always for validation by the caller).
        task: Name of the prompt that produced the request (for logs, stats and fakes; never
            sent to the server).
        variables: The values rendered into the prompt (for fakes and debugging; never sent).
        sample: Which repeated judgement of the same request this is (0 = the first; see
            :func:`assay.data.samples.judge_sample`). Part of the cache key when above 0, so a
            repeat is asked again instead of read back, and added to the sampling seed of
            backends that take one; never sent as such.
    """

    messages: tuple[Message, ...]
    max_tokens: int | None = None
    json_schema: Mapping[str, Any] | None = None
    task: str = ""
    variables: Mapping[str, Any] = field(default_factory=dict, compare=False)
    sample: int = 0

    @property
    def prompt_text(self) -> str:
        """All message contents joined (for matching and token estimates)."""
        return "\n".join(m["content"] for m in self.messages)

    def wire_messages(self) -> list[dict[str, str]]:
        """The messages as plain dicts, as sent to the server."""
        return [{"role": m["role"], "content": m["content"]} for m in self.messages]


@dataclass(frozen=True)
class Usage:
    """Token usage of one call; ``estimated`` when the server reported none."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.prompt_tokens + self.completion_tokens

    @classmethod
    def estimate(cls, prompt: str, completion: str) -> Usage:
        """Usage estimated from text lengths (see :func:`approx_tokens`)."""
        return cls(approx_tokens(prompt), approx_tokens(completion), estimated=True)


@dataclass(frozen=True)
class JudgeResponse:
    """A judge's reply to one request."""

    text: str
    usage: Usage
    model: str
    cached: bool = False
    latency_s: float = 0.0
    attempts: int = 1
    finish_reason: str | None = None


@runtime_checkable
class JudgeBackend(Protocol):
    """Sends one request to one model.

    Implementations raise :class:`TransientBackendError` for failures worth retrying and
    :class:`assay.errors.BackendError` for the rest; they never retry themselves.
    """

    @property
    def model(self) -> str:
        """The model name (part of the cache key and of the price lookup)."""

    def complete(self, request: JudgeRequest, *, timeout: float | None = None) -> JudgeResponse:
        """Send ``request`` and return the reply; ``timeout`` bounds the call in seconds."""

    def describe(self) -> dict[str, Any]:
        """JSON-serialisable settings that change replies (model, temperature, seed, ...).

        They are recorded in run manifests and are part of the cache key; secrets never appear.
        """
