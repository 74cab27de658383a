"""Fixtures of the runner tests: the loopback RAG service."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .rag_service import Behaviour, RagService, serve


@pytest.fixture
def rag() -> Iterator[RagService]:
    with serve(Behaviour()) as service:
        yield service
