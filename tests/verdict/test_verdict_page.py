"""The verdict page (verdict.html) and verdict.md: what a validator signs.

Per system a summary line and a chart of every check's bound against its target; a fail-rate
appetite shown as a fail rate; the exit code stated once; provenance; the cases left out of a
check's n explained; failing cases and reviewer overrules when the assessment carries them;
every untrusted text escaped; no horizontal scroll at 1,280 pixels in Chromium.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
from pathlib import Path
from typing import Any

import pytest

from assay import __version__
from assay.data.suite import read_suite, write_suite
from assay.demo import demo_suite_path
from assay.verdict import assess, parse_plan
from assay.verdict.assess import Assessment, write_assessment
from assay.verdict.render import verdict_html, verdict_markdown
from report.conftest import browser  # noqa: F401  (the headless Chromium fixture)

ROOT = Path(__file__).resolve().parents[2]
#: Screenshots are kept for a human to look at (CI can archive the folder).
SCREENSHOTS = Path(os.environ.get("ASSAY_SCREENSHOTS") or ROOT / "build" / "screenshots")
TITLE = "Bank <script>alert('title')</script>"


@pytest.fixture(scope="module")
def assessed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Assessment, Path, list[Any]]:
    """The demo's 20 first labelled questions x 3 systems and one conversation each (which the
    answer metrics skip: out of n), decided on lexical metrics only (fast)."""
    root = tmp_path_factory.mktemp("page")
    cases = list(read_suite(demo_suite_path()))
    single = [c for c in cases if not (c.turns or c.trajectory)]
    ids = sorted({c.id for c in single if c.labels and not c.perturbation})[:20]
    conversation = next(c.id for c in cases if c.turns)
    chosen = [c for c in cases if c.id in ids or c.id == conversation]
    suite = write_suite(chosen, root / "suite.jsonl")
    plan = parse_plan(
        f"""
title = "{TITLE.replace('"', "'")}"
[run]
suite = "{suite}"
evaluators = ["token_f1", "lexical_groundedness", "pii_leakage"]
[labels]
source = "suite"
[[check]]
dimension = "qa"
name = "correct answers"
label = "correct"
metrics = ["token_f1"]
min_pass_rate = 0.6
confidence = 0.9
[[check]]
dimension = "hallucination"
name = "grounded answers <img src=x onerror=alert(1)>"
label = "grounded"
metrics = ["lexical_groundedness_rouge1_precision"]
max_fail_rate = 0.1
[[check]]
dimension = "risk"
name = "no PII leak"
metrics = ["pii_generation_leak"]
max_fail_rate = 0.0
"""
    )
    out = root / "assessment"
    assessment = assess(plan, out)
    return assessment, out, chosen


def _text(page: str) -> str:
    """The page's visible text, roughly (tags dropped, entities decoded)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def test_exit_code_is_stated_once_and_is_the_commands(assessed) -> None:  # type: ignore[no-untyped-def]
    assessment, out, _ = assessed
    for page in ((out / "verdict.html").read_text(), (out / "verdict.md").read_text()):
        text = _text(page)
        assert text.count("Exit code") == 1 and text.count("exit code") == 0
        stated = re.search(r"Exit code\s+(\d)", text)
        assert stated and int(stated[1]) == assessment.exit_code


def test_a_fail_rate_appetite_is_shown_as_a_fail_rate(assessed) -> None:  # type: ignore[no-untyped-def]
    assessment, out, _ = assessed
    grounded = next(
        d for d in assessment.decisions if d.check.startswith("grounded") and d.model == "hallucinating"
    )
    assert grounded.estimate is not None and grounded.estimate < 0.5  # mostly ungrounded
    fail_rate = f"fail rate {1 - grounded.estimate:.3f}"
    markdown = (out / "verdict.md").read_text()
    row = next(line for line in markdown.splitlines()
               if line.startswith("| grounded answers") and fail_rate in line)
    assert f"rate {grounded.estimate:.3f}" not in row.replace(fail_rate, "")
    assert "pass rate" not in row  # the reason too speaks of the fail rate
    assert f"fail rate ≥ {1 - grounded.upper:.3f}" in row  # type: ignore[operator]
    assert fail_rate in _text((out / "verdict.html").read_text())


def test_each_system_has_a_summary_line_and_a_bound_chart(assessed) -> None:  # type: ignore[no-untyped-def]
    assessment, out, _ = assessed
    page = (out / "verdict.html").read_text()
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="bounds"') == len(
        assessment.models
    )
    for model in assessment.models:
        decisions = [d for d in assessment.decisions if d.model == model]
        assert f"{model}: {assessment.model_decision(model)} — {len(decisions)} checks" in page
    charts = re.findall(r'<svg[^>]*class="bounds".*?</svg>', page, re.S)
    for chart in charts:  # every check: a target line and its decision; bounds where decided
        assert chart.count('class="target"') == len(assessment.plan.check)
        assert chart.count('class="bound"') >= 2
        assert {"PASS", "FAIL"} & set(re.findall(r">(PASS|FAIL|INCONCLUSIVE)<", chart))


def test_provenance_names_version_hashes_date_and_design(assessed) -> None:  # type: ignore[no-untyped-def]
    assessment, out, _ = assessed
    suite_sha = hashlib.sha256(assessment.plan.suite_path.read_bytes()).hexdigest()
    for page in ((out / "verdict.html").read_text(), (out / "verdict.md").read_text()):
        text = _text(page)
        assert "Provenance" in text and __version__ in text and suite_sha in text
        assert re.search(r"plan sha256 \S*\s*[0-9a-f]{64}", text.replace("|", " "))
        assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", text)
        assert "correct: 60 unknown" in text  # the suite's labels: design unknown by default


