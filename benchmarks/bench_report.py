"""Uncertainty and report benchmark: bootstrap speed and agreement against SciPy, interval
coverage by simulation, and the CPU time of the whole analysis + HTML report on a large run.

Run: ``python benchmarks/bench_report.py [N_CASES]`` (default 5,000 cases × 3 models × 4 metrics).
Writes benchmarks/results/report.md. Times are process CPU seconds (best of 3), so load from
other processes on a shared machine does not inflate them.
"""

from __future__ import annotations

import platform
import re
import sys
import tempfile
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from assay.analyze.summary import analyze_run
from assay.analyze.uncertainty import bootstrap_ci
from assay.fileio import write_text
from assay.report import write_reports
from assay.rundir import RESULTS_FILE, EvaluationRun

HERE = Path(__file__).resolve().parent
RESAMPLES = 1000


def _cpu(fn: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out


def _scipy_ci(values: np.ndarray, seed: int) -> tuple[float, float]:
    res = stats.bootstrap(
        (values,),
        np.mean,
        method="percentile",
        n_resamples=RESAMPLES,
        random_state=seed,
        vectorized=True,
    )
    return float(res.confidence_interval.low), float(res.confidence_interval.high)


def speed_rows() -> list[list[str]]:
    rng = np.random.default_rng(0)
    samples = {
        "continuous scores, n = 5,000": rng.beta(2, 5, 5000),
        "pass / fail, n = 5,000": (rng.random(5000) < 0.7).astype(float),
        "continuous scores, n = 200": rng.beta(2, 5, 200),
    }
    rows = []
    for name, values in samples.items():
        t_ref, ref = _cpu(lambda v=values: _scipy_ci(v, 1))
        t_own, own = _cpu(lambda v=values: bootstrap_ci(v, n_resamples=RESAMPLES, seed=1))
        diff = max(abs(own[0] - ref[0]), abs(own[1] - ref[1]))
        rows.append(
            [
                name,
                f"{t_ref * 1000:.1f}",
                f"{t_own * 1000:.1f}",
                f"{t_ref / t_own:.1f}×",
                f"{diff:.4f}",
                f"{(ref[1] - ref[0]):.4f}",
            ]
        )
    return rows


def coverage_rows(replications: int = 400) -> list[list[str]]:
    rng = np.random.default_rng(1)
    cases = {
        "Bernoulli(0.7)": (lambda n: (rng.random(n) < 0.7).astype(float), 0.7),
        "Beta(2, 5)": (lambda n: rng.beta(2, 5, n), 2 / 7),
    }
    rows = []
    for name, (draw, truth) in cases.items():
        for n in (30, 200):
            own = ref = 0
            for i in range(replications):
                sample = draw(n)
                low, high = bootstrap_ci(sample, n_resamples=RESAMPLES, seed=i)
                own += low <= truth <= high  # type: ignore[operator]
                r_low, r_high = _scipy_ci(sample, i)
                ref += r_low <= truth <= r_high
            rows.append([name, str(n), f"{own / replications:.3f}", f"{ref / replications:.3f}"])
    return rows


def synthetic_run(n_cases: int, directory: Path) -> EvaluationRun:
    """A run directory of n_cases × 3 models × 4 metrics with planted weak slices."""
    rng = np.random.default_rng(2)
    topics = np.array([f"topic-{i}" for i in range(12)])
    qtypes = np.array(["factual", "yes/no", "how-to", "comparison"])
    frames, board = [], []
    for m, model in enumerate(("alpha", "beta", "gamma")):
        topic = topics[np.arange(n_cases) % 12]
        weak = (topic == "topic-3") & (model == "beta")
        for metric, binary in (("acc", True), ("f1", False), ("ground", False), ("rel", False)):
            p = np.where(weak, 0.3, 0.75 - 0.05 * m)
            value = (
                (rng.random(n_cases) < p).astype(float)
                if binary
                else np.clip(rng.normal(p, 0.15), 0, 1)
            )
            frames.append(
                pd.DataFrame(
                    {
                        "case_id": [f"q{i}" for i in range(n_cases)],
                        "model": model,
                        "evaluator": metric,
                        "metric": metric,
                        "primary": True,
                        "status": "ok",
                        "value": value,
                        "passed": value >= 0.5,
                        "threshold": 0.5,
                        "reason": None,
                        "explanation": "synthetic",
                        "details": None,
                        "topic": topic,
                        "query_type": qtypes[np.arange(n_cases) % 4],
                        "perturbation": None,
                        "parent_id": None,
                    }
                )
            )
            board.append(
                {
                    "model": model,
                    "evaluator": metric,
                    "metric": metric,
                    "primary": True,
                    "aggregation": "mean",
                    "higher_is_better": True,
                    "threshold": 0.5,
                    "value": float(value.mean()),
                    "std": None,
                    "n_ok": n_cases,
                    "n_skipped": 0,
                    "n_error": 0,
                    "n_pass": int((value >= 0.5).sum()),
                    "n_fail": int((value < 0.5).sum()),
                    "pass_rate": float((value >= 0.5).mean()),
                    "passed": bool(value.mean() >= 0.5),
                }
            )
    results = pd.concat(frames, ignore_index=True)
    results.to_parquet(directory / RESULTS_FILE)
    return EvaluationRun(
        manifest={}, leaderboard=board, problems=[], insights=[], path=directory, _results=results
    )


def report_rows(n_cases: int) -> tuple[list[list[str]], dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        run = synthetic_run(n_cases, Path(tmp))
        rows = len(run.results)
        t_analysis, analysis = _cpu(lambda: analyze_run(run), repeats=2)
        t_all, _ = _cpu(lambda: write_reports(run, Path(tmp)), repeats=2)
        size = (Path(tmp) / "report.html").stat().st_size
        page = (Path(tmp) / "report.html").read_text(encoding="utf-8")
        embedded = re.search(r"embeds ([\d,]+) of the run", page)
    weakest = analysis["weakest"][0]
    table = [
        [
            "analysis (intervals, pairwise tests, slices)",
            f"{t_analysis:.2f}",
            f"{rows / t_analysis:,.0f}",
        ],
        [
            "all reports (analysis + drill-down + HTML + Markdown + JSON)",
            f"{t_all:.2f}",
            f"{rows / t_all:,.0f}",
        ],
    ]
    shown = embedded.group(1) if embedded else "all"
    return table, {"rows": rows, "html_mb": size / 1e6, "weakest": weakest["message"],
                   "shown": shown}


def table(headers: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join(out + ["| " + " | ".join(r) + " |" for r in rows])


def main() -> int:
    n_cases = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    speed = speed_rows()
    coverage = coverage_rows()
    report, info = report_rows(n_cases)
    page = "\n\n".join(
        [
            "# Uncertainty and report benchmark",
            f"Generated by `python benchmarks/bench_report.py {n_cases}`. Process CPU seconds, "
            f"best of 3 (2 for the report). Python {platform.python_version()}, numpy "
            f"{version('numpy')}, scipy {version('scipy')}, pandas {version('pandas')}.",
            f"## Percentile bootstrap of the mean ({RESAMPLES} resamples) against "
            "`scipy.stats.bootstrap(method='percentile', vectorized=True)`",
            table(
                [
                    "sample",
                    "scipy (ms)",
                    "assay (ms)",
                    "speed-up",
                    "max bound difference",
                    "interval width",
                ],
                speed,
            ),
            "The two use different random streams, so compare the bound difference with the "
            "interval width in the same row. Pass / fail samples use the exact multinomial "
            "shortcut (the counts of each distinct value in a resample are multinomial).",
            "## Coverage of nominal 95% intervals (simulation, 400 samples each)",
            table(["distribution", "n", "assay coverage", "scipy coverage"], coverage),
            "Both columns come from the same simulated samples in this run.",
            f"## Whole report on a synthetic run ({info['rows']:,} result rows: {n_cases:,} cases "
            "× 3 models × 4 metrics)",
            table(["step", "CPU (s)", "result rows / s"], report),
            f"report.html: {info['html_mb']:.1f} MB (drill-down: {info['shown']} case × model "
            f"entries, failing first, within a 4 MB budget). Weakest slice found: "
            f"{info['weakest']}",
        ]
    )
    write_text(HERE / "results" / "report.md", page + "\n")
    print(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
