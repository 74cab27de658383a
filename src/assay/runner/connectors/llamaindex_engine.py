"""A LlamaIndex query engine (or chat engine) run in-process as the system under test.

Needs ``llama-index-core`` (``pip install 'assay[llamaindex]'``), imported only when the
connector is built. A LlamaIndex response carries what the system used: ``source_nodes``
(the retrieved nodes, with ids) and, for chat engines and agents, ``sources`` (the tools it
called, with their inputs and outputs), so nothing needs hooking into the engine.
"""

from __future__ import annotations

import threading
from typing import Any

from assay.data.case import TestCase
from assay.data.dialogue import ToolCall
from assay.errors import require
from assay.params import check
from assay.runner.connectors.base import TargetError, TargetResponse, chat_messages
from assay.runner.connectors.capture import (
    Passage,
    arguments_of,
    json_safe,
    resolve_target,
    split_passages,
    warn_undelivered,
)
from assay.runner.connectors.python import call_with_timeout

MODES = ("auto", "query", "chat")


def node_passage(scored: Any) -> Passage:
    """A retrieved node (``NodeWithScore`` or a node) as (text, id).

    Example:
        >>> from llama_index.core.schema import NodeWithScore, TextNode
        >>> node_passage(NodeWithScore(node=TextNode(text="Fee: 12 euros.", id_="c1"), score=0.9))
        ('Fee: 12 euros.', 'c1')
    """
    node = getattr(scored, "node", scored)
    key = getattr(node, "node_id", None)
    return str(node.get_content()), (None if key is None else str(key))


def tool_call(output: Any) -> ToolCall:
    """A LlamaIndex ``ToolOutput`` as a :class:`~assay.data.dialogue.ToolCall`.

    Keyword arguments become the arguments (positional ones go under ``args``); the raw output
    is the result, or the error when the tool failed.

    Example:
        >>> from llama_index.core.tools import ToolOutput
        >>> out = ToolOutput(tool_name="get_rate", content="0.031", raw_output=0.031,
        ...                  raw_input={"args": (), "kwargs": {"currency": "EUR"}})
        >>> call = tool_call(out)
        >>> call.name, call.arguments, call.result
        ('get_rate', {'currency': 'EUR'}, 0.031)
    """
    raw = getattr(output, "raw_input", None) or {}
    if isinstance(raw, dict) and ("kwargs" in raw or "args" in raw):
        arguments = dict(raw.get("kwargs") or {})
        if raw.get("args"):
            arguments["args"] = list(raw["args"])
        arguments = arguments_of(arguments)
    else:
        arguments = arguments_of(raw)
    name = str(getattr(output, "tool_name", "") or "tool")
    if getattr(output, "is_error", False):
        return ToolCall(name=name, arguments=arguments, error=str(output.content))
    return ToolCall(name=name, arguments=arguments, result=json_safe(output.raw_output))


def _is_engine(mode: str) -> Any:
    def accepts(engine: Any) -> bool:
        methods = ("query", "chat") if mode == "auto" else (mode,)
        return any(callable(getattr(engine, m, None)) for m in methods)

    return accepts


class LlamaIndexConnector:
    """Ask a LlamaIndex query engine (``engine.query``) or chat engine (``engine.chat``) per case.

    The answer is the response's text; its ``source_nodes`` become ``retrieved_context`` (node
    ids as ``context_ids``) and its ``sources`` (tool outputs of chat engines and agents) the
    answered case's ``trajectory`` steps. A chat engine gets the case's history (empty for a
    question; in a conversation run, every turn so far) and, holding one memory, answers one
    case at a time, so cases do not leak into each other. A query engine has no history: in a
    conversation it is asked the latest user turn.
    Asynchronous workflow agents are not supported: wrap one in a function and use the
    ``python`` connector.

    The framework owns its retrieval: ``metadata.injected_context`` of attacked cases is not
    delivered.

    Args:
        engine: a query or chat engine, or a function without arguments returning one.
        name: the system's name (becomes ``TestCase.model``).
        mode: ``"query"``, ``"chat"`` or ``"auto"`` (``query`` when the engine has it).

    Example:
        >>> from llama_index.core import VectorStoreIndex
        >>> from llama_index.core.embeddings import MockEmbedding
        >>> from llama_index.core.llms import MockLLM
        >>> from llama_index.core.schema import TextNode
        >>> index = VectorStoreIndex([TextNode(text="Fee: 12 euros.", id_="c1")],
        ...                          embed_model=MockEmbedding(embed_dim=8))
        >>> c = LlamaIndexConnector(index.as_query_engine(llm=MockLLM(max_tokens=4)))
        >>> c.answer(TestCase(id="1", question="Fee?"), timeout_s=30).context_ids
        ['c1']
    """

    def __init__(self, engine: Any, *, name: str = "llamaindex", mode: str = "auto") -> None:
        require("llama_index.core", extra="llamaindex", package="llama-index-core")
        check(mode in MODES, "mode", "LlamaIndexConnector", f"one of {', '.join(MODES)}", mode)
        self.engine = resolve_target(
            engine, _is_engine(mode), "a LlamaIndex query or chat engine", "LlamaIndexConnector"
        )
        self.mode = mode
        if mode == "auto":
            self.mode = "query" if callable(getattr(self.engine, "query", None)) else "chat"
        self.name = name
        self._warned = False
        self._chat_lock = threading.Lock()

    def answer(self, case: TestCase, timeout_s: float) -> TargetResponse:
        """Ask the engine once (see :class:`~assay.runner.connectors.base.Connector`)."""
        self._warned = warn_undelivered(case, self.name, self._warned)
        response = call_with_timeout(lambda: self._ask(case), timeout_s)
        text = getattr(response, "response", None)
        if not isinstance(text, str):
            raise TargetError(
                f"engine returned {type(response).__name__} without response text",
                kind="bad_response",
                retryable=False,
            )
        passages = [node_passage(n) for n in getattr(response, "source_nodes", None) or []]
        texts, ids = split_passages(passages)
        calls = [tool_call(s) for s in getattr(response, "sources", None) or []]
        return TargetResponse(
            answer=text,
            retrieved_context=texts if passages else None,
            context_ids=ids if passages else None,
            tool_calls=calls or None,
        )

    def _ask(self, case: TestCase) -> Any:
        if self.mode == "query":
            return self.engine.query(case.question or "")
        from llama_index.core.llms import ChatMessage

        *earlier, last = chat_messages(case)
        history = [ChatMessage(role=m["role"], content=m["content"]) for m in earlier]
        with self._chat_lock:  # one memory per chat engine: one case at a time, given history
            return self.engine.chat(last["content"], chat_history=history)

    def close(self) -> None:
        """Nothing to release."""
