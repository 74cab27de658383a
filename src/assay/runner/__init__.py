"""Running the system under test: connectors, concurrency, retries, timeouts and checkpoints.

Example:
    >>> from assay.data.case import TestCase
    >>> from assay.runner import CallableConnector, run_target
    >>> answered = run_target([TestCase(id="1", question="fee?")], CallableConnector(str.upper))
    >>> answered[0].actual_answer
    'FEE?'
"""

from assay.runner.checkpoint import Checkpoint
from assay.runner.config import build_target, load_target, read_config
from assay.runner.connectors import (
    CallableConnector,
    CommandConnector,
    Connector,
    HTTPConnector,
    OpenAIChatConnector,
    TargetError,
    TargetResponse,
)
from assay.runner.execute import RunSettings, ask, run_target

__all__ = [
    "CallableConnector",
    "Checkpoint",
    "CommandConnector",
    "Connector",
    "HTTPConnector",
    "OpenAIChatConnector",
    "RunSettings",
    "TargetError",
    "TargetResponse",
    "ask",
    "build_target",
    "load_target",
    "read_config",
    "run_target",
]
