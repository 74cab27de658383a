"""Synthetic labelled scores shared by the calibration tests."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def binary_data() -> tuple[np.ndarray, np.ndarray]:
    """PASS scores ~ N(1, 1), FAIL ~ N(0, 1); P(PASS) = 0.5; 2,000 cases."""
    rng = np.random.default_rng(42)
    y = rng.integers(0, 2, 2000)
    return rng.normal(size=2000) + y, y
