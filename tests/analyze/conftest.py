"""Fixtures for the analysis tests."""

from __future__ import annotations

import pandas as pd
import pytest

from .synthetic_results import results_frame


@pytest.fixture
def weak_loans() -> pd.DataFrame:
    """Model b is clearly weak on 'loans'; everything else succeeds ~85% of the time."""
    spec = {
        (m, t): (0.15 if (m, t) == ("b", "loans") else 0.85)
        for m in ("a", "b")
        for t in ("fees", "cards", "loans")
    }
    return results_frame(spec)
