"""Connectors to the system under test: Python callables, HTTP JSON, OpenAI-compatible chat and
command-line programs. Each turns one :class:`~assay.data.case.TestCase` (a question, or the next
turn of a conversation: see :func:`chat_messages`) into a :class:`TargetResponse` or raises
:class:`TargetError`."""

from assay.registry import load_callable
from assay.runner.connectors.base import (
    Connector,
    TargetError,
    TargetResponse,
    case_variables,
    chat_messages,
    map_response,
)
from assay.runner.connectors.command import CommandConnector
from assay.runner.connectors.http import HTTPConnector
from assay.runner.connectors.openai_chat import OpenAIChatConnector
from assay.runner.connectors.python import CallableConnector, call_with_timeout

__all__ = [
    "CallableConnector",
    "CommandConnector",
    "Connector",
    "HTTPConnector",
    "OpenAIChatConnector",
    "TargetError",
    "TargetResponse",
    "call_with_timeout",
    "case_variables",
    "chat_messages",
    "load_callable",
    "map_response",
]
