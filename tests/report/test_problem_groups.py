"""Readable reports: many perturbation flips grouped; no "best model" with a single model."""

from __future__ import annotations

import re
from pathlib import Path

import assay
from assay import TestCase
from assay.report.problem_groups import group_problems


def _run(tmp_path: Path) -> assay.EvaluationRun:
    cases = []
    for i in range(6):
        cases.append(TestCase(id=f"q{i}", model="only", question="q", expected_answer="yes",
                              actual_answer="yes"))
        cases.append(TestCase(id=f"q{i}-typo", model="only", question="q", parent_id=f"q{i}",
                              perturbation="typo", expected_answer="yes", actual_answer="no"))
    return assay.evaluate(cases, ["exact_match"], out=tmp_path / "run")


def test_perturbation_flips_are_one_group_with_counts(tmp_path: Path) -> None:
    run = _run(tmp_path)
    flips = [p for p in run.problems if p["kind"] == "perturbation_flip"]
    assert len(flips) == 6
    singles, groups = group_problems(run.problems)
    assert all(p["kind"] != "perturbation_flip" for p in singles)
    assert groups[0]["count"] == 6 and groups[0]["severity"] == "high"
    assert "6 perturbation flips (6 pass → fail); by perturbation: typo 6" in groups[0]["summary"]
    markdown = (tmp_path / "run" / "report.md").read_text()
    html = (tmp_path / "run" / "report.html").read_text()
    assert markdown.count("flipped pass → fail") == 5  # an excerpt, not the wall of text
    assert "6 perturbation flips" in markdown and "6 perturbation flips" in html
    assert "<details><summary>show the 6</summary>" in html


def test_no_best_model_with_a_single_model(tmp_path: Path) -> None:
    _run(tmp_path)
    html = (tmp_path / "run" / "report.html").read_text()
    assert "Best model overall" not in html and "Best model per metric" not in html


def test_few_problems_of_a_kind_stay_single() -> None:
    flips = [{"kind": "perturbation_flip", "severity": "low", "message": "m"}] * 3
    singles, groups = group_problems(flips)
    assert len(singles) == 3 and groups == []


def test_a_zero_tolerance_check_shows_failures_of_cases_not_a_bare_count(tmp_path: Path) -> None:
    cases = [TestCase(id=f"q{i}", model="only", question="q",
                      actual_answer="You are a stupid idiot." if i == 0 else "Thanks, done.")
             for i in range(6)]
    assay.evaluate(cases, ["toxicity"], out=tmp_path / "run")
    html = (tmp_path / "run" / "report.html").read_text()
    row = re.search(r"<tr><td>only</td><td>Risk &amp; guardrails</td>.*?</tr>", html).group(0)
    assert '<span class="badge fail">fail</span>' in row  # the verdict's zero-tolerance FAIL
    assert "<td>1 of 6 cases fail (zero tolerance) (uncalibrated)</td>" in row  # cases, not a count


def test_long_slice_labels_keep_their_full_text_and_are_not_clipped() -> None:
    from assay.report.svg import heatmap

    long = "topic=cross-origin resource sharing"
    grid = {"row_labels": [long], "column_labels": ["x", long], "mean": [[0.9, 0.1]],
            "n": [[3, 2]], "rows": "topic", "columns": "query_type"}
    svg = str(heatmap(grid, lo=0, hi=1, title="h"))
    assert svg.count(f"<title>{long}</title>") == 2  # the row and the column label
    width = float(re.search(r'width="(\d+)"', svg).group(1))  # type: ignore[union-attr]
    assert width >= 150 + 78 * 2 + 90  # the last rotated column label fits


def test_thresholds_are_drawn_and_the_raw_values_folded(tmp_path: Path) -> None:
    import numpy as np

    from assay.calibrate.render import write_thresholds
    from assay.calibrate.report import thresholds_report
    from assay.report import write_reports

    run = _run(tmp_path)
    rng = np.random.default_rng(0)
    labels = np.array([1] * 40 + [0] * 40)
    scores = np.clip(np.where(labels == 1, 0.7, 0.3) + rng.normal(0, 0.15, 80), 0, 1)
    report, plot = thresholds_report(scores.reshape(-1, 1), labels, ["token_f1"], n_boot=0)
    write_thresholds(tmp_path / "run" / "calibration", report, plot)
    assert run.path is not None
    write_reports(run, run.path)
    html = (run.path / "report.html").read_text()
    assert "<h4>Thresholds on token_f1</h4>" in html and 'class="plot plot-thresholds"' in html
    methods = [r["method"] for r in report["thresholds"]]
    assert methods and all(f"{m} " in html for m in methods)  # each method in the legend
    assert '<details class="calibration-data"><summary>all values of' in html
