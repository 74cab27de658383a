"""The evaluation engine: run directory contents, atomicity, findings."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import assay
from assay import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec


def _cases() -> list[TestCase]:
    return [
        TestCase(
            id="q1",
            model="a",
            actual_answer="Paris",
            expected_answer="Paris",
            latency_s=0.5,
            cost_usd=0.01,
        ),
        TestCase(
            id="q1",
            model="b",
            actual_answer="Lyon",
            expected_answer="Paris",
            latency_s=2.0,
            cost_usd=0.002,
        ),
        TestCase(id="q2", model="a", actual_answer="4", expected_answer="4", latency_s=0.4),
        TestCase(id="q2", model="b", actual_answer="four", expected_answer="4", latency_s=2.2),
        TestCase(
            id="q2t",
            model="a",
            actual_answer="5",
            expected_answer="4",
            parent_id="q2",
            perturbation="typos",
        ),
        TestCase(id="q3", model="a", question="unanswered"),
    ]


def test_run_directory_holds_every_artifact(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run = assay.evaluate(_cases(), ["exact_match", "token_f1"], out=out, seed=7)
    expected = {
        "results.parquet",
        "results.csv",
        "leaderboard.json",
        "leaderboard.md",
        "problems.json",
        "insights.json",
        "manifest.json",
        "report.md",
    }
    assert expected <= {p.name for p in out.iterdir()}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["schema_version"] == 2 and manifest["seed"] == 7
    assert manifest["status"] == "complete"
    assert [e["name"] for e in manifest["evaluators"]] == ["exact_match", "token_f1"]
    assert set(manifest["files"]) >= {"results.parquet", "report.md"}
    results = pd.read_parquet(out / "results.parquet")
    assert len(results) == 12  # 6 cases x 2 metrics
    skipped = results[results["status"] == "skipped"]
    assert set(skipped["case_id"]) == {"q3"}
    assert skipped["reason"].str.contains("missing required field").all()
    assert skipped["value"].isna().all() and skipped["passed"].isna().all()
    assert run.metric("a", "exact_match") == pytest.approx(2 / 3)
    row = next(r for r in run.leaderboard if r["model"] == "a" and r["metric"] == "exact_match")
    assert (row["n_ok"], row["n_skipped"], row["n_error"]) == (3, 1, 0)
    loaded = assay.load_run(out)
    assert loaded.leaderboard == run.leaderboard and len(loaded.results) == 12


def test_findings(tmp_path: Path) -> None:
    run = assay.evaluate(_cases(), ["exact_match"], out=tmp_path / "r")
    kinds = {p["kind"] for p in run.problems}
    assert {"below_threshold", "most_difficult_case", "perturbation_flip"} <= kinds
    flip = next(p for p in run.problems if p["kind"] == "perturbation_flip")
    assert flip["case_id"] == "q2t" and flip["severity"] == "high"
    below = [p["model"] for p in run.problems if p["kind"] == "below_threshold"]
    assert below == ["a", "b"] or below == ["b", "a"] or "b" in below
    insight_kinds = {i["kind"]: i.get("model") for i in run.insights}
    assert insight_kinds["best_model"] == "a"
    assert insight_kinds["fastest_model"] == "a" and insight_kinds["slowest_model"] == "b"
    assert insight_kinds["cheapest_model"] == "b"
    assert insight_kinds["most_expensive_model"] == "a"


def test_threshold_override_and_unknown_metric(tmp_path: Path) -> None:
    run = assay.evaluate(_cases(), ["token_f1"], thresholds={"token_f1": 0.0})
    assert all(r["passed"] for r in run.leaderboard)
    with pytest.raises(InvalidInputError, match="unknown metric 'rouge9'"):
        assay.evaluate(_cases(), ["token_f1"], thresholds={"rouge9": 0.1})


def test_existing_directory_needs_overwrite(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assay.evaluate(_cases(), ["exact_match"], out=out)
    with pytest.raises(InvalidInputError, match="already exists"):
        assay.evaluate(_cases(), ["exact_match"], out=out)
    assay.evaluate(_cases(), ["exact_match"], out=out, overwrite=True)


class _Exploding(Evaluator):
    name = "exploding_test_only"
    family = "test"
    description = "raises on the second batch, or interrupts the run"
    metrics = (MetricSpec("exploding_value", "a value"),)

    def __init__(self, interrupt: bool = False) -> None:
        self.interrupt = interrupt
        self.calls = 0

    def score(self, cases: list[TestCase]) -> list[CaseResult]:  # type: ignore[override]
        self.calls += 1
        if self.calls == 2:
            if self.interrupt:
                raise KeyboardInterrupt
            raise RuntimeError("model server went away")
        return [CaseResult.ok({"exploding_value": 0.5}) for _ in cases]


def test_failing_batch_becomes_error_outcomes_not_a_crash() -> None:
    run = assay.evaluate(_cases(), [_Exploding()], batch_size=2)
    results = run.results
    errors = results[results["status"] == "error"]
    assert len(errors) == 2 and errors["reason"].str.contains("model server went away").all()
    assert sum(r["n_error"] for r in run.leaderboard) == 2
    assert all(r["value"] == 0.5 for r in run.leaderboard)


def test_a_check_unmeasured_by_errors_says_why_in_its_problem(tmp_path: Path) -> None:
    run = assay.evaluate(
        _cases(), [_Exploding()], batch_size=2, thresholds={"exploding_value": 0.4},
        out=tmp_path / "run",
    )  # fmt: skip
    said = [p["message"] for p in run.problems if p["kind"].startswith("verdict")]
    assert said and all(
        "the run says: RuntimeError: model server went away (1 case)" in m
        and "why: RuntimeError: model server went away (1)" in m
        for m in said
    ), said


def test_rows_read_by_status_are_the_rows_of_that_status(tmp_path: Path) -> None:
    from assay.rundir import load_run
    from assay.rundir.results import read_results

    evaluators = [_Exploding(), "exact_match", "retrieval"]
    memory = assay.evaluate(_cases(), evaluators, batch_size=2, out=tmp_path / "run")
    stored = load_run(tmp_path / "run")
    whole = read_results(tmp_path / "run")
    assert set(whole["status"]) == {"ok", "skipped", "error"}
    for statuses in ({"error"}, {"skipped", "error"}):
        expected = whole[whole["status"].isin(statuses)].reset_index(drop=True)
        read = read_results(tmp_path / "run", statuses=statuses)
        pd.testing.assert_frame_equal(read.astype(expected.dtypes.to_dict()), expected)
        for run in (memory, stored):  # filtered in memory, and while reading the file
            columns = run.result_columns(["case_id", "metric", "status"], statuses=statuses)
            assert sorted(map(tuple, columns.astype(str).to_numpy().tolist())) == sorted(
                map(tuple, expected[["case_id", "metric", "status"]].to_numpy().tolist())
            )


def test_interrupted_run_leaves_no_complete_looking_output(tmp_path: Path) -> None:
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        assay.evaluate(_cases(), [_Exploding(interrupt=True)], out=out, batch_size=2)
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InvalidInputError, match="not a complete run directory"):
        assay.load_run(out)


def _meta(html: str) -> str:
    """The run details in the HTML header, without the report's own generation time."""
    import re

    match = re.search(r'<div class="meta">(.*?)report generated', html, re.S)
    assert match is not None
    return " ".join(match.group(1).split())


