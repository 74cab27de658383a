"""Parsing helpers shared by CLI commands."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import click

_KEY = re.compile(r"\s*[A-Za-z_][\w.\-]*\s*=")
_CLOSERS = {"[": "]", "{": "}"}


def split_assignments(text: str) -> list[str]:
    """Split ``KEY=VALUE,KEY=VALUE`` at the commas that start a new ``KEY=``.

    A comma inside brackets, braces or a double-quoted string, or one not followed by ``KEY=``,
    belongs to the value, so JSON values (``weights=[0.5,0.5]``) and plain lists
    (``types=rouge1,rouge2``) survive.

    Example:
        >>> split_assignments('weights=[0.5,0.5],n=2,judge={"a": 1, "b": "x,y=z"}')
        ['weights=[0.5,0.5]', 'n=2', 'judge={"a": 1, "b": "x,y=z"}']
        >>> split_assignments("types=rouge1,rouge2, n=3")
        ['types=rouge1,rouge2', 'n=3']
    """
    items: list[str] = []
    stack: list[str] = []
    quoted = escaped = False
    start = 0
    for i, char in enumerate(text):
        if quoted:  # inside a JSON string: only its closing quote matters
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
            continue
        if char == '"':
            quoted = True
        elif char in _CLOSERS:
            stack.append(_CLOSERS[char])
        elif stack and char == stack[-1]:
            stack.pop()
        elif char == "," and not stack and _KEY.match(text, i + 1):
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items if item.strip()]


def split_names(values: tuple[str, ...] | list[str]) -> list[str]:
    """Repeatable, comma-separable option values (``-e a,b -e c``) as a flat list of names.

    Example:
        >>> split_names(("bleu, rouge", "", "exact_match"))
        ['bleu', 'rouge', 'exact_match']
    """
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


def parse_assignments(values: tuple[str, ...] | list[str], option: str) -> dict[str, str]:
    """Parse ``KEY=VALUE`` pairs (each value may hold several, comma-separated; JSON values with
    commas are kept whole, see :func:`split_assignments`).

    Example:
        >>> parse_assignments(("a=1,b=[1,2]", "c=x"), "--param")
        {'a': '1', 'b': '[1,2]', 'c': 'x'}
    """
    out: dict[str, str] = {}
    for value in values:
        for item in split_assignments(value):
            key, sep, raw = item.partition("=")
            if not sep or not key.strip():
                raise click.BadParameter(f"expected KEY=VALUE, got {item!r}", param_hint=option)
            out[key.strip()] = raw.strip()
    return out


def parse_value(raw: str) -> Any:
    """A CLI value as JSON when it parses (numbers, booleans, lists), else as a string.

    Example:
        >>> parse_value("3"), parse_value("true"), parse_value("rouge")
        (3, True, 'rouge')
    """
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


#: ``--threshold METRIC=VALUE`` (repeatable), read by :func:`parse_thresholds`.
threshold_option = click.option(
    "--threshold",
    "thresholds",
    multiple=True,
    metavar="METRIC=VALUE",
    help="Override a metric's threshold; repeatable.",
)


def parse_thresholds(values: tuple[str, ...]) -> dict[str, float]:
    """``--threshold metric=value`` options as a mapping."""
    out = {}
    for key, raw in parse_assignments(values, "--threshold").items():
        try:
            out[key] = float(raw)
        except ValueError:
            raise click.BadParameter(
                f"{key}={raw}: not a number", param_hint="--threshold"
            ) from None
        if not math.isfinite(out[key]):
            raise click.BadParameter(
                f"{key}={raw}: a threshold must be a finite number", param_hint="--threshold"
            )
    return out


def parse_params(values: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """``--param evaluator.key=value`` options as {evaluator: {key: value}}."""
    out: dict[str, dict[str, Any]] = {}
    for key, raw in parse_assignments(values, "--param").items():
        evaluator, dot, name = key.partition(".")
        if not dot:
            raise click.BadParameter(
                f"expected EVALUATOR.KEY=VALUE, got {key}={raw}", param_hint="--param"
            )
        out.setdefault(evaluator, {})[name] = parse_value(raw)
    return out
