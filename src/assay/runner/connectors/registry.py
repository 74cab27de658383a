"""Connector types by name, for the ``type`` of a target config: the built-ins and plugins of the
``assay.connectors`` entry-point group.

A connector type is a callable (usually a :class:`~assay.runner.connectors.base.Connector`
subclass) called with the config's own keys as keyword arguments, plus ``name`` when the config
gives one. Built-ins are registered lazily, so reading a config imports only the connector it uses.

Example:
    >>> CONNECTORS.names()
    ['command', 'http', 'langchain', 'llamaindex', 'openai', 'python']
    >>> CONNECTORS.get("http").__name__
    'HTTPConnector'
"""

from __future__ import annotations

from collections.abc import Callable

from assay.registry import GROUPS, Registry
from assay.runner.connectors.base import Connector

#: Every connector type by name.
CONNECTORS: Registry[Callable[..., Connector]] = Registry("connector type", GROUPS["connector"])
CONNECTORS.register_lazy("http", "assay.runner.connectors.http:HTTPConnector")
CONNECTORS.register_lazy("openai", "assay.runner.connectors.openai_chat:OpenAIChatConnector")
CONNECTORS.register_lazy("command", "assay.runner.connectors.command:CommandConnector")
CONNECTORS.register_lazy("python", "assay.runner.connectors.python:CallableConnector")
CONNECTORS.register_lazy(
    "langchain", "assay.runner.connectors.langchain_runnable:LangChainConnector"
)
CONNECTORS.register_lazy(
    "llamaindex", "assay.runner.connectors.llamaindex_engine:LlamaIndexConnector"
)
