"""Lenient parsing of a judge's JSON reply: fences, prose around the object, Python literals,
single quotes, unquoted keys, trailing commas and truncated endings are repaired; anything else
is an explicit :class:`~assay.errors.JudgeParseError` naming what was wrong."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from assay.errors import JudgeParseError

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_LITERALS = {"True": "true", "False": "false", "None": "null"}
_CLOSER = {"{": "}", "[": "]"}


def _extract(text: str) -> str:
    """The first JSON object or array in ``text`` (to its matching bracket, or to the end)."""
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1)
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        raise JudgeParseError("no JSON object in the reply")
    start = min(starts)
    depth, quote, escaped = 0, "", False
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return text[start : index + 1]
    return text[start:]


def _drop_trailing_comma(out: list[str]) -> None:
    index = len(out) - 1
    while index >= 0 and out[index].isspace():
        index -= 1
    if index >= 0 and out[index] == ",":
        del out[index]


def _normalise(text: str) -> str:
    """Rewrite single-quoted strings, Python literals, bare keys and trailing commas; close
    brackets and a string left open by a truncated reply."""
    out: list[str] = []
    stack: list[str] = []
    index, length = 0, len(text)
    while index < length:
        char = text[index]
        if char in "\"'":
            quote, index = char, index + 1
            buf: list[str] = []
            while index < length and text[index] != quote:
                if text[index] == "\\" and index + 1 < length:
                    buf.append(text[index : index + 2])
                    index += 2
                    continue
                buf.append('\\"' if text[index] == '"' else text[index])
                index += 1
            body = "".join(buf)
            if quote == "'":
                body = body.replace("\\'", "'")
            out.append(f'"{body}"')
            index += 1
            continue
        if char in "{[":
            stack.append(_CLOSER[char])
        elif char in "}]":
            _drop_trailing_comma(out)
            if stack:
                stack.pop()
        elif char.isalpha() or char == "_":
            end = index
            while end < length and (text[end].isalnum() or text[end] in "_-"):
                end += 1
            word = text[index:end]
            rest = text[end:].lstrip()
            if word in _LITERALS:
                out.append(_LITERALS[word])
            elif word in ("true", "false", "null") or not rest.startswith(":"):
                out.append(word)
            else:
                out.append(f'"{word}"')
            index = end
            continue
        elif char == ",":
            out.append(",")
            index += 1
            continue
        out.append(char)
        index += 1
    _drop_trailing_comma(out)
    out.extend(reversed(stack))
    return "".join(out)


def parse_json_lenient(text: str) -> Any:
    """Parse a judge reply as JSON, repairing the usual deviations.

    Raises:
        JudgeParseError: when no JSON value can be recovered; the message says why.

    Example:
        >>> parse_json_lenient('Sure! ```json\\n{"score": 7, "ok": True,}\\n```')
        {'score': 7, 'ok': True}
        >>> parse_json_lenient("{'verdicts': [{'id': 1, 'verdict': false")
        {'verdicts': [{'id': 1, 'verdict': False}]}
        >>> parse_json_lenient("I cannot answer that.")
        Traceback (most recent call last):
        ...
        assay.errors.JudgeParseError: no JSON object in the reply
    """
    stripped = text.strip()
    try:
        return json.loads(stripped)
    except json.JSONDecodeError:
        pass
    candidate = _extract(stripped)
    try:
        return json.loads(candidate)
    except json.JSONDecodeError:
        pass
    repaired = _normalise(candidate)
    try:
        return json.loads(repaired)
    except json.JSONDecodeError as exc:
        raise JudgeParseError(
            f"reply is not valid JSON even after repair: {exc.msg} at character {exc.pos}"
        ) from None


def validate_schema(value: Any, schema: Mapping[str, Any]) -> None:
    """Check ``value`` against a JSON Schema; raise :class:`JudgeParseError` naming the first
    violation and where it is.

    Example:
        >>> schema = {"type": "object", "properties": {"score": {"type": "number"}}}
        >>> validate_schema({"score": "high"}, schema)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        assay.errors.JudgeParseError: reply does not match the expected format at score: ...
    """
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if errors:
        first = errors[0]
        where = "/".join(str(p) for p in first.path) or "top level"
        raise JudgeParseError(
            f"reply does not match the expected format at {where}: {first.message}"
        )
