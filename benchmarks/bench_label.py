"""Labeling queue: how fast the stratified order covers the score range, against random order.

On the demo run (token_f1 scores, the 108 cases with human labels), two orders of the same cases:
the labeling queue (:func:`assay.label.queue.build_queue`, 5 score bins x model / topic / query
type) and uniformly random orders (the reference, averaged over seeds). Reported: labels needed
before every score bin x model stratum holds 2 labels, and the mean and spread of the number of
human FAIL labels (``grounded == 0``, the minority class a calibrator needs) among the first 30.
Writes benchmarks/results/labeling.md.

    python benchmarks/bench_label.py
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import assay
from assay.demo import demo_labels_path, demo_suite_path
from assay.label.queue import build_queue, item_table, score_bins
from results_file import publish

OUT = Path(__file__).resolve().parent / "results" / "labeling.md"
SEEDS = 50
FIRST = 30


def _labels_to_cover(order: list[int], strata: list[str], k: int = 2) -> int:
    sizes = pd.Series(strata).value_counts()
    need = {s: min(k, int(n)) for s, n in sizes.items()}
    for n, i in enumerate(order, start=1):
        if need[strata[i]] > 0:
            need[strata[i]] -= 1
            if not any(need.values()):
                return n
    return len(order)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        run = assay.evaluate(demo_suite_path(), ["token_f1"], out=Path(tmp) / "run")
        items = item_table(run.results, "token_f1")
    labels = pd.read_csv(demo_labels_path(), dtype={"id": str, "model": str})
    items = items.merge(labels, left_on=["case_id", "model"], right_on=["id", "model"])
    items = items.reset_index(drop=True)
    bins = score_bins(items["score"], 5)
    strata = [f"{b}|{m}" for b, m in zip(bins, items["model"], strict=True)]
    fail = (items["grounded"] == 0).to_numpy()
    index = {
        (c, m): i for i, (c, m) in enumerate(zip(items["case_id"], items["model"], strict=True))
    }
    rows = []
    for name, orders in (
        (
            "assay label queue (stratified)",
            [
                [index[(e.case_id, e.model)] for e in build_queue(items, n_bins=5, seed=s)]
                for s in range(SEEDS)
            ],
        ),
        (
            "random order (reference)",
            [random.Random(s).sample(range(len(items)), len(items)) for s in range(SEEDS)],
        ),
    ):
        cover = np.array([_labels_to_cover(o, strata) for o in orders])
        fails = np.array([int(fail[o[:FIRST]].sum()) for o in orders])
        rows.append((name, cover.mean(), cover.max(), fails.mean(), fails.std()))
    (q_cover, q_sd), (r_cover, r_sd) = ((r[1], r[4]) for r in rows)
    lines = [
        f"Demo run, token_f1, {len(items)} human-labelled cases, {len(set(strata))} score-bin x "
        f"model strata, {SEEDS} seeds. Command: `python benchmarks/bench_label.py`.",
        "",
        "| order | labels until every stratum has 2 (mean) | (worst) | FAIL labels in the first "
        f"{FIRST} (mean) | (sd) |",
        "|---|---:|---:|---:|---:|",
        *(f"| {n} | {c:.1f} | {cm} | {f:.1f} | {sd:.2f} |" for n, c, cm, f, sd in rows),
        "",
        f"Ratio random / queue: {r_cover / q_cover:.2f}x more labels to cover every stratum "
        f"(strata smaller than 2 count as covered when exhausted); the spread of the number of "
        f"FAIL labels among the first {FIRST} is {r_sd / q_sd:.2f}x smaller with the queue "
        f"({int(fail.sum())} of {len(items)} cases are FAIL; quantile bins have equal sizes, so "
        "the expected count is the same: stratification removes luck, it does not add FAILs).",
    ]
    publish(OUT, lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
