"""``assay generate`` end to end with the scripted judge and the fake embedder."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import read_suite
from assay.text import split_sentences
from judge._servers import FakeOpenAI  # tests/judge: the loopback OpenAI-compatible server


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


#: A corpus whose everyday words ("account", "card", "fee") are in every paragraph.
CARDS = """# Card and account fees

The account fee is 4 euros a month and the card is free with every account.

A replacement card costs 10 euros; the account fee is unchanged when a card is replaced.

The card fee abroad is 2% of the amount; the account has no other fee for card payments.

Closing the account is free; the card stops working and no further fee is charged.
"""
NO_FACT = "It is what it is, and that is all there is to it."
GENERAL = "The account fee depends on the card."


def _weak_writer() -> Callable[[dict[str, Any]], str]:
    """A judge on loopback writing, in turn, an answer without any checkable fact, one made of the
    corpus's everyday words, and the passage's own first sentence (faithful)."""
    sentences = split_sentences(" ".join(CARDS.splitlines()[1:]))
    turn = itertools.count()
    asked = itertools.count()

    def reply(payload: dict[str, Any]) -> str:
        prompt = "\n".join(m["content"] for m in payload["messages"])
        first = next(s for s in sentences if s in prompt)
        if '"questions"' not in json.dumps(payload.get("response_format") or {}):
            return json.dumps({"facts": [first]})
        answer = (NO_FACT, GENERAL, first)[next(turn) % 3]
        return json.dumps({"questions": [
            {"question": f"What does the card policy say, part {next(asked)}?", "answer": answer}
            for _ in range(3)]})

    return reply


def test_generate_drops_answers_the_source_does_not_support_and_says_so(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "fees.md").write_text(CARDS, encoding="utf-8")
    out = tmp_path / "suite.jsonl"
    with FakeOpenAI(_weak_writer()) as server:
        judge = json.dumps({"base_url": f"{server.url}/v1", "model": "weak", "cache": None})
        result = CliRunner().invoke(cli, [
            "generate", str(corpus), "--n", "9", "--types", "factual", "--judge", judge,
            "--embedder", "fake", "--chunk-size", "30", "--k", "1", "--seed", "3",
            "--min-source-similarity", "-1", "--duplicate-similarity", "1", "--min-kept", "0",
            "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert re.search(r"dropped: .*ungrounded \d+", result.output)
    report = json.loads((tmp_path / "suite.generation.json").read_text())
    written = [d for d in report["dropped"] if d["answer"]] + [
        {"answer": c.expected_answer, "reason": None} for c in read_suite(out)]
    by_answer: dict[str, list[dict[str, Any]]] = {}
    for entry in written:
        by_answer.setdefault(entry["answer"] if entry["answer"] in (NO_FACT, GENERAL)
                             else "faithful", []).append(entry)
    assert by_answer[NO_FACT] and all(
        d["reason"] == "ungrounded" and "states no content word" in d["detail"]
        for d in by_answer[NO_FACT])
    assert by_answer[GENERAL] and all(d["reason"] == "ungrounded" for d in by_answer[GENERAL])
    specific = [d for d in by_answer[GENERAL] if "how specific it is to the corpus" in d["detail"]]
    assert specific, "no general answer passed the plain share (the case the weighting is for)"
    assert all(d["scores"]["grounding"] >= 0.6 > d["scores"]["specific_grounding"]
               and "depends" in d["detail"].split("not in the source:")[1] for d in specific)
    assert any(d["reason"] is None for d in by_answer["faithful"])  # faithful answers are kept
