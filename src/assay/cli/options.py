"""Options shared by CLI commands: their declarations, and the parsing of their values.

A declaration used by several commands (the suite or run directory they read, ``--out``,
``--seed``, ``--param``, ...) is written once here, so its type, checks and default cannot drift
apart between commands; each command still gives the help text that says what the option means
for it.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

_F = TypeVar("_F", bound=Callable[..., Any])


def file_argument(name: str) -> Callable[[_F], _F]:
    """A positional argument naming an existing file (a suite, a plan, a trace export)."""
    return click.argument(name, type=click.Path(exists=True, dir_okay=False, path_type=Path))


def directory_argument(name: str = "run_dir") -> Callable[[_F], _F]:
    """A positional argument naming an existing directory (a run or assessment directory)."""
    return click.argument(name, type=click.Path(exists=True, file_okay=False, path_type=Path))


def out_option(
    help: str | None = None,
    *,
    directory: bool = False,
    required: bool = False,
    default: Path | None = None,
) -> Callable[[_F], _F]:
    """``--out``: the file (or, with ``directory``, the folder) a command writes; a ``default``
    is shown in the help."""
    kind = (
        click.Path(file_okay=False, path_type=Path)
        if directory
        else click.Path(dir_okay=False, path_type=Path)
    )
    return click.option("--out", type=kind, required=required, help=help, **_shown(default))


def seed_option(help: str | None = None) -> Callable[[_F], _F]:
    """``--seed`` (an integer, default 0)."""
    return click.option("--seed", type=int, default=0, show_default=True, help=help)


def _shown(default: Any) -> dict[str, Any]:
    """A default worth showing in the help (None means "not given": nothing to show)."""
    return {"default": default, "show_default": True} if default is not None else {}


def int_option(
    *decls: str, least: int, default: int | None = None, help: str | None = None
) -> Callable[[_F], _F]:
    """An integer option of at least ``least`` (a count, a number of resamples); a ``default``
    is shown in the help."""
    return click.option(*decls, type=click.IntRange(min=least), help=help, **_shown(default))


def fraction_option(
    *decls: str, default: float | None = None, help: str | None = None
) -> Callable[[_F], _F]:
    """A fraction strictly between 0 and 1 (a miscoverage level, a rate, a held-out share); a
    ``default`` is shown in the help."""
    fraction = click.FloatRange(0, 1, min_open=True, max_open=True)
    return click.option(*decls, type=fraction, help=help, **_shown(default))


def format_option(*others: str) -> Callable[[_F], _F]:
    """``--format`` of a listing: ``table`` (the default, for people) or ``json`` (for programs),
    then any ``others`` (``markdown``). Either way the listing goes to stdout."""
    return choice_option(
        "--format", "fmt", choices=["table", "json", *others], help="How to print the listing."
    )


def choice_option(*decls: str, choices: list[str], help: str | None = None) -> Callable[[_F], _F]:
    """An option taking one of ``choices``, the first being the default (shown in the help)."""
    return click.option(
        *decls, type=click.Choice(choices), default=choices[0], show_default=True, help=help
    )


def executor_options(*, from_plan: bool = False) -> Callable[[_F], _F]:
    """``--executor``, ``--address``, ``--workers``, ``--worker-cpus``, ``--worker-gpus`` (where
    evaluators run; docs/distributed.md), read by :func:`ray_options`. With ``from_plan`` every
    default is "not given": the validation plan's ``[run] executor`` and ``[run.ray]`` apply."""
    plan = " (default: the plan's [run] executor)" if from_plan else ""
    plan_ray = " (default: the plan's [run.ray])" if from_plan else ""
    decorators = [
        click.option(
            "--executor",
            type=click.Choice(["local", "ray"]),
            help="Where evaluator batches run: in this process, or on a Ray cluster "
            f"(pip install 'assay[ray]'){plan}.",
            **_shown(None if from_plan else "local"),
        ),
        click.option(
            "--address",
            default=None,
            help="Ray cluster address (e.g. 'auto', 'HOST:6379' or 'ray://HOST:10001'); default: "
            f"RAY_ADDRESS, else a local Ray instance{plan_ray}.",
        ),
        int_option("--workers", least=1, help=f"Ray workers per evaluator{plan_ray}."),
        click.option(
            "--worker-cpus",
            type=click.FloatRange(min=0),
            help=f"CPUs per Ray worker{plan_ray}.",
            **_shown(None if from_plan else 1.0),
        ),
        click.option(
            "--worker-gpus",
            type=click.FloatRange(min=0),
            help=f"GPUs per Ray actor of a model-based evaluator (fractions allowed){plan_ray}.",
            **_shown(None if from_plan else 0.0),
        ),
    ]

    def apply(function: _F) -> _F:
        for decorator in reversed(decorators):
            function = decorator(function)
        return function

    return apply


def ray_options(
    address: str | None, workers: int | None, cpus: float | None, gpus: float | None
) -> dict[str, Any]:
    """The Ray executor's keyword options from :func:`executor_options`, those not given left out.

    Example:
        >>> ray_options("auto", None, 1.0, None)
        {'address': 'auto', 'num_cpus': 1.0}
    """
    given = {"address": address, "num_workers": workers, "num_cpus": cpus, "num_gpus": gpus}
    return {key: value for key, value in given.items() if value is not None}


def evaluators_option(help: str) -> Callable[[_F], _F]:
    """``-e/--evaluators`` (required, repeatable, comma-separated), read by :func:`split_names`."""
    return click.option("-e", "--evaluators", "names", required=True, multiple=True, help=help)


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


#: ``--param EVALUATOR.KEY=VALUE`` (repeatable), read by :func:`parse_params`.
param_option = click.option(
    "--param",
    "params",
    multiple=True,
    metavar="EVALUATOR.KEY=VALUE",
    help="Set an evaluator parameter (JSON values); repeatable.",
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
