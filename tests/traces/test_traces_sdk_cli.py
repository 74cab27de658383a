"""A trace exported by the real OpenTelemetry SDK, imported through ``assay traces import``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import read_suite

pytest.importorskip("opentelemetry.sdk", reason="pip install 'assay[traces]'")
pytest.importorskip("opentelemetry.exporter.otlp.proto.common")


def _export_with_sdk(path: Path) -> None:
    """Run a small instrumented 'agent' with the SDK and write its spans as OTLP JSON."""
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.trace import Status, StatusCode

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("bank-agent")
    with tracer.start_as_current_span("invoke_agent fx") as agent:
        agent.set_attribute("gen_ai.operation.name", "invoke_agent")
        with tracer.start_as_current_span("execute_tool get_rate") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "get_rate")
            tool.set_attribute("gen_ai.tool.call.arguments", json.dumps({"pair": "EURUSD"}))
            tool.set_status(Status(StatusCode.ERROR, "timeout"))
        with tracer.start_as_current_span("execute_tool get_rate") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "get_rate")
            tool.set_attribute("gen_ai.tool.call.arguments", json.dumps({"pair": "EURUSD"}))
            tool.set_attribute("gen_ai.tool.call.result", "1.08")
        with tracer.start_as_current_span("chat model") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute(
                "gen_ai.input.messages",
                json.dumps(
                    [{"role": "user", "parts": [{"type": "text", "content": "100 EUR in USD?"}]}]
                ),
            )
            chat.set_attribute(
                "gen_ai.output.messages",
                json.dumps(
                    [{"role": "assistant", "parts": [{"type": "text", "content": "108 USD"}]}]
                ),
            )
    provider.shutdown()
    request = encode_spans(exporter.get_finished_spans())
    path.write_text(json.dumps(MessageToDict(request)), encoding="utf-8")


def test_sdk_export_imports_as_a_trajectory_through_the_cli(tmp_path: Path) -> None:
    trace_file = tmp_path / "trace.json"
    _export_with_sdk(trace_file)
    assert "resourceSpans" in json.loads(trace_file.read_text(encoding="utf-8"))
    out, unused = tmp_path / "suite.jsonl", tmp_path / "unused.json"
    result = CliRunner().invoke(
        cli, ["traces", "import", str(trace_file), "--out", str(out), "--unused", str(unused)]
    )
    assert result.exit_code == 0, result.output
    assert "1 cases (0 single-turn, 0 conversations, 1 trajectories)" in result.output
    [case] = read_suite(out)
    assert case.trajectory is not None
    assert [(s.name, s.error) for s in case.trajectory.steps] == [
        ("get_rate", "timeout"),
        ("get_rate", None),
    ]
    assert (case.question, case.trajectory.final_answer) == ("100 EUR in USD?", "108 USD")
    assert [u["name"] for u in json.loads(unused.read_text(encoding="utf-8"))] == [
        "invoke_agent fx"
    ]
