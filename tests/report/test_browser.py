"""The HTML report in headless Chromium: loads cleanly, plots render, drill-down works, no XSS."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from assay.rundir.run import EvaluationRun

pytestmark = pytest.mark.slow

#: Where the screenshots go (kept for a human to look at; CI can archive the folder).
SCREENSHOTS = (
    Path(os.environ.get("ASSAY_SCREENSHOTS", "")) if os.environ.get("ASSAY_SCREENSHOTS") else None
)


def _open(browser: Any, run: EvaluationRun) -> None:
    browser.get((run.path / "report.html").resolve().as_uri())
    browser.get_log("browser")  # drain


def _errors(browser: Any) -> list[dict[str, Any]]:
    return [e for e in browser.get_log("browser") if e["level"] in {"SEVERE", "ERROR"}]


def test_report_loads_without_console_errors_and_plots_render(
    browser: Any, report_run: EvaluationRun, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    browser.get((report_run.path / "report.html").resolve().as_uri())
    assert browser.title == "assay evaluation report"
    assert _errors(browser) == []
    assert browser.find_element(By.TAG_NAME, "body").get_attribute("data-drilldown") == "ready"
    plots = browser.find_elements(By.CSS_SELECTOR, "svg.plot")
    kinds = {p.get_attribute("class").split()[-1] for p in plots}
    assert {"plot-forest", "plot-heatmap", "plot-box"} <= kinds
    for plot in plots:  # laid out, visible, with drawn marks
        size = plot.size
        assert size["width"] > 100 and size["height"] > 30
    heat = browser.find_element(By.CSS_SELECTOR, "svg.plot-heatmap")
    assert len(heat.find_elements(By.TAG_NAME, "rect")) >= 6
    assert browser.find_elements(By.CSS_SELECTOR, "#dimension-table tbody tr")
    path = (SCREENSHOTS or tmp_path) / "report-top.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(path)) and path.stat().st_size > 10_000


def test_drilldown_opens_and_highlights_the_least_grounded_sentence(
    browser: Any, report_run: EvaluationRun, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    _open(browser, report_run)
    rows = browser.find_elements(By.CSS_SELECTOR, "#case-table tbody tr")
    assert len(rows) == 60  # 30 cases x 2 models
    failing = browser.find_element(By.CSS_SELECTOR, "#case-status")
    browser.execute_script(
        "arguments[0].value = 'failing'; arguments[0].dispatchEvent(new Event('change'))", failing
    )
    rows = browser.find_elements(By.CSS_SELECTOR, "#case-table tbody tr")
    assert rows and all(int(r.find_elements(By.TAG_NAME, "td")[5].text) > 0 for r in rows)
    browser.find_element(By.ID, "case-search").send_keys("hotline")
    rows = browser.find_elements(By.CSS_SELECTOR, "#case-table tbody tr")
    assert 0 < len(rows) < 60
    target = rows[0]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
    target.click()
    detail = browser.find_element(By.ID, "case-detail")
    assert detail.is_displayed()
    mark = detail.find_element(By.CSS_SELECTOR, "mark.least-grounded")
    assert "hotline" in mark.text
    assert detail.find_elements(By.CSS_SELECTOR, "table.sentences tbody tr")
    assert "test_groundedness" in detail.text
    path = (SCREENSHOTS or tmp_path) / "report-drilldown.png"
    assert browser.save_screenshot(str(path))
    close = browser.find_element(By.ID, "case-close")
    assert close.is_displayed()
    close.click()
    assert not detail.is_displayed()
    assert _errors(browser) == []


def test_script_in_an_answer_is_shown_not_executed(browser: Any, report_run: EvaluationRun) -> None:
    from selenium.webdriver.common.by import By

    _open(browser, report_run)
    search = browser.find_element(By.ID, "case-search")
    search.send_keys("pwned")
    rows = browser.find_elements(By.CSS_SELECTOR, "#case-table tbody tr")
    assert rows and all(r.get_attribute("data-model") == "beta" for r in rows)
    rows[0].click()
    answer = browser.find_element(By.CSS_SELECTOR, "#case-detail .answer")
    assert "<script>window.__pwned = 1;" in answer.text
    assert "onerror" in answer.text
    assert browser.execute_script("return window.__pwned === undefined")
    assert browser.title == "assay evaluation report"
    assert not browser.find_elements(By.CSS_SELECTOR, "#case-detail script, #case-detail img")
    assert _errors(browser) == []


def test_metrics_skipped_for_one_reason_are_one_drilldown_row(browser: Any, tmp_path: Path
                                                               ) -> None:
    from selenium.webdriver.common.by import By

    import assay
    from assay import TestCase

    cases = [TestCase(id=f"q{i}", model="m", question="What is the fee?", expected_answer="5",
                      actual_answer="5") for i in range(3)]
    run = assay.evaluate(cases, ["attack_success", "exact_match"], out=tmp_path / "run")
    _open(browser, run)
    browser.find_elements(By.CSS_SELECTOR, "#case-table tbody tr")[0].click()
    detail = browser.find_element(By.ID, "case-detail")
    groups = detail.find_elements(By.CSS_SELECTOR, "table.metrics tr.skipped-group")
    assert len(groups) == 1
    from assay.evaluators.attack_success import AttackSuccess

    n_metrics = len(AttackSuccess.metrics)  # attack_success and one rate per attack category
    assert f"{n_metrics} metrics: attack_success *" in groups[0].text
    assert "not an attack case" in groups[0].text
    rows = detail.find_elements(By.CSS_SELECTOR, "table.metrics tbody tr")
    assert len(rows) == 2  # the attack group and exact_match
    assert _errors(browser) == []


def _open_case(browser: Any, run: EvaluationRun, case_id: str) -> Any:
    from selenium.webdriver.common.by import By

    _open(browser, run)
    row = browser.find_element(By.CSS_SELECTOR, f"#case-table tbody tr[data-case='{case_id}']")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
    row.click()
    detail = browser.find_element(By.ID, "case-detail")
    assert detail.is_displayed()
    return detail


def test_a_conversation_shows_its_turns_and_the_offending_turn(
    browser: Any, dialogue_run: EvaluationRun, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    detail = _open_case(browser, dialogue_run, "conv-loan")
    box = detail.find_element(By.CSS_SELECTOR, "details.conversation")
    assert box.get_attribute("open") is not None  # short: open by default
    turns = box.find_elements(By.CSS_SELECTOR, ".turn")
    assert [t.get_attribute("data-turn") for t in turns] == [str(n) for n in range(1, 8)]
    assert "offending turns 5, 7" in box.find_element(By.TAG_NAME, "summary").text
    linked, flagged = box.find_elements(By.CSS_SELECTOR, ".turn.flagged")
    assert (linked.get_attribute("data-turn"), flagged.get_attribute("data-turn")) == ("5", "7")
    assert "test_groundedness: fail" in linked.text and "per-turn case conv-loan#turn5" in linked.text
    assert "knowledge_retention: fail" in flagged.text and "6,000" in flagged.text
    tools = flagged.find_element(By.CSS_SELECTOR, "details.turn-tools")
    tools.find_element(By.TAG_NAME, "summary").click()
    assert "annuity" in tools.text and "250" in tools.text
    assert "<script>window.__pwnedTurn" in tools.text  # an argument, shown as text
    # hostile text in a turn and a tool argument is shown, never run
    assert "<script>window.__pwnedTurn = 1;</script>" in turns[1].text
    assert browser.execute_script("return window.__pwnedTurn === undefined")
    assert not detail.find_elements(By.CSS_SELECTOR, "script, img")
    assert not detail.find_elements(By.CSS_SELECTOR, ".question")  # the last user turn, above
    path = (SCREENSHOTS or tmp_path) / "report-conversation.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(path))
    assert _errors(browser) == []


def test_a_200_turn_conversation_is_collapsed_and_says_what_it_leaves_out(
    browser: Any, dialogue_run: EvaluationRun
) -> None:
    from selenium.webdriver.common.by import By

    from assay.report.dialogue_view import MAX_TURNS

    from .report_runs import LONG_OFFENDING, LONG_TURNS

    _open(browser, dialogue_run)
    browser.find_element(By.ID, "case-search").send_keys("limit is 3,000")  # turn text is searched
    rows = browser.find_elements(By.CSS_SELECTOR, "#case-table tbody tr")
    assert [r.get_attribute("data-case") for r in rows] == ["conv-long"]
    detail = _open_case(browser, dialogue_run, "conv-long")
    box = detail.find_element(By.CSS_SELECTOR, "details.conversation")
    assert box.get_attribute("open") is None  # long: collapsed
    summary = box.find_element(By.TAG_NAME, "summary")
    omitted = LONG_TURNS - MAX_TURNS - 2
    assert f"{LONG_TURNS} turns" in summary.text and f"{omitted} more turns not shown" in summary.text
    assert f"offending turn {LONG_OFFENDING}" in summary.text
    summary.click()
    turns = box.find_elements(By.CSS_SELECTOR, ".turn")
    assert len(turns) == MAX_TURNS + 2
    gaps = [g.text for g in box.find_elements(By.CSS_SELECTOR, ".gap")]
    assert gaps == [
        f"… {LONG_OFFENDING - MAX_TURNS - 1} turns not shown (turns {MAX_TURNS + 1}–{LONG_OFFENDING - 1})",
        f"… {LONG_TURNS - LONG_OFFENDING - 1} turns not shown (turns {LONG_OFFENDING + 1}–{LONG_TURNS - 1})",
    ]
    flagged = box.find_element(By.CSS_SELECTOR, ".turn.flagged")
    assert flagged.is_displayed() and flagged.get_attribute("data-turn") == str(LONG_OFFENDING)
    assert _errors(browser) == []


def test_a_trajectory_shows_its_steps_and_the_unrecovered_failure(
    browser: Any, dialogue_run: EvaluationRun
) -> None:
    from selenium.webdriver.common.by import By

    detail = _open_case(browser, dialogue_run, "agent-fx")
    box = detail.find_element(By.CSS_SELECTOR, "details.trajectory")
    assert "3 steps" in box.text and "unrecovered failed step 1" in box.text
    steps = box.find_elements(By.CSS_SELECTOR, "table.tool-calls")[0].find_elements(
        By.CSS_SELECTOR, "tbody tr")
    assert [r.find_elements(By.TAG_NAME, "td")[1].text for r in steps] == [
        "fx_rate", "fx_rate", "convert"]
    assert "flagged" in (steps[0].get_attribute("class") or "")
    assert "error: timeout" in steps[0].text and "108.0" in steps[2].text
    assert "100 EUR is 108 USD." in box.find_element(By.CSS_SELECTOR, ".final-answer").text
    assert "Expected tool calls (2 calls)" in box.text
    expected = box.find_elements(By.CSS_SELECTOR, "table.tool-calls")[1]
    assert [h.text for h in expected.find_elements(By.TAG_NAME, "th")] == ["tool", "arguments"]
    assert "108 USD" in detail.find_element(By.CSS_SELECTOR, ".expected-outcome").text
    assert _errors(browser) == []
