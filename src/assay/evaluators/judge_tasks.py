"""The judge tasks shared by the evaluators: each builds a request and interprets its reply.

Replies are checked for shape (JSON Schema) and for meaning (e.g. one verdict for every numbered
item); anything else raises, which the judge client turns into one retry and then an explicit
parse failure.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Sequence
from typing import Any

from assay.backends.llm.client import JsonTask
from assay.backends.llm.prompts import build_request, numbered
from assay.errors import JudgeParseError

#: The package whose ``prompts/`` folder holds the judge evaluators' prompts.
PROMPTS = "assay.evaluators"
_request = functools.partial(build_request, package=PROMPTS)
_FLAG = {"type": ["boolean", "integer", "string"]}


_STRING = {"type": "string"}
_NUMBER = {"type": ["number", "string"]}


def object_schema(properties: dict[str, Any], *required: str) -> dict[str, Any]:
    """The JSON Schema of an object with ``properties``, of which ``required`` must be present:
    the shape of every reply the judge tasks, question writing, the fact-check agent and the
    simulated user ask for.

    Example:
        >>> object_schema({"score": {"type": "number"}}, "score")
        {'type': 'object', 'properties': {'score': {'type': 'number'}}, 'required': ['score']}
    """
    return {"type": "object", "properties": properties, "required": list(required)}


def list_schema(key: str, items: dict[str, Any] | None = None) -> dict[str, Any]:
    """The JSON Schema of a reply holding one list under ``key``: of strings (statements, facts,
    claims) unless ``items`` gives the schema of an item (verdicts, written questions).

    Example:
        >>> list_schema("facts")["properties"]
        {'facts': {'type': 'array', 'items': {'type': 'string'}}}
    """
    return object_schema({key: {"type": "array", "items": items or _STRING}}, key)


STATEMENTS_SCHEMA = list_schema("statements")
VERDICTS_SCHEMA = list_schema("verdicts", object_schema(
    {"id": {"type": ["integer", "string"]}, "verdict": _FLAG, "reason": _STRING}, "id", "verdict"))
QUESTIONS_SCHEMA = object_schema(
    {"questions": {"type": "array", "items": _STRING}, "noncommittal": _FLAG}, "questions")
SCORE_SCHEMA = object_schema({"score": _NUMBER, "reason": _STRING}, "score")
VERDICT_SCHEMA = object_schema({"verdict": _FLAG, "reason": _STRING}, "verdict")
VERDICT_SCORE_SCHEMA = object_schema(
    {"verdict": _FLAG, "score": _NUMBER, "reason": _STRING}, "verdict", "score")
_TRUE = {"true", "yes", "y", "1", "supported", "good", "pass", "relevant", "useful"}
_FALSE = {"false", "no", "n", "0", "unsupported", "bad", "fail", "irrelevant", "not useful"}


def as_flag(value: Any, where: str = "verdict") -> bool:
    """A boolean from a judge's ``true`` / ``"yes"`` / ``1`` style value.

    Example:
        >>> as_flag("Yes"), as_flag(0), as_flag(True)
        (True, False, True)
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise JudgeParseError(f"{where} must be true or false; got {value!r}")


def as_number(value: Any, low: float, high: float, where: str = "score") -> float:
    """A number within ``[low, high]`` from a judge's number or numeric string.

    Example:
        >>> as_number("7", 0, 10)
        7.0
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise JudgeParseError(f"{where} must be a number; got {value!r}") from None
    if not math.isfinite(number) or not low <= number <= high:
        raise JudgeParseError(f"{where} must be between {low:g} and {high:g}; got {value!r}")
    return number


# -- interpreters ---------------------------------------------------------------------------
_PLACEHOLDER = re.compile(r"^<[^<>]{1,40}>$")


def _no_placeholders(items: list[str], what: str) -> list[str]:
    """Reject a reply that copies the prompt's format example (``"<statement 1>"``)."""
    copied = [item for item in items if _PLACEHOLDER.match(item)]
    if copied:
        raise JudgeParseError(f"the reply copies the format example ({copied[0]!r}) instead of "
                              f"giving {what}")
    return items


def _statements(value: Any) -> list[str]:
    items = [s.strip() for s in value["statements"] if isinstance(s, str) and s.strip()]
    return _no_placeholders(items, "statements")


