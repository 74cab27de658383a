"""A LangChain runnable (chain, agent, graph) run in-process as the system under test.

Needs ``langchain-core`` (``pip install 'assay[langchain]'``), imported only when the connector
is built. What the runnable retrieved and which tools it called are captured by a LangChain
callback handler attached to the call, so they are seen wherever in the chain the retriever or
tool runs (branches, sub-chains, agent loops), without changing the user's chain.
"""

from __future__ import annotations

import functools
import threading
from typing import Any
from uuid import UUID

from assay.data.case import TestCase
from assay.data.dialogue import ToolCall
from assay.errors import require
from assay.params import check
from assay.runner.connectors.base import TargetError, TargetResponse, chat_messages
from assay.runner.connectors.capture import (
    Passage,
    arguments_of,
    framework_response,
    json_safe,
    resolve_target,
    warn_undelivered,
)
from assay.runner.connectors.python import call_with_timeout

#: Keys tried, in order, for the answer when the runnable returns a mapping.
ANSWER_KEYS = ("answer", "output", "result", "response", "text")
#: Keys tried for documents when the runnable returns them instead of calling a retriever.
CONTEXT_KEYS = ("context", "source_documents", "documents")
#: Token counts of LangChain's ``usage_metadata``, by the names the other connectors use.
USAGE_NAMES = {
    "input_tokens": "prompt_tokens",
    "output_tokens": "completion_tokens",
    "total_tokens": "total_tokens",
}


def message_text(value: Any) -> str | None:
    """The text of an answer: a string, or a message's content (text blocks joined).

    Example:
        >>> message_text("12 euros"), message_text(42)
        ('12 euros', None)
    """
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            block if isinstance(block, str) else block.get("text", "")
            for block in content
            if isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text")
        ]
        return "".join(parts)
    return None


def document_passage(document: Any) -> Passage:
    """A LangChain ``Document`` as (text, id): its ``id``, else ``metadata["id"]``.

    Example:
        >>> from types import SimpleNamespace
        >>> document_passage(SimpleNamespace(page_content="Fee: 12 euros.", id=None,
        ...                                  metadata={"id": 7}))
        ('Fee: 12 euros.', '7')
    """
    key = getattr(document, "id", None)
    if key is None:
        key = (getattr(document, "metadata", None) or {}).get("id")
    return str(getattr(document, "page_content", "")), (None if key is None else str(key))


