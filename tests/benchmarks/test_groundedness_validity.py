"""The statistics of benchmarks/bench_groundedness_validity.py on synthetic data (no model, fast)."""

from __future__ import annotations

import doctest
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_groundedness_validity.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    if str(SCRIPT.parent) not in sys.path:  # its sibling helper modules, as when run as a script
        sys.path.insert(0, str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("bench_groundedness_validity", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _synthetic(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    domains = np.repeat(["a", "b", "c", "d"], 100)
    y = rng.integers(0, 2, size=400)
    x = np.column_stack([y + rng.normal(size=400), rng.normal(size=400)])
    return x, y, domains


def test_doctests(bench: ModuleType) -> None:
    assert doctest.testmod(bench).failed == 0


def test_held_out_predictions_ignore_the_held_out_labels(bench: ModuleType) -> None:
    x, y, domains = _synthetic()
    first = bench.leave_one_domain_out(x, y, domains)
    flipped = y.copy()
    flipped[domains == "b"] = 1 - flipped[domains == "b"]
    second = bench.leave_one_domain_out(x, flipped, domains)
    np.testing.assert_array_equal(first[domains == "b"], second[domains == "b"])
    assert not np.array_equal(first[domains == "a"], second[domains == "a"])
    assert roc_auc_score(y, first) > 0.7


def test_missing_values_get_an_indicator(bench: ModuleType) -> None:
    # The only signal is *whether* feature 1 was skipped: the indicator column must carry it.
    rng = np.random.default_rng(1)
    domains = np.repeat(["a", "b", "c"], 150)
    y = rng.integers(0, 2, size=450)
    x = rng.normal(size=(450, 2))
    x[(y == 1) & (rng.random(450) < 0.8), 1] = np.nan
    p = bench.leave_one_domain_out(x, y, domains)
    assert np.isfinite(p).all()
    assert roc_auc_score(y, p) > 0.8


def test_auroc_with_ci_uses_scored_rows_only(bench: ModuleType) -> None:
    x, y, _ = _synthetic()
    scores = x[:, 0].copy()
    scores[:50] = np.nan
    result = bench.auroc_with_ci(y, scores, 200)
    assert result["auroc"] == pytest.approx(roc_auc_score(y[50:], scores[50:]))
    assert result["n"] == 350
    assert result["ci_low"] < result["auroc"] < result["ci_high"]
    assert bench.auroc_with_ci(y, np.full(400, np.nan), 200) is None


def test_paired_difference(bench: ModuleType) -> None:
    x, y, _ = _synthetic()
    assert bench.paired_difference(y, x[:, 0], x[:, 0], 200) == (0.0, 0.0)
    low, high = bench.paired_difference(y, x[:, 0], x[:, 1], 200)
    assert 0 < low < high
