"""A LlamaIndex query engine, chat engine or workflow agent run in-process as the system under
test.

Needs ``llama-index-core`` (``pip install 'assay[llamaindex]'``), imported only when the
connector is built. A LlamaIndex result carries what the system used: ``source_nodes`` (the
retrieved nodes, with ids), ``sources`` of chat engines and ``tool_calls`` of workflow agents
(the tools called, with their inputs and outputs), so nothing needs hooking into the engine.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from assay.data.case import TestCase
from assay.data.dialogue import ToolCall
from assay.errors import require
from assay.params import check_choice
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

MODES = ("auto", "query", "chat", "agent")
#: The method each mode calls (``auto`` takes the first the engine has).
_METHODS = {"query": "query", "chat": "chat", "agent": "run"}


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
        methods = _METHODS.values() if mode == "auto" else (_METHODS[mode],)
        return any(callable(getattr(engine, m, None)) for m in methods)

    return accepts


def _history(messages: list[dict[str, str]]) -> list[Any]:
    from llama_index.core.llms import ChatMessage

    return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]


class LlamaIndexConnector:
    """Ask a LlamaIndex query engine (``engine.query``), chat engine (``engine.chat``) or
    workflow agent (``agent.run``: ``FunctionAgent``, ``ReActAgent``, ``AgentWorkflow``) per case.

    The answer is the response's text; its ``source_nodes`` become ``retrieved_context`` (node
    ids as ``context_ids``) and its ``sources`` (tool outputs of chat engines and agents) the
    answered case's ``trajectory`` steps. A chat engine gets the case's history (empty for a
    question; in a conversation run, every turn so far) and, holding one memory, answers one
    case at a time, so cases do not leak into each other. A query engine has no history: in a
    conversation it is asked the latest user turn. A workflow agent is run to completion (its
    own event loop, in the runner's worker thread) with the earlier turns as ``chat_history``;
    the tools it called (``AgentOutput.tool_calls``) become the trajectory.

    The framework owns its retrieval: ``metadata.injected_context`` of attacked cases is not
    delivered.

    Args:
        engine: a query or chat engine or a workflow agent, or a function without arguments
            returning one.
        name: the system's name (becomes ``TestCase.model``).
        mode: ``"query"``, ``"chat"``, ``"agent"`` or ``"auto"`` (the first of these methods
            the engine has: ``query``, ``chat``, ``run``).

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
        check_choice(mode, MODES, "mode", "LlamaIndexConnector")
        self.engine = resolve_target(
            engine,
            _is_engine(mode),
            "a LlamaIndex query or chat engine or workflow agent",
            "LlamaIndexConnector",
        )
        self.mode = mode
        if mode == "auto":
            self.mode = next(
                m for m, method in _METHODS.items() if callable(getattr(self.engine, method, None))
            )
        self.name = name
        self._warned = False
        self._chat_lock = threading.Lock()

    def answer(self, case: TestCase, timeout_s: float) -> TargetResponse:
        """Ask the engine once (see :class:`~assay.runner.connectors.base.Connector`)."""
        self._warned = warn_undelivered(case, self.name, self._warned)
        text, passages, calls = call_with_timeout(lambda: self._ask(case), timeout_s)
        if not isinstance(text, str):
            raise TargetError(
                f"the {self.mode} engine returned {type(text).__name__} instead of response text",
                kind="bad_response",
                retryable=False,
            )
        return framework_response(text, passages, calls)

    def _ask(self, case: TestCase) -> tuple[Any, list[Passage], list[ToolCall]]:
        """The answer text, the retrieved passages and the tool calls of one case."""
        if self.mode == "agent":
            output = asyncio.run(self._run_agent(case))
            message = getattr(output, "response", None)
            calls = [tool_call(r.tool_output) for r in getattr(output, "tool_calls", None) or []]
            return getattr(message, "content", None), [], calls
        if self.mode == "query":
            response = self.engine.query(case.question or "")
        else:
            *earlier, last = chat_messages(case)
            with self._chat_lock:  # one memory per chat engine: one case at a time, given history
                response = self.engine.chat(last["content"], chat_history=_history(earlier))
        passages = [node_passage(n) for n in getattr(response, "source_nodes", None) or []]
        calls = [tool_call(s) for s in getattr(response, "sources", None) or []]
        return getattr(response, "response", None), passages, calls

    async def _run_agent(self, case: TestCase) -> Any:
        *earlier, last = chat_messages(case)
        return await self.engine.run(user_msg=last["content"], chat_history=_history(earlier))

    def close(self) -> None:
        """Nothing to release."""
