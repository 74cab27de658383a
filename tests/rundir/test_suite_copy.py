"""The run's suite copy (compressed Parquet) and suites streamed in chunks through evaluate."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

import assay
import assay.pipeline
from assay import TestCase
from assay.calibrate.dataset import run_labels
from assay.data import read_suite, write_suite
from assay.data.suite import iter_suite
from assay.errors import IncompleteRunError, InvalidInputError
from assay.fileio import sha256_file
from assay.report.case_texts import read_cases
from assay.rundir import load_run
from assay.rundir.layout import LEGACY_SUITE_FILE, MANIFEST_FILE, SUITE_FILE
from assay.rundir.suite_copy import suite_copy

DEMO = Path(assay.__file__).parent / "demo" / "suite.jsonl"


def _cases(n: int) -> list[TestCase]:
    """Distinct, text-heavy cases of two models, some perturbed, with labels and nested fields."""
    out = []
    for i in range(n):
        words = " ".join(f"term{(i * 7 + k) % 997}" for k in range(40))
        out.append(
            TestCase(
                id=f"q{i // 2}" + ("~typo" if i % 10 == 9 else ""),
                model=("a", "b")[i % 2],
                question=f"What does clause {i} say about {words[:40]}?",
                expected_answer=f"Clause {i} says {words}.",
                actual_answer=f"It says {words} and {i % 13} more things.",
                retrieved_context=[f"Clause {i}: {words}.", "Support is open every day."],
                relevant_ids={f"d{i}": 2.0},
                topic=("fees", "cards", "loans")[i % 3],
                parent_id=f"q{(i - 2) // 2}" if i % 10 == 9 else None,  # same model
                perturbation="typo" if i % 10 == 9 else None,
                labels={"correct": i % 3 != 0},
                metadata={"source": "test", "n": i},
                latency_s=0.1 * (i % 5),
            )
        )
    return out


def test_the_copy_is_compressed_parquet_holding_every_case_unchanged(tmp_path: Path) -> None:
    cases = _cases(600)
    source = write_suite(cases, tmp_path / "suite.jsonl")
    run = assay.evaluate(source, ["token_f1"], out=tmp_path / "run")
    assert run.path is not None
    copy = run.path / SUITE_FILE
    assert suite_copy(run.path) == copy and not (run.path / LEGACY_SUITE_FILE).exists()
    assert SUITE_FILE in run.manifest["files"]
    assert [c.model_dump() for c in read_suite(copy)] == [c.model_dump() for c in cases]
    # Stored compressed, not as a second raw copy of the suite.
    assert copy.stat().st_size < 0.5 * source.stat().st_size
    # The demo suite (conversations, trajectories, several references) round-trips too.
    demo = assay.evaluate(DEMO, ["exact_match"], out=tmp_path / "demo")
    assert demo.path is not None
    assert [c.model_dump() for c in read_suite(demo.path / SUITE_FILE)] == [
        c.model_dump() for c in read_suite(DEMO)
    ]


def test_readers_read_the_copy_by_case_key(tmp_path: Path) -> None:
    cases = _cases(40)
    run = assay.evaluate(cases, ["token_f1"], out=tmp_path / "run")
    assert run.path is not None
    shown = {("q3", "b"), ("q4~typo", "b"), ("nope", "a")}
    found = read_cases(run.path, shown)
    assert set(found) == {("q3", "b"), ("q4~typo", "b")}
    assert found[("q3", "b")]["retrieved_context"] == cases[7].retrieved_context
    labels = run_labels(run.path, "correct")
    assert len(labels) == 40 and labels["label"].tolist() == [c.labels["correct"] for c in cases]


def test_older_runs_with_a_json_lines_copy_are_still_read(tmp_path: Path) -> None:
    cases = _cases(12)
    run = assay.evaluate(cases, ["token_f1"], out=tmp_path / "run")
    assert run.path is not None
    # What an older assay wrote: suite.jsonl, recorded in the manifest; no suite.parquet.
    legacy = write_suite(cases, run.path / LEGACY_SUITE_FILE)
    (run.path / SUITE_FILE).unlink()
    manifest = json.loads((run.path / MANIFEST_FILE).read_text())
    del manifest["files"][SUITE_FILE]
    manifest["files"][LEGACY_SUITE_FILE] = sha256_file(legacy)
    (run.path / MANIFEST_FILE).write_text(json.dumps(manifest))
    load_run(run.path)  # still a complete run
    assert suite_copy(run.path) == legacy
    assert read_cases(run.path)[("q0", "a")]["question"] == cases[0].question
    assert run_labels(run.path, "correct")["label"].tolist() == [
        c.labels["correct"] for c in cases
    ]
    with legacy.open("a", encoding="utf-8") as handle:  # and still verified
        handle.write("\n")
    with pytest.raises(IncompleteRunError, match=r"suite\.jsonl: changed"):
        load_run(run.path)


@pytest.mark.parametrize("chunk", [64, 100])
def test_streamed_suite_scores_exactly_as_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """A suite file scored in several chunks gives the results of the whole suite in memory."""
    cases = _cases(500)
    source = write_suite(cases, tmp_path / "suite.parquet")
    names = ["rouge", "bleu", "token_f1", "exact_match"]
    whole = assay.evaluate(cases, names, batch_size=32)
    monkeypatch.setattr(assay.pipeline, "SCORING_CHUNK", chunk)
    seen: list[int] = []
    streamed = assay.evaluate(
        source, names, batch_size=32, progress=lambda name, done, total: seen.append(total)
    )
    assert set(seen) == {500}
    key = ["case_id", "model", "metric"]
    a = whole.results.sort_values(key).reset_index(drop=True)
    b = streamed.results.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b)
    assert whole.leaderboard == streamed.leaderboard
    assert whole.problems == streamed.problems and whole.insights == streamed.insights
    assert streamed.manifest["input"]["n_cases"] == 500
    assert streamed.manifest["input"]["models"] == ["a", "b"]
    assert streamed.manifest["input"]["sha256"] == sha256_file(source)


def test_grouped_evaluators_see_whole_groups_of_a_streamed_suite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = _cases(300)
    source = write_suite(cases, tmp_path / "suite.jsonl")
    name = "perturbation_robustness"
    whole = assay.evaluate(cases, [name])
    monkeypatch.setattr(assay.pipeline, "SCORING_CHUNK", 16)  # chunk edges between pairs
    streamed = assay.evaluate(source, [name], batch_size=8)
    assert whole.leaderboard == streamed.leaderboard
    assert sum(r["n_ok"] for r in whole.leaderboard if r["primary"]) == 30  # every pair found


def test_an_invalid_suite_file_names_every_problem_and_writes_nothing(tmp_path: Path) -> None:
    lines = [json.dumps({"id": f"q{i}", "actual_answer": "a"}) for i in range(20_000)]
    lines[3] = json.dumps({"id": "", "actual_answer": "a"})
    lines[15_000] = json.dumps({"id": "q1", "actual_answer": "a"})  # a repeated key
    lines[19_999] = json.dumps({"id": "q19999", "latency_s": -1})
    source = tmp_path / "suite.jsonl"
    source.write_text("\n".join(lines) + "\n")
    out = tmp_path / "run"
    with pytest.raises(InvalidInputError) as caught:
        assay.evaluate(source, ["exact_match"], out=out)
    message = str(caught.value)
    assert "3 invalid rows" in message
    assert "row 4, field 'id'" in message
    assert "row 15001, field 'id': duplicate case id 'q1'" in message
    assert "(first seen at row 2)" in message
    assert "row 20000, field 'latency_s'" in message
    assert not out.exists() and list(tmp_path.iterdir()) == [source]


def test_iter_suite_yields_chunks_and_nothing_after_an_invalid_row(tmp_path: Path) -> None:
    source = write_suite([TestCase(id=str(i)) for i in range(10)], tmp_path / "s.parquet")
    assert [len(c) for c in iter_suite(source, chunk_size=4)] == [4, 4, 2]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps({"id": str(i) if i != 5 else ""}) + "\n" for i in range(9)))
    chunks = iter_suite(bad, chunk_size=2)
    assert [c.id for c in next(chunks)] == ["0", "1"]
    assert [c.id for c in next(chunks)] == ["2", "3"]
    with pytest.raises(InvalidInputError, match=r"1 invalid rows:\n.*row 6, field 'id'"):
        next(chunks)


def test_json_lines_are_read_line_by_line_with_the_same_rules(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    text = '{"id": "a", "actual_answer": "x\u2028y\u0085z"}\r\n\n{"id": "b"}'
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())  # BOM, CRLF, a blank line, no final newline
    cases = read_suite(path).cases
    assert [c.id for c in cases] == ["a", "b"] and cases[0].actual_answer == "x\u2028y\u0085z"
    path.write_bytes(b'{"id": "a"}\n{"id": "caf\xe9"}\n')
    with pytest.raises(InvalidInputError, match=r"row 2: invalid UTF-8 at byte 23"):
        read_suite(path)


def test_every_case_field_round_trips_through_the_parquet_copy(tmp_path: Path) -> None:
    """A case with every field set (a field added later without a column type fails here)."""
    full = TestCase.model_validate(
        {
            "id": "q1~s2", "model": "m", "question": "Q?", "expected_answers": ["a", "b"],
            "retrieved_context": ["c"], "context_ids": ["d1"], "relevant_ids": {"d1": 2.0},
            "relevant_context": ["c"], "actual_answer": "a", "condition": "'a'",
            "topic": "t", "query_type": "qt", "perturbation": "typo", "parent_id": "q0",
            "labels": {"ok": True}, "latency_s": 0.5, "cost_usd": 0.01, "metadata": {"k": [1]},
            "turns": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "a"}],
            "scenario": "s", "expected_outcome": "o",
            "trajectory": {"steps": [{"name": "search", "arguments": {"q": "x"}}]},
            "sample": 2, "sample_of": "q1",
        }
    )
    unset = [name for name, value in full.model_dump().items() if value in (None, {}, [])]
    assert not unset, f"set these fields in the test: {unset}"
    path = write_suite([full, TestCase(id="bare")], tmp_path / "s.parquet")
    assert [c.model_dump() for c in read_suite(path)] == [
        full.model_dump(), TestCase(id="bare").model_dump()
    ]


def test_the_manifest_times_each_stage(tmp_path: Path) -> None:
    with_reports = assay.evaluate(_cases(20), ["token_f1"], out=tmp_path / "run")
    stages = json.loads((tmp_path / "run" / MANIFEST_FILE).read_text())["stages_s"]
    assert set(stages) == {"staging", "scoring", "analysis", "reports"}
    assert all(v >= 0 for v in stages.values()) and stages["reports"] > 0
    assert with_reports.manifest["stages_s"] == stages
    in_memory = assay.evaluate(_cases(20), ["token_f1"])
    assert "reports" not in in_memory.manifest["stages_s"]  # no report work without a directory
