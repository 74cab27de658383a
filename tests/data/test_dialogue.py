"""Conversations and trajectories in the data model: round-trips and located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.data import TestCase, ToolCall, Trajectory, Turn, read_suite, write_suite
from assay.errors import InvalidInputError


def _cases() -> list[TestCase]:
    conversation = TestCase(
        id="c1",
        scenario="Customer asks about a card fee, then about limits",
        expected_outcome="Both questions answered from the tariff",
        turns=[
            Turn(role="system", content="You are a bank assistant."),
            Turn(role="user", content="What is the card fee? My name is Ana."),
            Turn(
                role="assistant",
                content="The annual card fee is 12 euros.",
                retrieved_context=["Card fee: 12 EUR per year."],
                tool_calls=[ToolCall(name="tariff_lookup", arguments={"product": "card"})],
            ),
            Turn(role="user", content="And the daily limit?"),
        ],
    )
    agent = TestCase(
        id="t1",
        question="Convert 100 EUR to USD",
        trajectory=Trajectory(
            steps=[
                ToolCall(name="get_rate", arguments={"pair": "EURUSD"}, error="timeout"),
                ToolCall(name="get_rate", arguments={"pair": "EURUSD"}, result=1.08),
                ToolCall(name="multiply", arguments={"a": 100, "b": 1.08}, result=108.0),
            ],
            final_answer="108 USD",
            expected_tools=[
                ToolCall(name="get_rate", arguments={"pair": "EURUSD"}),
                ToolCall(name="multiply"),
            ],
        ),
        expected_outcome="108 USD",
    )
    return [conversation, agent]


@pytest.mark.parametrize("ext", ["jsonl", "json", "csv", "parquet"])
def test_round_trip_keeps_turns_and_trajectory(tmp_path: Path, ext: str) -> None:
    cases = _cases()
    path = write_suite(cases, tmp_path / f"suite.{ext}")
    back = read_suite(path)
    assert [case.model_dump() for case in back] == [case.model_dump() for case in cases]
    assert back[0].turns is not None and back[0].turns[2].tool_calls is not None
    assert back[0].turns[2].tool_calls[0].arguments == {"product": "card"}
    assert back[1].trajectory is not None and back[1].trajectory.minimal_steps == 2


def _write_jsonl(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_error_names_row_turn_and_field(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "bad.jsonl",
        [
            {"id": "ok", "turns": [{"role": "user", "content": "hi"}]},
            {"id": "c2", "turns": [{"role": "user", "content": "hi"}, {"role": "bot"}]},
        ],
    )
    with pytest.raises(InvalidInputError) as err:
        read_suite(path)
    message = str(err.value)
    assert "row 2, turn 2, field 'role'" in message
    assert "row 1" not in message.split("invalid rows:")[1]


def test_error_names_trajectory_step_and_field(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "bad.jsonl",
        [
            {
                "id": "t1",
                "trajectory": {
                    "steps": [{"name": "search"}, {"name": "", "arguments": {}}],
                    "expected_tools": [{"name": "search", "arguments": "q"}],
                },
            }
        ],
    )
    with pytest.raises(InvalidInputError) as err:
        read_suite(path)
    message = str(err.value)
    assert "row 1, trajectory step 2, field 'name'" in message
    assert "row 1, trajectory expected call 1, field 'arguments'" in message


def test_unknown_turn_field_is_rejected() -> None:
    with pytest.raises(ValueError, match="speaker"):
        Turn.model_validate({"role": "user", "content": "x", "speaker": "me"})


def test_minimal_steps_prefers_explicit_value() -> None:
    assert Trajectory(min_steps=3, expected_tools=[ToolCall(name="a")]).minimal_steps == 3
    assert Trajectory().minimal_steps is None
