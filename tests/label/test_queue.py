"""The labeling queue: stratified over score bins and slices; uncertain cases first."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd

from assay.calibrate import IsotonicCalibrator
from assay.calibrate.dataset import score_table
from assay.label.project import LabelProject
from assay.label.queue import build_queue, choose_metric, item_table, score_bins, stratified_order
from assay.label.store import Store
from assay.rundir.run import EvaluationRun


def test_every_prefix_of_the_queue_is_balanced_over_bins_and_slices() -> None:
    rng = np.random.default_rng(1)
    n = 400
    items = pd.DataFrame(
        {
            "case_id": [f"q{i}" for i in range(n)],
            "model": rng.choice(["a", "b"], n, p=[0.8, 0.2]),
            "topic": rng.choice(["fees", "cards", "loans"], n, p=[0.7, 0.2, 0.1]),
            "query_type": None,
            "score": rng.beta(5, 1, n),  # most scores high: a random sample would miss low bins
        }
    )
    queue = build_queue(items, n_bins=4, seed=3)
    assert [e.priority for e in queue] == list(range(n))
    assert {(e.case_id) for e in queue} == set(items["case_id"])
    first = queue[:40]
    bins = Counter(e.stratum.split("|")[0] for e in first)
    assert set(bins.values()) == {10}  # equal allocation over the 4 score bins
    models = Counter(e.stratum.split("|")[1] for e in first)
    topics = Counter(e.stratum.split("|")[2] for e in first)
    assert models["b"] >= 16  # 20% of cases, about half of each bin's turns
    assert topics["loans"] >= 10  # 10% of cases, oversampled
    random_prefix = items.sample(40, random_state=0)
    assert (random_prefix["topic"] == "loans").sum() < topics["loans"]


def test_order_is_reproducible_and_seeded() -> None:
    bins, slices = ["x"] * 6 + ["y"] * 6, ["s", "t"] * 6
    assert stratified_order(bins, slices, seed=0) == stratified_order(bins, slices, seed=0)
    assert stratified_order(bins, slices, seed=0) != stratified_order(bins, slices, seed=5)
    assert score_bins(pd.Series([3.0, 1.0, 2.0, np.nan]), 3) == ["b3", "b1", "b2", "n/a"]


def test_uncertain_cases_come_first_once_a_calibrator_exists(
    label_run: EvaluationRun, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(label_run.path, run_dir)  # type: ignore[arg-type]
    results = pd.read_parquet(run_dir / "results.parquet")
    assert choose_metric(results) in {"test_groundedness", "token_f1", "exact_match"}
    store = Store(f"sqlite:///{tmp_path / 'l.sqlite'}")
    before = LabelProject(run_dir, store, overlap=1)
    assert not before.calibrated and store.progress(1)["uncertain"] == 0

    wide = score_table(results, ["test_groundedness"])
    x = wide["test_groundedness"].to_numpy()
    y = (x >= 0.75).astype(int)
    y[::4] = 1 - y[::4]  # noisy labels: some sets become {FAIL, PASS}
    cal = IsotonicCalibrator(metrics=["test_groundedness"]).fit(x[::2], y[::2])
    cal.conformalize(x[1::2], y[1::2], alpha=0.05)
    cal.save(run_dir / "calibration" / "calibrator.json")
    sets = cal.predict_set(x.reshape(-1, 1))
    expected = {
        (c, m) for c, m, s in zip(wide["case_id"], wide["model"], sets, strict=True) if s.sum() != 1
    }
    assert 0 < len(expected) < len(wide), "the example needs some ambiguous sets, not all"

    before.check_interval_s = 0.0
    assert before.refresh_queue()  # the running app notices the new calibrator
    assert not before.refresh_queue()  # and rebuilds only when it changes
    after = before
    assert after.calibrated and after.metric == "test_groundedness"
    queue = build_queue(item_table(after.results, after.metric), {k: True for k in expected})
    head = {(e.case_id, e.model) for e in queue[: len(expected)]}
    assert head == expected
    with store.transaction() as tx:
        rows = tx.fetchall("SELECT case_id, model, uncertain FROM items ORDER BY priority")
    assert {(r[0], r[1]) for r in rows[: len(expected)]} == expected
    assert all(r[2] == 1 for r in rows[: len(expected)])
    assert not any(r[2] for r in rows[len(expected) :])
