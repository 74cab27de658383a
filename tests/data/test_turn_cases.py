"""Conversations split into per-turn cases, linked back to their conversation."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import TestCase, Turn, read_suite, write_suite
from assay.data.turns import turn_cases
from assay.evaluators.registry import get_evaluator


def _conversation() -> TestCase:
    return TestCase(
        id="c1",
        model="bot",
        turns=[
            Turn(role="system", content="Bank assistant."),
            Turn(role="assistant", content="Hello!"),
            Turn(role="user", content="What is the card fee?"),
            Turn(
                role="assistant", content="The fee is 12 EUR.", retrieved_context=["Fee: 12 EUR."]
            ),
            Turn(role="user", content="And the limit?"),
            Turn(
                role="assistant",
                content="The limit is 900 EUR.",
                retrieved_context=["Limit: 500 EUR."],
            ),
        ],
    )


def test_each_answered_assistant_turn_becomes_a_linked_case() -> None:
    cases = turn_cases([_conversation(), TestCase(id="plain", question="q")])
    assert [(c.id, c.question, c.metadata["turn"]) for c in cases] == [
        ("c1#turn4", "What is the card fee?", 4),
        ("c1#turn6", "And the limit?", 6),
    ]
    assert {c.metadata["conversation_id"] for c in cases} == {"c1"}
    assert all(c.model == "bot" for c in cases)


def test_turn_level_groundedness_flags_the_unsupported_turn() -> None:
    results = get_evaluator("unsupported_facts").evaluate(turn_cases([_conversation()]))
    support = [r.outcomes["facts_numbers_support"].value for r in results]
    assert support == [1.0, 0.0]


def test_cli_writes_turn_suite(tmp_path: Path) -> None:
    suite = write_suite([_conversation()], tmp_path / "conv.jsonl")
    out = tmp_path / "turns.jsonl"
    result = CliRunner().invoke(cli, ["turns", str(suite), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "2 turn cases from 1 conversations" in result.output
    assert [c.id for c in read_suite(out)] == ["c1#turn4", "c1#turn6"]
