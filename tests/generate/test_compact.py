"""The compact writer: one grammar-constrained question per request, the answer taken from the
chunk (no model: a loopback server and the scripted judge)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner

from assay.backends.llm import Judge, OpenAICompatBackend
from assay.cli.main import cli
from assay.data import read_suite
from assay.errors import InvalidInputError
from assay.generate import GenerationConfig, SelectionConfig, generate
from assay.generate.compact import COMPACT_TYPES, TASK, question_schema
from assay.generate.scripted import scripted_generation_judge
from judge._servers import FakeOpenAI

LOOSE = SelectionConfig(min_source_similarity=-1.0, duplicate_similarity=1.0,
                        unanswerable_max_similarity=1.0)


def _sentence(payload: dict[str, Any]) -> str:
    return str(payload["messages"][-1]["content"]).removeprefix("Sentence: ")


def test_compact_requests_and_answers_from_the_chunk(corpus_dir: Path) -> None:
    def reply(payload: dict[str, Any]) -> str:
        pattern = payload["response_format"]["json_schema"]["schema"]["properties"][
            "question"]["pattern"]
        words = " ".join(_sentence(payload).rstrip(".").split()[:6]).lower()
        opener = "Is it so that" if pattern.startswith("^(Is") else "What is said about"
        return json.dumps({"question": f"{opener} {words}?"})

    with FakeOpenAI(reply) as server:
        judge = Judge(OpenAICompatBackend("tiny", f"{server.url}/v1", api_key_env=None),
                      concurrency=1, max_retries=0)
        result = generate(corpus_dir, judge=judge, embedder="fake", config=GenerationConfig(
            n=8, writer="compact", k=2, chunk_size=30, seed=1, selection=LOOSE, min_kept=0.0))
    # no key-facts request: one request per question, each a few-shot chat with a pattern
    assert len(server.payloads) == result.report["summary"]["planned"] == 8
    for payload in server.payloads:
        roles = [m["role"] for m in payload["messages"]]
        assert roles == ["system"] + ["user", "assistant"] * 3 + ["user"]
        assert payload["max_tokens"] <= 80
        assert payload["response_format"]["json_schema"]["name"] == TASK
    texts = {c.id: " ".join(c.text.split()) for c in result.chunks}
    assert {c.query_type for c in result.suite} <= set(COMPACT_TYPES)
    assert len(result.suite) >= 6
    for case in result.suite:
        source = texts[case.metadata["source_chunk_ids"][0]]
        fact = case.metadata["key_facts"][0]
        assert " ".join(fact.split()) in source
        if case.query_type == "factual":
            assert case.expected_answer == fact
        elif case.query_type == "yes_no":
            word = case.metadata["yes_no"].capitalize()
            assert case.expected_answer == f"{word}, {fact[0].lower()}{fact[1:]}"
        elif case.query_type == "multiple_choice":
            assert case.expected_answer == fact and fact in case.metadata["options"]
            assert len(case.metadata["options"]) == 4
    # a "no" question is written from the sentence made false, so the sentence answers "No"
    asked = {_sentence(p) for p in server.payloads}
    for case in result.suite:
        if case.metadata.get("yes_no") == "no":  # asked with a changed number, which it names
            assert case.metadata["key_facts"][0] not in asked
            assert set(re.findall(r"\d+", case.question)) - set(
                re.findall(r"\d+", case.metadata["key_facts"][0]))


def test_the_pattern_allows_questions_only() -> None:
    wh, yes = question_schema("wh"), question_schema("yes")
    jsonschema.validate({"question": "When does the branch open on Saturdays?"}, wh)
    jsonschema.validate({"question": "Is the card free for students?"}, yes)
    for bad, schema in (({"question": "<question>"}, wh), ({"question": "The fee is 5."}, wh),
                        ({"question": "What is the fee?"}, yes),
                        ({"question": "What is the <fee>?"}, wh)):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def test_compact_refuses_types_it_cannot_write(corpus_dir: Path) -> None:
    with pytest.raises(InvalidInputError, match="cannot write 'multi_hop'"):
        generate(corpus_dir, judge=scripted_generation_judge(), embedder="fake",
                 config=GenerationConfig(n=2, writer="compact", types=("multi_hop",)))


def test_compact_dry_run_through_the_cli(corpus_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "suite.jsonl"
    result = CliRunner().invoke(cli, [
        "generate", str(corpus_dir), "--n", "6", "--judge", "scripted", "--writer", "compact",
        "--embedder", "fake", "--chunk-size", "30", "--k", "2", "--min-kept", "0",
        "--min-source-similarity", "-1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads((tmp_path / "suite.generation.json").read_text())
    assert report["config"]["writer"] == "compact" and report["dry_run"] is True
    assert {c.query_type for c in read_suite(out)} <= set(COMPACT_TYPES)
