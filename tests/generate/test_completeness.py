"""``assay generate`` fails loudly: fewer questions kept than ``--min-kept`` of ``--n`` exits 1
with the drop reasons on stderr, and nothing at ``--out`` looks complete; the scripted writer is
a marked dry run. Through the CLI with a loopback server writing unusable replies (no model)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import read_suite
from assay.generate.completeness import Shortfall, minimum_kept, shortfall
from judge._servers import FakeOpenAI  # tests/judge: the loopback OpenAI-compatible server

BASE = ["--embedder", "fake", "--chunk-size", "30", "--k", "2", "--seed", "3",
        "--types", "factual", "--min-source-similarity", "-1", "--duplicate-similarity", "1"]


def _run(corpus: Path, out: Path, reply: Any, *extra: str) -> tuple[Any, FakeOpenAI]:
    with FakeOpenAI(reply) as server:
        judge = json.dumps({"base_url": f"{server.url}/v1", "model": "tiny", "cache": None,
                            "max_retries": 0})
        result = CliRunner().invoke(cli, ["generate", str(corpus), "--n", "6", "--judge", judge,
                                          *BASE, *extra, "--out", str(out)])
    return result, server


def test_unparseable_replies_exit_1_with_reasons_and_no_complete_looking_suite(
        corpus_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "suite.jsonl"
    out.write_text("", encoding="utf-8")  # an earlier file at --out is left alone
    result, _ = _run(corpus_dir, out, lambda payload: "Sure! Here are some questions: 1. What")
    assert result.exit_code == 1, result.output
    assert "generation incomplete: kept 0 of 6 questions requested (at least 5 needed" in (
        result.stderr)
    assert "parse_failure 6" in result.stderr and "--writer compact" in result.stderr
    assert "nothing written to" in result.stderr
    assert result.stdout == ""  # the suite path is printed only when a suite is written
    assert out.read_text(encoding="utf-8") == ""
    assert not (tmp_path / "suite.generation.json").exists()
    report = json.loads((tmp_path / "suite.incomplete.generation.json").read_text())
    assert report["summary"]["complete"] is False and report["summary"]["minimum_kept"] == 5
    assert {d["reason"] for d in report["dropped"]} == {"parse_failure"}
    assert (tmp_path / "suite.incomplete.jsonl").is_file()


def test_the_tolerance_decides_the_exit_code(corpus_dir: Path, tmp_path: Path) -> None:
    """The writer answers some passages with prose (unusable) and the others well: the run
    keeping k of 6 passes at --min-kept k/6 and fails, writing nothing at --out, just above."""

    def some(payload: dict[str, Any]) -> str:
        prompt = payload["messages"][1]["content"]  # the task (a parse retry appends to it)
        if '"facts"' in json.dumps(payload.get("response_format") or {}):
            return json.dumps({"facts": ["The card fee is 5 euros a month."]})
        if zlib.crc32(prompt.encode()) % 3 == 0:
            return "Here is a question about the passage."
        first = prompt.split("PASSAGE:\n", 1)[1].split(".")[0].strip() + "."
        return json.dumps({"questions": [{"question": f"What does it say on {first[:40]}?",
                                          "answer": first}]})

    first, _ = _run(corpus_dir, tmp_path / "a" / "suite.jsonl", some, "--min-kept", "0")
    kept = len(read_suite(tmp_path / "a" / "suite.jsonl"))
    assert first.exit_code == 0, first.output
    assert 0 < kept < 6, kept
    accepted, _ = _run(corpus_dir, tmp_path / "b" / "suite.jsonl", some,
                       "--min-kept", f"{kept / 6:.4f}")
    refused, _ = _run(corpus_dir, tmp_path / "c" / "suite.jsonl", some,
                      "--min-kept", f"{(kept + 1) / 6:.4f}")
    assert accepted.exit_code == 0, accepted.output
    assert len(read_suite(tmp_path / "b" / "suite.jsonl")) == kept
    assert refused.exit_code == 1 and f"kept {kept} of 6" in refused.stderr
    assert "parse_failure" in refused.stderr
    assert not (tmp_path / "c" / "suite.jsonl").exists()
    assert len(read_suite(tmp_path / "c" / "suite.incomplete.jsonl")) == kept


def test_scripted_is_a_marked_dry_run(corpus_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "suite.jsonl"
    result = CliRunner().invoke(cli, ["generate", str(corpus_dir), "--n", "4", "--judge",
                                      "scripted", *BASE, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("DRY RUN") == 2  # before and after the work
    assert all(case.metadata["dry_run"] is True for case in read_suite(out))
    assert json.loads((tmp_path / "suite.generation.json").read_text())["dry_run"] is True


def test_shortfall_counts_losses_not_the_oversampling_surplus() -> None:
    report = {"summary": {"requested": 10, "kept": 7},
              "dropped": [{"reason": "over_quota"}] * 5 + [{"reason": "placeholder"}] * 3}
    found = shortfall(report, 0.8)
    assert found == Shortfall(10, 7, 8, 0.8, {"placeholder": 3})
    assert "unusable for 3 of 3" in found.message()
    assert shortfall(report, 0.7) is None and minimum_kept(10, 0.7) == 7
