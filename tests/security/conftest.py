"""Fixtures of the adversarial tests: the network cut off, and the CLI run as a user would."""

from __future__ import annotations

import socket
from typing import Any

import pytest


@pytest.fixture
def network_attempts(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every outbound connection attempt, each refused (``connect()`` blocked for all sockets but
    Unix ones); a test asserts the list stays empty."""
    attempts: list[Any] = []
    real_connect = socket.socket.connect

    def refuse(self: socket.socket, address: Any) -> Any:
        if self.family == socket.AF_UNIX:
            return real_connect(self, address)
        attempts.append(address)
        raise OSError("network blocked by the test")

    def refuse_ex(self: socket.socket, address: Any) -> int:
        refuse(self, address)
        return 0

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse_ex)
    monkeypatch.delenv("ASSAY_ALLOW_DOWNLOADS", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    return attempts