def test_reports_written_by_evaluate_show_the_run_details(tmp_path: Path) -> None:
    """The manifest's run details reach the reports evaluate writes (they are built before the
    reports), the same as ``assay report`` shows; manifest.json still comes last with hashes."""
    from click.testing import CliRunner

    from assay.cli.main import cli
    from assay.fileio import sha256_file

    suite = assay.write_suite(_cases(), tmp_path / "suite.jsonl")
    out = tmp_path / "run"
    assay.evaluate(suite, ["exact_match"], out=out, seed=7)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["finished_at"] >= manifest["started_at"]
    for name in ("report.html", "report.md", "leaderboard.md", "analysis.json"):
        assert manifest["files"][name] == sha256_file(out / name)
    details = [str(suite), manifest["input"]["sha256"][:12], "seed 7", f"assay {assay.__version__}"]
    written_html = (out / "report.html").read_text()
    written_md = (out / "report.md").read_text()
    for detail in details:
        assert detail in _meta(written_html) and detail in written_md
    assert manifest["started_at"] in _meta(written_html)  # report.md stays free of times

    result = CliRunner().invoke(cli, ["report", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert _meta((out / "report.html").read_text()) == _meta(written_html)
    assert (out / "report.md").read_text() == written_md


def test_corpus_details_are_stored_per_evaluator_and_model(tmp_path: Path) -> None:
    """The classification confusion matrix reaches corpus_details.json (hashed in the manifest),
    the run object, load_run and the Markdown report; runs without corpus details write none."""
    from assay.fileio import sha256_file

    answers = {
        "a": [("pos", "pos"), ("neg", "pos"), ("neg", "neg"), ("pos", "pos")],
        "b": [("neg", "pos"), ("neg", "neg"), ("pos", "neg"), ("neg", "neg")],
    }
    cases = [
        TestCase(id=f"q{i}", model=model, actual_answer=predicted, expected_answer=true)
        for model, pairs in answers.items()
        for i, (predicted, true) in enumerate(pairs)
    ]
    out = tmp_path / "run"
    run = assay.evaluate(cases, ["classification", "exact_match"], out=out, batch_size=3)
    stored = json.loads((out / "corpus_details.json").read_text())
    matrices = {
        model: {key: details[key] for key in ("labels", "confusion_matrix")}
        for model, details in stored["classification"].items()
    }
    assert matrices == {
        "a": {"labels": ["neg", "pos"], "confusion_matrix": [[1, 0], [1, 2]]},
        "b": {"labels": ["neg", "pos"], "confusion_matrix": [[2, 1], [1, 0]]},
    }
    assert stored["classification"]["b"]["per_class"]["neg"]["support"] == 3
    assert run.corpus_details == stored and assay.load_run(out).corpus_details == stored
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["files"]["corpus_details.json"] == sha256_file(out / "corpus_details.json")
    report = (out / "report.md").read_text()
    assert "## Confusion matrices" in report and "### classification, model b" in report
    assert "| true ↓ predicted → | neg | pos |\n|---|---|---|\n| neg | 2 | 1 |" in report

    plain = assay.evaluate(cases, ["exact_match"], out=tmp_path / "plain")
    assert plain.corpus_details == {} and not (tmp_path / "plain" / "corpus_details.json").exists()
    assert "Confusion" not in (tmp_path / "plain" / "report.md").read_text()


def test_no_report_work_without_a_run_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.report

    def refuse(*args: object, **kwargs: object) -> list[Path]:
        raise AssertionError("reports built for a run nobody keeps")

    monkeypatch.setattr(assay.report, "write_reports", refuse)
    run = assay.evaluate(_cases(), ["exact_match"])
    assert run.path is None and run.metric("a", "exact_match") == pytest.approx(2 / 3)


def test_reports_are_written_into_the_run_directory(tmp_path: Path) -> None:
    run = assay.evaluate(_cases(), ["exact_match"], out=tmp_path / "run")
    assert run.path is not None
    assert (run.path / "report.html").is_file() and (run.path / "analysis.json").is_file()
    listed = json.loads((run.path / "manifest.json").read_text(encoding="utf-8"))
    assert "report.html" in json.dumps(listed)
