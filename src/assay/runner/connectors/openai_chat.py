"""An OpenAI-compatible chat-completions endpoint, optionally fed by a retriever (RAG).

Speaks the ``POST {base_url}/chat/completions`` protocol directly over HTTP, so it works with
OpenAI and with compatible servers (vLLM, llama.cpp server, Ollama, LiteLLM) without the ``openai``
package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from assay.data.case import TestCase
from assay.params import check
from assay.runner.connectors.base import TargetError, TargetResponse, chat_messages
from assay.runner.connectors.capture import Passage, split_passages
from assay.runner.connectors.http import HTTPConnector
from assay.runner.connectors.python import call_with_timeout

DEFAULT_PROMPT = (
    "Answer the question using only the context below.\n\n"
    "Context:\n{context}\n\nQuestion: {question}"
)

#: A retriever maps a question to passages: texts, or dicts with ``text`` and optional ``id``.
Retriever = Callable[[str], Sequence[Any]]


def _passages(found: Sequence[Any]) -> tuple[list[str], list[str] | None]:
    pairs: list[Passage] = []
    for item in found:
        if isinstance(item, str):
            pairs.append((item, None))
        elif isinstance(item, dict) and isinstance(item.get("text"), str):
            key = item.get("id")
            pairs.append((item["text"], None if key is None else str(key)))
        else:
            raise TargetError(
                f"retriever returned {type(item).__name__}; expected text or {{'id', 'text'}}",
                kind="bad_response",
                retryable=False,
            )
    return split_passages(pairs)


class OpenAIChatConnector:
    """Ask a chat model, after retrieving context with ``retriever`` when one is given.

    Context comes, in this order, from: the case's own ``retrieved_context`` when its metadata
    sets ``fixed_context`` (a perturbed or attacked context), else the retriever; passages listed in
    ``metadata["injected_context"]`` are appended to what the retriever found (indirect injection).

    Args:
        model: the model name sent to the server.
        base_url: e.g. ``https://api.openai.com/v1`` or ``http://localhost:8000/v1``.
        api_key: sent as a bearer token (use ``${OPENAI_API_KEY}`` in config files).
        name: the system's name (defaults to ``model``).
        system_prompt: an optional system message.
        retriever: optional question → passages callable.
        prompt_template: user message with ``{question}`` and ``{context}`` fields (used with
            context; the bare question is sent otherwise).
        temperature, max_tokens: sampling settings.
        price_per_1k_input, price_per_1k_output: USD per 1,000 tokens, for ``cost_usd``.

    Example:
        >>> c = OpenAIChatConnector("gpt-4o-mini", base_url="http://127.0.0.1:1/v1")
        >>> c.messages(TestCase(id="1", question="Fee?"), None)[-1]
        {'role': 'user', 'content': 'Fee?'}
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str = "https://api.openai.com/v1",
        api_key: str | None = None,
        name: str | None = None,
        system_prompt: str | None = None,
        retriever: Retriever | None = None,
        prompt_template: str = DEFAULT_PROMPT,
        temperature: float | None = 0.0,
        max_tokens: int | None = None,
        price_per_1k_input: float | None = None,
        price_per_1k_output: float | None = None,
    ) -> None:
        check(
            isinstance(model, str) and bool(model), "model", "OpenAIChatConnector", "a name", model
        )
        check(
            "{question}" in prompt_template,
            "prompt_template",
            "OpenAIChatConnector",
            "a template with a {question} field",
            prompt_template,
        )
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.name = name or model
        self.system_prompt = system_prompt
        self.retriever = retriever
        self.prompt_template = prompt_template
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.price_per_1k_input = price_per_1k_input
        self.price_per_1k_output = price_per_1k_output
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = HTTPConnector(f"{self.base_url}/chat/completions", headers=headers)

    def context(
        self, case: TestCase, timeout_s: float
    ) -> tuple[list[str] | None, list[str] | None]:
        """The passages (and their ids, when known) to put in the prompt for ``case``."""
        if case.metadata.get("fixed_context") and case.retrieved_context is not None:
            return list(case.retrieved_context), case.context_ids
        injected = [str(p) for p in case.metadata.get("injected_context") or []]
        if self.retriever is None:
            return (injected or None), None
        retriever = self.retriever
        found = call_with_timeout(lambda: list(retriever(case.question or "")), timeout_s)
        texts, ids = _passages(found)
        if injected:
            texts += injected
            ids = [*ids, *(f"injected-{i}" for i in range(len(injected)))] if ids else None
        return texts, ids

    def messages(self, case: TestCase, context: list[str] | None) -> list[dict[str, str]]:
        """The chat messages sent for ``case`` with ``context``: the system prompt, the
        conversation so far (see :func:`~assay.runner.connectors.base.chat_messages`), and the
        last user message put in ``prompt_template`` with the context when there is one.

        Example:
            >>> from assay.data.dialogue import Turn
            >>> c = OpenAIChatConnector("m", system_prompt="Be brief.")
            >>> turns = [Turn(role="user", content="Fee?"), Turn(role="assistant", content="12."),
            ...          Turn(role="user", content="Abroad?")]
            >>> [m["role"] for m in c.messages(TestCase(id="c", turns=turns), None)]
            ['system', 'user', 'assistant', 'user']
        """
        history = chat_messages(case)
        if context is not None and history and history[-1]["role"] == "user":
            user = self.prompt_template.format(
                question=history[-1]["content"], context="\n\n".join(context)
            )
            history[-1] = {"role": "user", "content": user}
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        return [*messages, *history]

    def answer(self, case: TestCase, timeout_s: float) -> TargetResponse:
        """Retrieve, then ask the model (see :class:`Connector`)."""
        context, ids = self.context(case, timeout_s)
        body: dict[str, Any] = {"model": self.model, "messages": self.messages(case, context)}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        data = self._http.send(self._http.url, body, timeout_s)
        try:
            text = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise TargetError(
                "response has no choices[0].message.content", kind="bad_response", retryable=False
            ) from None
        if not isinstance(text, str):
            raise TargetError(
                "choices[0].message.content is not text", kind="bad_response", retryable=False
            )
        usage_data = data.get("usage") if isinstance(data, dict) else None
        usage = {
            k: int(v)
            for k, v in (usage_data or {}).items()
            if isinstance(v, int) and not isinstance(v, bool)
        }
        return TargetResponse(
            answer=text,
            retrieved_context=context,
            context_ids=ids,
            cost_usd=self.cost(usage),
            usage=usage,
            truncated=data["choices"][0].get("finish_reason") == "length",
        )

    def cost(self, usage: dict[str, int]) -> float | None:
        """USD cost of one call from its token usage and the configured prices.

        Example:
            >>> c = OpenAIChatConnector("m", price_per_1k_input=0.5, price_per_1k_output=1.5)
            >>> c.cost({"prompt_tokens": 1000, "completion_tokens": 200})
            0.8
        """
        if self.price_per_1k_input is None and self.price_per_1k_output is None:
            return None
        if "prompt_tokens" not in usage and "completion_tokens" not in usage:
            return None
        total = usage.get("prompt_tokens", 0) * (self.price_per_1k_input or 0.0)
        total += usage.get("completion_tokens", 0) * (self.price_per_1k_output or 0.0)
        return round(total / 1000, 10)

    def close(self) -> None:
        """Close the HTTP clients."""
        self._http.close()