class _Recorder:
    """Collects retrieved documents, tool calls and token usage of one call (thread-safe:
    parallel branches report from pool threads)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.passages: list[Passage] = []
        self.calls: dict[UUID, ToolCall] = {}
        self.usage: dict[str, int] = {}

    def tool_calls(self) -> list[ToolCall]:
        with self.lock:
            return list(self.calls.values())  # dicts keep the order the tools started in


@functools.cache
def _handler_class() -> type:
    """The LangChain callback handler class writing into a :class:`_Recorder` (defined on first
    use, so langchain-core is imported only when a LangChain target is used)."""
    from langchain_core.callbacks import BaseCallbackHandler

    class AssayRecorder(BaseCallbackHandler):
        def __init__(self, recorder: _Recorder) -> None:
            super().__init__()
            self.recorder = recorder

        def on_retriever_end(self, documents: Any, *, run_id: UUID, **kwargs: Any) -> None:
            with self.recorder.lock:
                self.recorder.passages.extend(document_passage(d) for d in documents)

        def on_tool_start(
            self, serialized: Any, input_str: str, *, run_id: UUID, **kwargs: Any
        ) -> None:
            name = kwargs.get("name") or (serialized or {}).get("name") or "tool"
            given = kwargs.get("inputs")
            arguments = arguments_of(given if given is not None else input_str)
            with self.recorder.lock:
                self.recorder.calls[run_id] = ToolCall(name=str(name), arguments=arguments)

        def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
            with self.recorder.lock:
                if run_id in self.recorder.calls:
                    self.recorder.calls[run_id].result = json_safe(output)

        def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
            with self.recorder.lock:
                if run_id in self.recorder.calls:
                    self.recorder.calls[run_id].error = f"{type(error).__name__}: {error}"

        def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
            for generations in getattr(response, "generations", None) or []:
                for generation in generations:
                    usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                    for key, name in USAGE_NAMES.items():
                        count = (usage or {}).get(key)
                        if isinstance(count, int):
                            with self.recorder.lock:
                                self.recorder.usage[name] = self.recorder.usage.get(name, 0) + count

    return AssayRecorder


class LangChainConnector:
    """Invoke a LangChain runnable per case, recording its retrieved documents and tool calls.

    The runnable receives the question text, or with ``history`` the chat history
    (``[{"role", "content"}]``, which LangChain turns into messages; in a conversation run every
    turn so far, see :func:`~assay.runner.connectors.base.chat_messages`); under ``input_key``
    (``{input_key: ...}``) when one is given. Without ``history`` a conversation turn sends the
    latest user turn only. It may return text, a message (its content is the answer) or a
    mapping (the answer under ``output_key``, else the first of :data:`ANSWER_KEYS`). Retrieved
    context is what every retriever in the chain returned (documents' ``id`` become
    ``context_ids`` when all have one); when no retriever reported, documents the mapping holds
    under ``context`` are used.
    Tools the chain ran become the answered case's ``trajectory`` steps (name, arguments, result
    or error), in the order they started.

    The framework owns its retrieval: ``metadata.injected_context`` of attacked cases is not
    delivered (use an HTTP or OpenAI target whose retrieval accepts it).

    Args:
        runnable: a ``langchain_core`` ``Runnable``, or a function without arguments returning
            one.
        name: the system's name (becomes ``TestCase.model``).
        input_key: send ``{input_key: question}`` instead of the bare question.
        history: send the chat history instead of the question (a chat model, a prompt with a
            messages placeholder, an agent).
        output_key: where the answer is when the runnable returns a mapping.

    Example:
        >>> from langchain_core.runnables import RunnableLambda
        >>> c = LangChainConnector(RunnableLambda(lambda q: q.upper()), name="shout")
        >>> c.answer(TestCase(id="1", question="fee?"), timeout_s=5).answer
        'FEE?'
    """

    def __init__(
        self,
        runnable: Any,
        *,
        name: str = "langchain",
        input_key: str | None = None,
        output_key: str | None = None,
        history: bool = False,
    ) -> None:
        runnables = require("langchain_core.runnables", extra="langchain", package="langchain-core")
        base = runnables.Runnable  # type: ignore[attr-defined]
        self.runnable = resolve_target(
            runnable, lambda r: isinstance(r, base), "a LangChain Runnable", "LangChainConnector"
        )
        for key, value in (("input_key", input_key), ("output_key", output_key)):
            check(
                value is None or (isinstance(value, str) and bool(value)),
                key,
                "LangChainConnector",
                "a non-empty key or None",
                value,
            )
        self.name = name
        self.input_key = input_key
        self.output_key = output_key
        check(isinstance(history, bool), "history", "LangChainConnector", "True or False", history)
        self.history = history
        self._warned = False

    def answer(self, case: TestCase, timeout_s: float) -> TargetResponse:
        """Invoke the runnable once (see :class:`~assay.runner.connectors.base.Connector`)."""
        self._warned = warn_undelivered(case, self.name, self._warned)
        sent: Any = chat_messages(case) if self.history else (case.question or "")
        given: Any = {self.input_key: sent} if self.input_key else sent
        recorder = _Recorder()
        config = {"callbacks": [_handler_class()(recorder)], "metadata": {"assay_case_id": case.id}}
        output = call_with_timeout(lambda: self.runnable.invoke(given, config=config), timeout_s)
        answer, documents = self._answer(output)
        passages = list(recorder.passages) or [document_passage(d) for d in documents]
        return framework_response(answer, passages, recorder.tool_calls(), recorder.usage)

    def _answer(self, output: Any) -> tuple[str, list[Any]]:
        """The answer text and any documents returned with it."""
        documents: list[Any] = []
        if isinstance(output, dict):
            keys = (self.output_key,) if self.output_key else ANSWER_KEYS
            found = next((k for k in keys if k in output), None)
            if found is None:
                raise TargetError(
                    f"runnable returned a mapping without {' / '.join(keys)}; its keys: "
                    f"{', '.join(map(str, output)) or 'none'} (set output_key)",
                    kind="bad_response",
                    retryable=False,
                )
            for key in CONTEXT_KEYS:
                if isinstance(output.get(key), list):
                    documents = [d for d in output[key] if hasattr(d, "page_content")]
                    break
            output = output[found]
        text = message_text(output)
        if text is None:
            raise TargetError(
                f"runnable returned {type(output).__name__}; expected text, a message or a "
                "mapping holding one",
                kind="bad_response",
                retryable=False,
            )
        return text, documents

    def close(self) -> None:
        """Nothing to release."""
