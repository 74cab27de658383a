"""OTLP JSON traces → test cases (single-turn, conversation or agent trajectory).

Reads the OpenTelemetry GenAI semantic conventions (``gen_ai.input.messages``,
``gen_ai.output.messages``, ``gen_ai.operation.name``, ``gen_ai.tool.name``,
``gen_ai.tool.call.arguments`` / ``.result``) and OpenInference's flattened attributes
(``llm.input_messages.N.message.role`` / ``.content``, ``llm.output_messages...``,
``retrieval.documents.N.document.content``, ``tool.name``, ``tool.parameters``,
``input.value`` / ``output.value``). One trace becomes one case. Spans that carry none of the
attributes a case needs are listed in the :class:`ImportReport`, never silently dropped.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.data.case import TestCase
from assay.data.dialogue import ToolCall, Trajectory, Turn
from assay.errors import InvalidInputError
from assay.fileio import jsonl_lines

_INDEXED = re.compile(r"^(llm\.(?:input|output)_messages|retrieval\.documents)\.(\d+)\.(.+)$")
_ROLES = {"system", "user", "assistant", "tool"}


@dataclass
class Span:
    """The parts of an OTLP span that the import reads."""

    trace_id: str
    span_id: str
    name: str
    start: int
    attributes: dict[str, Any]
    error: str | None


@dataclass
class ImportReport:
    """The cases built and the spans that could not be used, each with a reason."""

    cases: list[TestCase] = field(default_factory=list)
    unused_spans: list[dict[str, str]] = field(default_factory=list)


def _value(value: dict[str, Any]) -> Any:
    """Decode an OTLP ``AnyValue``."""
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_value(v) for v in value["arrayValue"].get("values", [])]
    if "kvlistValue" in value:
        return {kv["key"]: _value(kv.get("value", {})) for kv in value["kvlistValue"]["values"]}
    return None


def _span_id(raw: Any) -> str:
    """A trace or span id as hex: OTLP JSON gives hex, protobuf's JSON mapping base64.

    Example:
        >>> _span_id("AAECAwQFBgc="), _span_id("0001020304050607")
        ('0001020304050607', '0001020304050607')
    """
    text = str(raw or "")
    if re.fullmatch(r"[0-9a-fA-F]{16}|[0-9a-fA-F]{32}", text):
        return text.lower()
    try:
        decoded = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return text
    return decoded.hex() if len(decoded) in (8, 16) else text


def read_otlp_spans(path: str | Path) -> list[Span]:
    """Every span of an OTLP JSON export (``{"resourceSpans": [...]}``; JSON lines allowed)."""
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInputError(f"{file}: cannot read the trace file ({exc})") from None
    documents: list[Any] = []
    try:
        documents.append(json.loads(text))
    except json.JSONDecodeError:
        for number, line in enumerate(jsonl_lines(text), start=1):
            if line.strip():
                try:
                    documents.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise InvalidInputError(
                        f"{file}: row {number}: invalid JSON: {exc.msg}"
                    ) from None
    spans: list[Span] = []
    for number, doc in enumerate(documents, start=1):
        if not isinstance(doc, dict) or not isinstance(doc.get("resourceSpans"), list):
            raise InvalidInputError(
                f"{file}: row {number}: expected an object with 'resourceSpans'"
            )
        for resource in doc["resourceSpans"]:
            for scope in resource.get("scopeSpans", []):
                for raw in scope.get("spans", []):
                    attrs = {
                        a["key"]: _value(a.get("value", {})) for a in raw.get("attributes", [])
                    }
                    status = raw.get("status", {})
                    failed = status.get("code") in (2, "STATUS_CODE_ERROR")
                    spans.append(
                        Span(
                            trace_id=_span_id(raw.get("traceId")),
                            span_id=_span_id(raw.get("spanId")),
                            name=str(raw.get("name", "")),
                            start=int(raw.get("startTimeUnixNano", 0) or 0),
                            attributes=attrs,
                            error=(status.get("message") or "error") if failed else None,
                        )
                    )
    return spans


def _indexed(attrs: dict[str, Any], prefix: str) -> list[dict[str, Any]]:
    """OpenInference's flattened lists (``prefix.N.rest``) as a list of dicts keyed by rest."""
    items: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, value in attrs.items():
        match = _INDEXED.match(key)
        if match and match.group(1) == prefix:
            items[int(match.group(2))][match.group(3)] = value
    return [items[i] for i in sorted(items)]


