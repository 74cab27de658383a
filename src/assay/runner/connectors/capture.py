"""What in-process framework connectors share: resolving the target object and turning what a
framework returned (passages with ids, tool inputs and outputs) into plain, JSON-safe values."""

from __future__ import annotations

import inspect
import json
import logging
import math
from collections.abc import Callable, Sequence
from typing import Any

from assay.data.case import TestCase
from assay.data.dialogue import ToolCall
from assay.errors import InvalidInputError
from assay.runner.connectors.base import TargetResponse

logger = logging.getLogger(__name__)

#: A passage found by the system under test: its text and, when the framework gives one, its id.
Passage = tuple[str, str | None]


def split_passages(found: Sequence[Passage]) -> tuple[list[str], list[str] | None]:
    """Texts and ids of ``found`` passages; ids only when every passage has one (a partial id
    list would misalign ids and texts for the retrieval metrics).

    Example:
        >>> split_passages([("Fee: 12 euros.", "c1"), ("Wire: 2 days.", "c2")])
        (['Fee: 12 euros.', 'Wire: 2 days.'], ['c1', 'c2'])
        >>> split_passages([("Fee: 12 euros.", "c1"), ("Wire: 2 days.", None)])[1] is None
        True
    """
    texts = [text for text, _ in found]
    ids = [key for _, key in found if key is not None]
    return texts, (ids if len(ids) == len(texts) else None)


def framework_response(
    answer: str,
    passages: Sequence[Passage],
    calls: Sequence[ToolCall],
    usage: dict[str, int] | None = None,
) -> TargetResponse:
    """What an in-process framework answered, with the passages it retrieved (ids as
    ``context_ids`` when every passage has one) and the tools it called; each None when the
    framework reported none.

    Example:
        >>> r = framework_response("12 euros", [("Fee: 12 euros.", "c1")], [])
        >>> r.retrieved_context, r.context_ids, r.tool_calls
        (['Fee: 12 euros.'], ['c1'], None)
    """
    texts, ids = split_passages(passages)
    return TargetResponse(
        answer=answer,
        retrieved_context=texts if passages else None,
        context_ids=ids if passages else None,
        usage=dict(usage or {}),
        tool_calls=list(calls) or None,
    )


def json_safe(value: Any) -> Any:
    """``value`` as JSON-compatible data (what a test case may store): containers are converted
    item by item, anything else that JSON cannot hold becomes its text.

    A tool's result can be any Python object; the answered suite must stay writable and
    readable, so objects are kept as text rather than dropped.

    Example:
        >>> json_safe({"rate": 0.031, "at": object}) == {"rate": 0.031, "at": str(object)}
        True
        >>> json_safe(float("nan"))
        'nan'
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    content = getattr(value, "content", None)  # a framework's tool message
    if isinstance(content, str):
        return content
    return str(value)


def arguments_of(value: Any) -> dict[str, Any]:
    """A tool call's arguments as a mapping: a dict as is, JSON object text parsed, any other
    input under ``"input"``.

    Example:
        >>> arguments_of('{"currency": "EUR"}'), arguments_of("EUR")
        ({'currency': 'EUR'}, {'input': 'EUR'})
    """
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            parsed = None
        value = parsed if isinstance(parsed, dict) else {"input": value}
    if not isinstance(value, dict):
        value = {"input": value}
    return json_safe(value)


def resolve_target(target: Any, accepts: Callable[[Any], bool], what: str, owner: str) -> Any:
    """The system under test from ``target``: the object itself when ``accepts`` it, else the
    result of calling it without arguments (a factory that builds the chain or engine on
    demand, so importing the user's module stays cheap).

    Raises:
        InvalidInputError: neither the object nor what its factory returns is accepted.

    Example:
        >>> resolve_target(lambda: [1], lambda x: isinstance(x, list), "a list", "demo")
        [1]
    """
    if accepts(target):
        return target
    if callable(target) and _takes_no_arguments(target):
        built = target()
        if accepts(built):
            return built
        raise InvalidInputError(
            f"The factory given to {owner} must return {what}; got {type(built).__name__} instead."
        )
    raise InvalidInputError(
        f"The target of {owner} must be {what} or a function returning one; "
        f"got {type(target).__name__} instead."
    )


def _takes_no_arguments(fn: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return all(
        p.default is not p.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters
    )


def warn_undelivered(case: TestCase, target: str, warned: bool) -> bool:
    """Log, once per target (``warned`` says whether it already did), that passages an attack
    asks to inject cannot reach an in-process framework, which owns its retrieval; returns
    whether the warning has now been given.

    Example:
        >>> warn_undelivered(TestCase(id="q"), "chain", False)
        False
    """
    if warned or not case.metadata.get("injected_context"):
        return warned
    logger.warning("%s: injected_context is not delivered to an in-process framework", target)
    return True
