"""Parsing helpers shared by CLI commands."""

from __future__ import annotations

import json
import math
from typing import Any

import click


def parse_assignments(values: tuple[str, ...], option: str) -> dict[str, str]:
    """Parse ``key=value`` pairs (each may hold several, comma-separated)."""
    out: dict[str, str] = {}
    for value in values:
        for item in value.split(","):
            if not item.strip():
                continue
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
