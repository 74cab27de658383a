"""``assay generate`` end to end with the scripted judge and the fake embedder."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import read_suite


def test_generate_command(corpus_dir: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"junk")
    out = tmp_path / "suite.jsonl"
    args = ["generate", str(corpus_dir), str(broken), "--n", "8",
            "--types", "factual,yes_no", "--types", "unanswerable", "--judge", "scripted",
            "--embedder", "fake", "--chunk-size", "30", "--k", "2", "--seed", "3",
            "--min-source-similarity", "0.2", "--unanswerable-max-similarity", "0.6",
            "--out", str(out)]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "unreadable" in result.output and "broken.pdf" in result.output
    assert "Coverage by topic" in result.output and "topics covered" in result.output
    suite = read_suite(out)
    assert {c.query_type for c in suite} <= {"factual", "yes_no", "unanswerable"}
    report = json.loads((tmp_path / "suite.generation.json").read_text())
    assert report["config"]["n"] == 8 and report["config"]["seed"] == 3
    assert report["config"]["selection"]["min_source_similarity"] == 0.2
    assert report["config"]["types"] == ["factual", "yes_no", "unanswerable"]
    for name in ("suite.coverage.md", "suite.topics.svg", "suite.chunks.jsonl"):
        assert (tmp_path / name).is_file()


def test_generate_command_errors(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Cards are free of charge for students.", encoding="utf-8")
    bad_type = CliRunner().invoke(cli, ["generate", str(tmp_path), "--types", "essay",
                                        "--judge", "scripted", "--embedder", "fake",
                                        "--out", str(tmp_path / "s.jsonl")])
    assert bad_type.exit_code != 0
    assert "unknown query type 'essay'" in str(bad_type.exception)