def verdicts_for(n: int) -> Any:
    """An interpreter requiring exactly one verdict per item ``1..n``; returns
    ``[(verdict, reason), ...]`` in item order."""

    def interpret(value: Any) -> list[tuple[bool, str]]:
        found: dict[int, tuple[bool, str]] = {}
        for item in value["verdicts"]:
            try:
                ident = int(str(item["id"]).strip().rstrip("."))
            except ValueError:
                raise JudgeParseError(f"verdict id must be a number; got {item['id']!r}") from None
            if not 1 <= ident <= n:
                raise JudgeParseError(f"verdict id {ident} is not one of 1..{n}")
            found[ident] = (as_flag(item["verdict"], f"verdict {ident}"),
                            str(item.get("reason", "")))
        missing = [i for i in range(1, n + 1) if i not in found]
        if missing:
            raise JudgeParseError(f"expected one verdict for each of items 1..{n}; "
                                  f"missing {missing}")
        return [found[i] for i in range(1, n + 1)]

    return interpret


def _questions(value: Any) -> tuple[list[str], bool]:
    questions = _no_placeholders(
        [q.strip() for q in value["questions"] if isinstance(q, str) and q.strip()], "questions"
    )
    noncommittal = as_flag(value.get("noncommittal", False), "noncommittal")
    if not questions and not noncommittal:
        raise JudgeParseError("no questions generated")
    return questions, noncommittal


def scored(low: float, high: float) -> Any:
    """An interpreter for ``{"score": x, "reason": ...}`` with ``low <= x <= high``."""

    def interpret(value: Any) -> tuple[float, str]:
        return as_number(value["score"], low, high), str(value.get("reason", ""))

    return interpret


def verdict_scored(low: float, high: float) -> Any:
    """An interpreter for ``{"verdict": b, "score": x, "reason": ...}`` -> ``(b, x, reason)``."""

    def interpret(value: Any) -> tuple[bool, float, str]:
        return (as_flag(value["verdict"]), as_number(value["score"], low, high),
                str(value.get("reason", "")))

    return interpret


def _verdict(value: Any) -> tuple[bool, str]:
    return as_flag(value["verdict"]), str(value.get("reason", ""))


# -- task builders --------------------------------------------------------------------------
def extract_statements(question: str, text: str) -> JsonTask:
    """Split ``text`` into standalone statements -> ``list[str]``."""
    request = _request("extract_statements", {"question": question, "text": text},
                            STATEMENTS_SCHEMA)
    return JsonTask(request, _statements)


def verify_statements(statements: Sequence[str], reference: str) -> JsonTask:
    """One verdict per statement: does ``reference`` support it -> ``[(bool, reason)]``."""
    request = _request(
        "verify_statements",
        {"statements": numbered(statements), "reference": reference},
        VERDICTS_SCHEMA,
        extra={"items": list(statements)},
    )
    return JsonTask(request, verdicts_for(len(statements)))


def numbered_verdicts(task: str, items: Sequence[str], item_key: str,
                      variables: dict[str, str]) -> JsonTask:
    """One verdict per numbered item for the prompt ``task`` -> ``[(bool, reason)]``."""
    request = _request(task, {**variables, item_key: numbered(items)}, VERDICTS_SCHEMA,
                            extra={"items": list(items)})
    return JsonTask(request, verdicts_for(len(items)))


def generate_questions(answer: str, n: int) -> JsonTask:
    """``n`` questions the answer answers, and whether it is noncommittal."""
    request = _request("generate_questions", {"answer": answer, "n": str(n)},
                            QUESTIONS_SCHEMA)
    return JsonTask(request, _questions)


def score_task(task: str, variables: dict[str, str], low: float, high: float) -> JsonTask:
    """A ``{"score": ...}`` task -> ``(score, reason)``."""
    return JsonTask(_request(task, variables, SCORE_SCHEMA), scored(low, high))


def verdict_score_task(task: str, variables: dict[str, str], low: float,
                       high: float) -> JsonTask:
    """A ``{"verdict": ..., "score": ...}`` task -> ``(bool, score, reason)``."""
    return JsonTask(_request(task, variables, VERDICT_SCORE_SCHEMA),
                    verdict_scored(low, high))


def verdict_task(task: str, variables: dict[str, str], template: str | None = None) -> JsonTask:
    """A ``{"verdict": ...}`` task -> ``(bool, reason)``."""
    return JsonTask(_request(task, variables, VERDICT_SCHEMA, template=template), _verdict)
