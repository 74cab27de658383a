"""Checks of one parsed artifact against its rule: fields, columns, rows, pages; and the chat."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from assay.agents.parsers import Parsed
from assay.agents.selector import select
from assay.agents.spec import VALUE_TYPES, ArtifactRule, ChatRule, FieldRule


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _value_problems(rule: FieldRule, where: str, value: Any) -> list[str]:
    problems: list[str] = []
    if rule.type is not None:
        types = VALUE_TYPES[rule.type]
        is_bool = isinstance(value, bool)
        if not isinstance(value, types) or (is_bool and rule.type in ("number", "integer")):
            problems.append(f"field {where} should be of type {rule.type}; got {_short(value)}")
    if rule.non_empty and (value is None or (isinstance(value, str) and not value.strip())
                           or (isinstance(value, list | dict) and not value)):
        problems.append(f"field {where} is empty")
    if rule.equals is not None and value != rule.equals:
        problems.append(f"field {where} should equal {_short(rule.equals)}; got {_short(value)}")
    if rule.one_of is not None and value not in rule.one_of:
        problems.append(f"field {where} should be one of {list(rule.one_of)}; "
                        f"got {_short(value)}")
    if rule.pattern is not None and not (isinstance(value, str)
                                         and re.search(rule.pattern, value)):
        problems.append(f"field {where} does not match /{rule.pattern}/; got {_short(value)}")
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if rule.min is not None and not (number and value >= rule.min):
        problems.append(f"field {where} should be >= {rule.min:g}; got {_short(value)}")
    if rule.max is not None and not (number and value <= rule.max):
        problems.append(f"field {where} should be <= {rule.max:g}; got {_short(value)}")
    if rule.min_items is not None and not (isinstance(value, list | dict | str)
                                           and len(value) >= rule.min_items):
        problems.append(f"field {where} should have at least {rule.min_items} item(s)")
    return problems


def field_problems(rule: FieldRule, document: Any, prefix: str = "") -> list[str]:
    """What is wrong with ``document`` against one field rule.

    Example:
        >>> field_problems(FieldRule("status", one_of=("done",)), {"status": "failed"})
        ["field status should be one of ['done']; got 'failed'"]
        >>> field_problems(FieldRule("items[*].id", type="integer"), {"items": [{"id": "a"}]})
        ["field items[0].id should be of type integer; got 'a'"]
    """
    found = select(document, rule.path)
    if not found:
        return [f"required field {prefix}{rule.path} is missing"] if rule.required else []
    return [p for where, value in found for p in _value_problems(rule, prefix + where, value)]


def rule_problems(rule: ArtifactRule, parsed: Parsed) -> list[str]:
    """What is wrong with a parsed file against its artifact rule (beyond parsing)."""
    problems: list[str] = []
    if rule.fields:
        if not parsed.structured:
            if not parsed.problems:
                problems.append("field rules need a structured file (json, jsonl, yaml, toml)")
        elif isinstance(parsed.value, list) and parsed.rows is not None:  # JSON lines
            for number, row in enumerate(parsed.value, start=1):
                for field_rule in rule.fields:
                    problems += field_problems(field_rule, row, f"row {number}: ")
        else:
            for field_rule in rule.fields:
                problems += field_problems(field_rule, parsed.value)
    if rule.columns and parsed.columns is not None:
        missing = [c for c in rule.columns if c not in parsed.columns]
        if missing:
            problems.append(f"missing column(s) {missing}; header is {parsed.columns}")
    if rule.min_rows is not None and parsed.rows is not None and parsed.rows < rule.min_rows:
        problems.append(f"{parsed.rows} row(s); at least {rule.min_rows} expected")
    if rule.min_pages is not None and parsed.pages is not None and parsed.pages < rule.min_pages:
        problems.append(f"{parsed.pages} page(s); at least {rule.min_pages} expected")
    return problems


def _content_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts
        return " ".join(str(p.get("text", "")) if isinstance(p, Mapping) else str(p)
                        for p in content)
    return ""


def chat_problems(chat: Any, rule: ChatRule) -> list[str]:
    """What is wrong with a chat session (a list of role / content messages).

    Example:
        >>> chat_problems([{"role": "user", "content": "Hi"}], ChatRule())
        ["the last message is from 'user', not 'assistant'"]
        >>> chat_problems([{"role": "user", "content": "Hi"},
        ...                {"role": "assistant", "content": "Hello."}], ChatRule())
        []
    """
    if not isinstance(chat, list):
        return [f"the chat must be a list of messages; got {type(chat).__name__}"]
    problems: list[str] = []
    if len(chat) < rule.min_messages:
        problems.append(f"{len(chat)} message(s); at least {rule.min_messages} expected")
    for number, message in enumerate(chat, start=1):
        if not isinstance(message, Mapping):
            problems.append(f"message {number} is not a mapping")
            continue
        role = message.get("role")
        if role not in rule.roles:
            problems.append(f"message {number} has role {role!r}, not one of {list(rule.roles)}")
        if not _content_text(message).strip() and not message.get("tool_calls"):
            problems.append(f"message {number} ({role}) is empty")
    if chat and rule.final_role is not None and isinstance(chat[-1], Mapping):
        last = chat[-1].get("role")
        if last != rule.final_role:
            problems.append(f"the last message is from {last!r}, not {rule.final_role!r}")
    return problems