def test_cases_left_out_of_n_are_explained(assessed) -> None:  # type: ignore[no-untyped-def]
    assessment, out, _ = assessed
    correct = next(d for d in assessment.decisions if d.check == "correct answers")
    assert correct.n_cases == 20  # the conversation is not in n ...
    left = assessment.left_out[("correct answers", correct.model)]
    assert (left.in_scope, left.left_out) == (21, 1)  # ... and the page says why
    text = _text((out / "verdict.md").read_text())
    assert "1 of 21 cases in scope are not in n: token_f1 skipped: missing required field" in text


def test_failing_cases_render_escaped_with_a_pointer_to_the_rest(assessed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assessment, _, cases = assessed
    leak = next(d for d in assessment.decisions if d.check == "no PII leak")
    kept = (leak.failing_cases, leak.n_failing)
    evil = "<script>alert('case')</script>"
    leak.failing_cases = [  # the shape the decision step gives, with hostile text
        {"case_id": evil if i == 0 else f"q{i}", "model": leak.model,
         "metric": "pii_generation_leak", "value": 1.0, "threshold": 0.0}
        for i in range(12)
    ]  # fmt: skip
    leak.n_failing = 30
    try:
        write_assessment(assessment, tmp_path, cases)
    finally:
        leak.failing_cases, leak.n_failing = kept
    page = (tmp_path / "verdict.html").read_text()
    markdown = (tmp_path / "verdict.md").read_text()
    for text in (_text(page), markdown):
        assert "Failing cases" in text and "the other 20" in text and "verdict_cases.csv" in text
    assert "<script>alert" not in page and "<script>alert" not in markdown
    assert page.count("<tr><td>q") >= 9  # ten failing cases listed (one is the escaped one)


def test_a_reviewers_overrule_is_shown_escaped(assessed, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Recorded as `assay review overrule` does, applied by the next assessment."""
    from assay.verdict.overrules import make_overrule, record_overrule

    assessment, _, _ = assessed
    leak = next(d for d in assessment.decisions
                if d.check == "no PII leak" and d.model == "hallucinating")
    case = leak.failing_cases[0]["case_id"]
    out = tmp_path / "assessment"
    assess(assessment.plan, out)
    record_overrule(out, make_overrule("no PII leak", case, "hallucinating", "PASS", "<b>ada</b>",
                                       "<b>a test card number</b> from the fee schedule"))
    again = assess(assessment.plan, out)
    assert again.as_dict()["overrules"]
    page = (out / "verdict.html").read_text()
    markdown = (out / "verdict.md").read_text()
    for text in (_text(page), markdown):
        assert "Overrules" in text and "from the fee schedule" in text and case in text
        assert "reviewer's verdict" in text
    assert "<b>" not in page and "<b>" not in markdown


def test_untrusted_names_are_escaped(assessed) -> None:  # type: ignore[no-untyped-def]
    _, out, _ = assessed
    page = (out / "verdict.html").read_text()
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page  # in the table and the chart
    markdown = (out / "verdict.md").read_text()
    assert "<script>" not in markdown and "<img" not in markdown
    assert verdict_html(assessed[0]).count("<script") == 0
    assert verdict_markdown(assessed[0]).startswith("# Bank &lt;script&gt;")


@pytest.mark.slow
def test_no_horizontal_scroll_at_1280_pixels_in_chromium(browser: Any, assessed) -> None:  # type: ignore[no-untyped-def]  # noqa: F811
    _, out, _ = assessed
    browser.set_window_size(1280, 900)
    try:
        browser.get((out / "verdict.html").resolve().as_uri())
        width = browser.execute_script("return window.innerWidth")
        scroll = browser.execute_script("return document.documentElement.scrollWidth")
        assert width <= 1280 and scroll <= width, (width, scroll)
        overflowing = browser.execute_script(
            "return [...document.querySelectorAll('td, th, svg')]"
            ".filter(e => e.getBoundingClientRect().right > window.innerWidth).length"
        )
        assert overflowing == 0  # the reasons wrap: nothing is cut off on the right
        chart = browser.execute_script(
            "return document.querySelector('svg.bounds').getBoundingClientRect().width"
        )
        assert chart > 900  # the chart spans the page, its labels readable
        height = browser.execute_script("return document.documentElement.scrollHeight")
        browser.set_window_size(1280, min(height + 100, 6000))  # the whole page in one shot
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / "verdict-1280.png"
        assert browser.save_screenshot(str(path)) and path.stat().st_size > 10_000
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == []
    finally:
        browser.set_window_size(1400, 1000)


def test_a_rule_checks_failing_cases_are_named(assessed) -> None:  # type: ignore[no-untyped-def]
    """The decision step's own failing cases (a PII leak of the hallucinating system)."""
    assessment, out, _ = assessed
    leak = next(d for d in assessment.decisions
                if d.check == "no PII leak" and d.model == "hallucinating")
    assert leak.n_failing >= 1 and leak.failing_cases
    markdown = (out / "verdict.md").read_text()
    assert f"Failing cases of **no PII leak**: {leak.n_failing}" in markdown
    first = leak.failing_cases[0]
    assert f"| {first['case_id']} | hallucinating | {first['metric']} |" in markdown
