"""Shared fixtures: the path of the public validation data beside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; tests that need it skip with a clear message when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"public validation data not found at {SHARED_DATA} (see shared/data/README)")
    return SHARED_DATA
