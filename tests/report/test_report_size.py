"""A bounded report: the drill-down embeds failing cases first within a byte budget, says so on the
page, and leaves every figure computed from all cases (benchmarks/bench_report_size.py measures
report.html at 119,100 cases)."""

from __future__ import annotations

import json
import re

import pandas as pd

from assay.analyze.summary import analyze_run
from assay.report.drilldown import MAX_BYTES, SELECTION_COLUMNS, drilldown, run_drilldown
from assay.report.html import render_html
from assay.rundir.run import EvaluationRun


def _cases(run: EvaluationRun, max_bytes: int) -> dict:
    selection = run.result_columns(list(SELECTION_COLUMNS))
    return run_drilldown(selection, run.path, full_rows=run.results_for, max_bytes=max_bytes)  # type: ignore[arg-type]


def test_the_drilldown_keeps_failing_cases_first_within_its_byte_budget(
    report_run: EvaluationRun,
) -> None:
    everything = _cases(report_run, MAX_BYTES)
    assert everything["shown"] == everything["total"] == 60
    budget = 40_000
    bounded = _cases(report_run, budget)
    assert 0 < bounded["shown"] < bounded["total"] == 60
    embedded = json.dumps(bounded["entries"], sort_keys=True)
    assert len(embedded) <= budget
    # the kept entries are the leading ones of the full ordering: most failures first
    assert [e["case_id"] for e in bounded["entries"]] == [
        e["case_id"] for e in everything["entries"][: bounded["shown"]]
    ]
    fails = [e["n_fail"] + e["n_error"] for e in everything["entries"]]
    assert fails == sorted(fails, reverse=True)


def test_the_page_states_what_it_embeds_and_keeps_the_same_figures(
    report_run: EvaluationRun,
) -> None:
    analysis = analyze_run(report_run, n_resamples=50)
    full = render_html(analysis, cases=_cases(report_run, MAX_BYTES))
    bounded = render_html(analysis, cases=_cases(report_run, 40_000))
    note = re.search(r'<p id="drilldown-note"[^>]*>(.*?)</p>', bounded, re.S)
    assert note and re.search(r"embeds \d+ of the run's 60 case × model entries", note[1])
    assert 'href="results.parquet"' in note[1]  # the rest a click away
    assert "All 60 case × model entries" in full
    assert len(bounded) < len(full)

    def figures(page: str) -> str:  # everything but the embedded cases and the time stamp
        page = re.sub(r'<script id="assay-cases".*?</script>', "", page, flags=re.S)
        page = re.sub(r'<p id="drilldown-note".*?</p>', "", page, flags=re.S)
        return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "", page)

    assert figures(bounded) == figures(full)


def test_only_the_report_is_bounded_the_labelling_queue_gets_every_case() -> None:
    """``drilldown`` without a budget (what the labelling app builds its queue from) keeps every
    entry, however large; the report's budget keeps fewer."""
    n = 6
    frame = pd.DataFrame({
        "case_id": [str(i) for i in range(n)], "model": "m", "evaluator": "e", "metric": "x",
        "primary": True, "status": "ok", "value": 0.2, "passed": False, "threshold": 0.5,
        "reason": None, "explanation": "low", "details": None, "topic": None,
        "query_type": None, "perturbation": None, "parent_id": None,
    })  # fmt: skip
    chunk = "The Everyday account costs 4.50 euros a month. " * 400  # ~19,000 characters
    cases = {(str(i), "m"): {"question": "fee?", "actual_answer": "4.50",
                             "retrieved_context": [chunk] * 50} for i in range(n)}
    every = drilldown(frame, cases)
    assert every["shown"] == n and len(json.dumps(every["entries"])) > MAX_BYTES
    bounded = drilldown(frame, cases, max_bytes=MAX_BYTES)
    assert 0 < bounded["shown"] < n
    assert len(json.dumps(bounded["entries"])) <= MAX_BYTES
