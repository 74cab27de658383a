"""The HTML report as a document: self-contained, escaped, complete; rebuilt by ``assay report``."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.report import write_reports
from assay.rundir.layout import SUITE_FILE
from assay.rundir.run import EvaluationRun, load_run

from .report_runs import SCRIPT_ANSWER


@pytest.fixture(scope="module")
def page(report_run: EvaluationRun) -> str:
    return (report_run.path / "report.html").read_text(encoding="utf-8")


def test_every_report_file_is_written_and_recorded(report_run: EvaluationRun) -> None:
    files = set(report_run.manifest["files"])
    assert {"report.html", "analysis.json", "report.md", SUITE_FILE} <= files
    analysis = json.loads((report_run.path / "analysis.json").read_text())
    verdict = analysis["verdict"]
    assert set(verdict["models"]) == {"alpha", "beta"}
    assert {c["metric"] for c in verdict["plan"]["checks"]} == {"test_groundedness", "token_f1"}
    assert verdict["plan"]["not_deciding"] == {"exact_match": "correct answers (token_f1)"}
    assert {c["dimension"] for c in verdict["checks"]} == {"qa", "hallucination"}
    assert analysis["weakest"][0]["slice"] == "loans"


def test_the_page_is_self_contained(page: str) -> None:
    # a base64 script hash in the CSP may contain "//": it is not a URL
    unhashed = re.sub(r"'sha256-[A-Za-z0-9+/=]+'", "'sha256-…'", page)
    urls = set(re.findall(r"(?:https?:)?//[\w.-]+[^\s\"'<>)]*", unhashed))
    assert urls <= {"http://www.w3.org/2000/svg"}, urls
    assert not re.search(r"<(link|script|img|iframe)[^>]+(src|href)=\"(?!data:)", page)
    assert "<style>" in page and page.count("<script") == 2


def test_content_security_policy_allows_only_the_report_script(page: str) -> None:
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page).group(1)
    assert "default-src 'none'" in policy and "unsafe-inline" not in policy.split("script-src")[1]
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"'sha256-{digest}'" in policy


def test_model_text_is_escaped(page: str) -> None:
    assert "<script>window.__pwned" not in page
    assert "<img src=x" not in page
    # The answer travels as JSON inside a non-executed block, with < and > escaped.
    payload = re.search(
        r'<script id="assay-cases" type="application/json">(.*?)</script>', page, re.S
    )
    entries = json.loads(payload.group(1))["entries"]
    assert any(e["answer"] == SCRIPT_ANSWER for e in entries)
    assert "\\u003cscript\\u003e" in payload.group(1)


def test_sections_are_present(page: str) -> None:
    for anchor in ("summary", "dimensions", "leaderboard", "findings", "weaknesses", "cases"):
        assert f'id="{anchor}"' in page
    assert "Pairwise significance" in page and "Weakest slices" in page
    assert 'class="plot plot-forest"' in page and 'class="plot plot-heatmap"' in page
    assert "calibration" not in page.lower().split("<main>")[1].split('id="cases"')[0]


def test_calibration_results_are_shown_when_present(
    report_run: EvaluationRun, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(report_run.path, run_dir)
    (run_dir / "calibration.json").write_text(
        json.dumps(
            {
                "metric": "test_groundedness",
                "method": "isotonic",
                "ece": 0.031,
                "coverage": {"target": 0.9, "empirical": 0.913},
                "note": "<b>bold?</b>",
            }
        )
    )
    sub = run_dir / "calibration"  # where 'assay calibrate' writes
    sub.mkdir()
    (sub / "thresholds.json").write_text(json.dumps({"method": "youden", "threshold": 0.42}))
    bins = [
        {"lower": 0.0, "upper": 0.5, "n": 4, "mean_predicted": 0.3, "observed": 0.25},
        {"lower": 0.5, "upper": 1.0, "n": 9, "mean_predicted": 0.8, "observed": 0.78},
    ]
    (sub / "thresholds_plot.json").write_text(json.dumps({"reliability": bins}))
    run = load_run(run_dir)
    write_reports(run, run_dir, n_resamples=50)
    page = (run_dir / "report.html").read_text()
    assert 'id="calibration"' in page and "isotonic" in page and "0.913" in page
    assert "calibration/thresholds.json" in page and "youden" in page
    assert "thresholds_plot.json" not in page
    assert page.count('class="plot plot-reliability"') == 1
    assert "&lt;b&gt;bold?&lt;/b&gt;" in page and "<b>bold?" not in page


def test_assay_report_rebuilds_from_the_run_directory_alone(
    report_run: EvaluationRun, tmp_path: Path
) -> None:
    run_dir = tmp_path / "copied"
    shutil.copytree(report_run.path, run_dir)
    for name in ("report.html", "analysis.json", "report.md"):
        (run_dir / name).unlink()
    result = CliRunner().invoke(cli, ["report", str(run_dir), "--resamples", "50"])
    assert result.exit_code == 0, result.output
    page = (run_dir / "report.html").read_text()
    assert "hotline" in page  # case texts come from the copied suite.jsonl
    before = json.loads((report_run.path / "analysis.json").read_text())["verdict"]
    after = json.loads((run_dir / "analysis.json").read_text())["verdict"]
    assert after == before  # decided again from the directory alone, the same verdict
    markdown = (run_dir / "report.md").read_text()
    assert "Six-dimension validation summary" in markdown and "Verdict" in markdown


def test_analysis_is_reproducible_for_a_seed(report_run: EvaluationRun, tmp_path: Path) -> None:
    from assay.analyze.summary import analyze_run

    first = analyze_run(report_run, n_resamples=100, seed=3)
    again = analyze_run(report_run, n_resamples=100, seed=3)
    assert json.dumps(first) == json.dumps(again)


def test_drilldown_is_capped_with_failing_cases_first(report_run: EvaluationRun) -> None:
    from assay.report.case_texts import read_cases
    from assay.report.drilldown import drilldown

    results = report_run.results
    full = drilldown(results, read_cases(report_run.path))
    capped = drilldown(results, read_cases(report_run.path), max_cases=5)
    assert (full["total"], full["shown"]) == (60, 60)
    assert (capped["total"], capped["shown"]) == (60, 5)
    worst = sorted(e["n_fail"] + e["n_error"] for e in full["entries"])[-5:]
    assert sorted(e["n_fail"] + e["n_error"] for e in capped["entries"]) == worst
    assert all(e["question"] for e in capped["entries"])


def test_rebuild_keeps_manifest_hashes_true(report_run: EvaluationRun, tmp_path: Path) -> None:
    from assay.fileio import sha256_file

    run_dir = tmp_path / "hashes"
    shutil.copytree(report_run.path, run_dir)
    result = CliRunner().invoke(
        cli, ["report", str(run_dir), "--resamples", "20", "--heatmap", "perturbation,topic"]
    )
    assert result.exit_code == 0, result.output
    heatmaps = json.loads((run_dir / "analysis.json").read_text())["heatmaps"]
    assert heatmaps and {(h["rows"], h["columns"]) for h in heatmaps} == {("perturbation", "topic")}
    bad = CliRunner().invoke(cli, ["report", str(run_dir), "--heatmap", "topic,topic"])
    assert bad.exit_code == 2 and "two different fields" in bad.output
    manifest = json.loads((run_dir / "manifest.json").read_text())
    for name in ("report.html", "analysis.json", "report.md", "leaderboard.md"):
        assert manifest["files"][name] == sha256_file(run_dir / name)
    assert "reports_rebuilt_at" in manifest and load_run(run_dir).manifest["status"] == "complete"


def test_older_runs_without_suite_copy_use_the_unchanged_original(tmp_path: Path) -> None:
    import assay
    from assay.data import write_suite
    from assay.report.case_texts import read_cases

    from .report_runs import report_cases

    source = write_suite(report_cases()[:4], tmp_path / "suite.jsonl")
    run_dir = tmp_path / "old-run"
    assay.evaluate(source, ["token_f1"], out=run_dir)
    (run_dir / SUITE_FILE).unlink()
    assert len(read_cases(run_dir)) == 4
    source.write_text(source.read_text() + "\n")  # changed since the run: not trusted
    assert read_cases(run_dir) == {}


def test_markdown_and_html_show_each_check_of_the_verdict_with_its_threshold(
    report_run: EvaluationRun, page: str
) -> None:
    analysis = json.loads((report_run.path / "analysis.json").read_text())
    markdown = (report_run.path / "report.md").read_text()
    verdict = analysis["verdict"]
    assert f"**Verdict: {verdict['decision']}**" in markdown
    assert f'Verdict: <span class="badge {verdict["decision"].lower()}">' in page
    rules = {c["check"]: c["rule"] for c in verdict["plan"]["checks"]}
    assert rules["grounded answers (test_groundedness)"] == "test_groundedness ≥ 0.5"
    section = markdown.split("### Checks", 1)[1].split("\n\n", 2)[1]
    for check in verdict["checks"]:
        row = next(line for line in section.splitlines()
                   if line.startswith(f"| {check['model']} |") and f"| {check['check']} |" in line)
        cells = [c.strip() for c in row.strip("|").split(" | ")]
        assert cells[3] == rules[check["check"]] and cells[5] == check["decision"]
        assert f"<td>{rules[check['check']]}</td>" in page.replace("&amp;", "&")
    assert "### The implicit plan" in markdown and 'id="implicit-plan"' in page