def _genai_messages(raw: Any) -> list[Turn]:
    """GenAI ``gen_ai.*.messages`` (JSON text or list: role + parts) as turns."""
    data = json.loads(raw) if isinstance(raw, str) else raw
    turns = []
    for message in data if isinstance(data, list) else []:
        role = message.get("role")
        if role not in _ROLES:
            continue
        texts = [p.get("content", "") for p in message.get("parts", []) if p.get("type") == "text"]
        if not texts and isinstance(message.get("content"), str):
            texts = [message["content"]]
        turns.append(Turn(role=role, content="\n".join(texts)))
    return turns


def _messages(attrs: dict[str, Any], direction: str) -> list[Turn]:
    if f"gen_ai.{direction}.messages" in attrs:
        return _genai_messages(attrs[f"gen_ai.{direction}.messages"])
    out = []
    for item in _indexed(attrs, f"llm.{direction}_messages"):
        role = item.get("message.role")
        if role in _ROLES:
            out.append(Turn(role=role, content=str(item.get("message.content", ""))))
    return out


def _tool_call(span: Span) -> ToolCall | None:
    attrs = span.attributes
    is_tool = (
        attrs.get("gen_ai.operation.name") == "execute_tool"
        or attrs.get("openinference.span.kind") == "TOOL"
    )
    name = attrs.get("gen_ai.tool.name") or attrs.get("tool.name")
    if not is_tool or not name:
        return None
    raw_args = attrs.get("gen_ai.tool.call.arguments", attrs.get("tool.parameters"))
    if raw_args is None:
        raw_args = attrs.get("input.value")
    try:
        arguments = json.loads(raw_args) if isinstance(raw_args, str) else (raw_args or {})
    except json.JSONDecodeError:
        arguments = {"input": raw_args}
    if not isinstance(arguments, dict):
        arguments = {"input": arguments}
    result = attrs.get("gen_ai.tool.call.result", attrs.get("output.value"))
    return ToolCall(name=str(name), arguments=arguments, result=result, error=span.error)


def _case(trace_id: str, spans: list[Span], report: ImportReport) -> TestCase | None:
    steps: list[ToolCall] = []
    context: list[str] = []
    last_in: list[Turn] = []
    answer: str | None = None
    for span in sorted(spans, key=lambda s: s.start):
        call = _tool_call(span)
        docs = [
            str(d["document.content"])
            for d in _indexed(span.attributes, "retrieval.documents")
            if "document.content" in d
        ]
        inputs = _messages(span.attributes, "input")
        outputs = [t for t in _messages(span.attributes, "output") if t.role == "assistant"]
        if call is not None:
            steps.append(call)
        elif docs:
            context.extend(docs)
        elif inputs or outputs:
            last_in = inputs or last_in
            answer = outputs[-1].content if outputs else answer
        else:
            report.unused_spans.append(
                {
                    "trace_id": trace_id,
                    "span_id": span.span_id,
                    "name": span.name,
                    "reason": "no gen_ai.* / OpenInference messages, documents or tool attributes",
                }
            )
    users = [t for t in last_in if t.role == "user"]
    if not users and not steps:
        return None
    question = users[-1].content if users else None
    if steps:
        traj = Trajectory(steps=steps, final_answer=answer)
        return TestCase(id=trace_id, question=question, trajectory=traj, actual_answer=answer)
    if len(users) > 1:
        turns = [*last_in, *([Turn(role="assistant", content=answer)] if answer else [])]
        if context:
            turns[-1] = turns[-1].model_copy(update={"retrieved_context": context})
        return TestCase(id=trace_id, turns=turns)
    return TestCase(
        id=trace_id, question=question, actual_answer=answer, retrieved_context=context or None
    )


def import_otlp(path: str | Path) -> ImportReport:
    """Build one case per trace of an OTLP JSON file: a trajectory when tools were called, a
    conversation when the model saw more than one user turn, else a single-turn case.

    Traces with no user message and no tool call give no case; their spans are reported.
    """
    report = ImportReport()
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in read_otlp_spans(path):
        by_trace[span.trace_id].append(span)
    for trace_id, spans in by_trace.items():
        before = len(report.unused_spans)
        case = _case(trace_id, spans, report)
        if case is None:
            del report.unused_spans[before:]
            report.unused_spans.extend(
                {
                    "trace_id": trace_id,
                    "span_id": s.span_id,
                    "name": s.name,
                    "reason": "the trace has no user message and no tool call",
                }
                for s in spans
            )
        else:
            report.cases.append(case)
    return report
