"""OTLP JSON traces → cases: GenAI and OpenInference attributes, unused spans reported."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.errors import InvalidInputError
from assay.traces import import_otlp


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(trace: str, span: str, name: str, start: int, attrs: dict[str, Any], **kw: Any) -> dict:
    return {
        "traceId": trace,
        "spanId": span,
        "name": name,
        "startTimeUnixNano": str(start),
        "attributes": [_attr(k, v) for k, v in attrs.items()],
        **kw,
    }


def _write(path: Path, spans: list[dict[str, Any]]) -> Path:
    doc = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]}
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _genai(role_texts: list[tuple[str, str]]) -> str:
    return json.dumps(
        [{"role": r, "parts": [{"type": "text", "content": t}]} for r, t in role_texts]
    )


def test_genai_single_turn_with_openinference_retrieval(tmp_path: Path) -> None:
    spans = [
        _span(
            "t1",
            "s1",
            "retrieve",
            1,
            {
                "openinference.span.kind": "RETRIEVER",
                "retrieval.documents.0.document.content": "Card fee: 12 EUR per year.",
                "retrieval.documents.1.document.content": "Limit: 500 EUR per day.",
            },
        ),
        _span(
            "t1",
            "s2",
            "chat gpt",
            2,
            {
                "gen_ai.operation.name": "chat",
                "gen_ai.input.messages": _genai([("system", "Be brief."), ("user", "Card fee?")]),
                "gen_ai.output.messages": _genai([("assistant", "12 euros a year.")]),
            },
        ),
        _span("t1", "s3", "http GET", 3, {"http.method": "GET"}),
    ]
    report = import_otlp(_write(tmp_path / "t.json", spans))
    [case] = report.cases
    assert (case.id, case.question, case.actual_answer) == ("t1", "Card fee?", "12 euros a year.")
    assert case.retrieved_context == ["Card fee: 12 EUR per year.", "Limit: 500 EUR per day."]
    assert report.unused_spans == [
        {
            "trace_id": "t1",
            "span_id": "s3",
            "name": "http GET",
            "reason": "no gen_ai.* / OpenInference messages, documents or tool attributes",
        }
    ]


def test_tool_spans_make_a_trajectory(tmp_path: Path) -> None:
    spans = [
        _span(
            "t2",
            "a",
            "execute_tool get_rate",
            2,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_rate",
                "gen_ai.tool.call.arguments": '{"pair": "EURUSD"}',
            },
            status={"code": 2, "message": "timeout"},
        ),
        _span(
            "t2",
            "b",
            "tool",
            3,
            {
                "openinference.span.kind": "TOOL",
                "tool.name": "get_rate",
                "tool.parameters": '{"pair": "EURUSD"}',
                "output.value": "1.08",
            },
        ),
        _span(
            "t2",
            "c",
            "llm",
            4,
            {
                "llm.input_messages.0.message.role": "user",
                "llm.input_messages.0.message.content": "100 EUR in USD?",
                "llm.output_messages.0.message.role": "assistant",
                "llm.output_messages.0.message.content": "108 USD",
            },
        ),
    ]
    [case] = import_otlp(_write(tmp_path / "t.json", spans)).cases
    assert case.trajectory is not None
    assert [(s.name, s.arguments, s.error) for s in case.trajectory.steps] == [
        ("get_rate", {"pair": "EURUSD"}, "timeout"),
        ("get_rate", {"pair": "EURUSD"}, None),
    ]
    assert case.trajectory.steps[1].result == "1.08"
    assert (case.question, case.trajectory.final_answer) == ("100 EUR in USD?", "108 USD")


def test_several_user_turns_make_a_conversation(tmp_path: Path) -> None:
    messages = [("user", "I am Ana."), ("assistant", "Hello Ana."), ("user", "Card fee?")]
    attrs: dict[str, Any] = {}
    for i, (role, text) in enumerate(messages):
        attrs[f"llm.input_messages.{i}.message.role"] = role
        attrs[f"llm.input_messages.{i}.message.content"] = text
    attrs["llm.output_messages.0.message.role"] = "assistant"
    attrs["llm.output_messages.0.message.content"] = "12 euros, Ana."
    [case] = import_otlp(_write(tmp_path / "t.json", [_span("t3", "x", "llm", 1, attrs)])).cases
    assert case.turns is not None
    assert [(t.role, t.content) for t in case.turns] == [*messages, ("assistant", "12 euros, Ana.")]


def test_trace_without_user_message_is_reported_not_dropped(tmp_path: Path) -> None:
    spans = [_span("t4", "a", "db", 1, {"db.system": "postgresql"}), _span("t4", "b", "x", 2, {})]
    report = import_otlp(_write(tmp_path / "t.json", spans))
    assert report.cases == []
    assert {(u["span_id"], u["reason"]) for u in report.unused_spans} == {
        ("a", "the trace has no user message and no tool call"),
        ("b", "the trace has no user message and no tool call"),
    }


def test_not_otlp_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"spans": []}', encoding="utf-8")
    with pytest.raises(InvalidInputError, match="row 1: expected an object with 'resourceSpans'"):
        import_otlp(path)
