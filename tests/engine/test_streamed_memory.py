"""A suite file is scored in chunks: the memory evaluation holds does not grow with the suite
(issue 23). Measured with tracemalloc (Python objects and numpy buffers), not timed."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pandas as pd
import pytest

import assay.pipeline
import assay.report
from assay import evaluate

EVALUATORS = ["exact_match", "token_f1"]


def _suite(path: Path, n: int) -> Path:
    """``n`` distinct cases (ids, questions and answers all differ)."""
    with path.open("w", encoding="utf-8") as handle:
        for i in range(n):
            handle.write(json.dumps({
                "id": f"case-{i}",
                "question": f"What is item {i}?",
                "expected_answer": f"item {i} is number {i * 7 % 1000}",
                "actual_answer": f"item {i} is number {i * 11 % 1000}",
                "model": "m",
                "topic": f"topic-{i % 5}",
            }) + "\n")
    return path


def _peak(suite: Path, out: Path) -> int:
    tracemalloc.start()
    try:
        run = evaluate(suite, EVALUATORS, out=out)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert run.leaderboard[0]["n_ok"] == sum(1 for _ in suite.open(encoding="utf-8"))
    assert len(pd.read_parquet(out / "results.parquet")) == 2 * run.leaderboard[0]["n_ok"]
    return peak


def test_peak_memory_of_a_streamed_run_grows_by_bookkeeping_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small chunks, so that both suites span several of them (the default is 8,192 cases).
    monkeypatch.setattr(assay.pipeline, "SCORING_CHUNK", 512)
    # The reports' analysis holds the measured table by design (one row per case x metric):
    # measured in benchmarks/bench_memory.py; here the run directory without them.
    monkeypatch.setattr(assay.report, "write_reports", lambda run, directory, **_: [])
    _peak(_suite(tmp_path / "warm.jsonl", 100), tmp_path / "warm")  # imports, caches
    small = _peak(_suite(tmp_path / "small.jsonl", 1_000), tmp_path / "small")
    large = _peak(_suite(tmp_path / "large.jsonl", 10_000), tmp_path / "large")
    # Held whole, a case takes several KB (its TestCase, its result rows); streamed, what grows
    # is the per-case bookkeeping: the (id, model) keys checked for duplicates, the index of
    # model, latency and cost, the failure tally, and the implicit plan's decision, which reads
    # each case's key and its deciding metrics' rows. Scoring's bookkeeping is freed before the
    # decision (~680 bytes a case at the peak; ~830 while it was held through the decision,
    # 1,080 before the keys shared their model names and empty labels and the decision read
    # only its metrics' rows).
    per_case = (large - small) / 9_000
    assert per_case < 900, (small, large, per_case)
