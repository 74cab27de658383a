"""Judge-free trajectory metrics: what an agent called, with which arguments, how efficiently.

Each function takes the agent's steps and what was expected and returns a value in [0, 1], or
None when the metric does not apply (the caller reports it as skipped, never as 0).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

from assay.data.dialogue import ToolCall
from assay.text.normalize import normalize_squad


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two name sequences."""
    row = [0] * (len(b) + 1)
    for x in a:
        prev = 0
        for j, y in enumerate(b, start=1):
            prev, row[j] = row[j], prev + 1 if x == y else max(row[j], row[j - 1])
    return row[-1]


def tool_matches(used: Sequence[str], expected: Sequence[str], *, ordered: bool) -> int:
    """Number of used calls matching expected ones: by multiset, or in order (LCS).

    Example:
        >>> tool_matches(["b", "a", "a"], ["a", "b"], ordered=False)
        2
        >>> tool_matches(["b", "a"], ["a", "b"], ordered=True)
        1
    """
    if ordered:
        return _lcs(used, expected)
    return sum((Counter(used) & Counter(expected)).values())


def tool_precision_recall(
    steps: Sequence[ToolCall], expected: Sequence[ToolCall], *, ordered: bool = False
) -> tuple[float | None, float | None]:
    """Share of used calls that were expected, and of expected calls that were used.

    Precision is None when nothing was called, recall when nothing was expected.

    Example:
        >>> calls = [ToolCall(name="search"), ToolCall(name="search"), ToolCall(name="sum")]
        >>> tool_precision_recall(calls, [ToolCall(name="search"), ToolCall(name="fx")])
        (0.3333333333333333, 0.5)
    """
    used = [s.name for s in steps]
    wanted = [e.name for e in expected]
    hits = tool_matches(used, wanted, ordered=ordered)
    return (hits / len(used) if used else None, hits / len(wanted) if wanted else None)


def values_match(actual: Any, expected: Any, *, rel_tol: float = 1e-6) -> bool:
    """Whether an argument value matches: numbers within ``rel_tol``, texts after SQuAD
    normalisation, mappings key by key on the expected keys, lists element by element.

    Example:
        >>> values_match("The EUR ", "eur"), values_match(100, 100.0), values_match(1, True)
        (True, True, False)
    """
    if isinstance(expected, bool) or isinstance(actual, bool):
        return actual is expected
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return math.isclose(actual, expected, rel_tol=rel_tol, abs_tol=rel_tol)
    if isinstance(expected, str) and isinstance(actual, str):
        return normalize_squad(actual) == normalize_squad(expected)
    if isinstance(expected, dict) and isinstance(actual, dict):
        return all(k in actual and values_match(actual[k], v) for k, v in expected.items())
    if isinstance(expected, list) and isinstance(actual, list):
        return len(actual) == len(expected) and all(
            values_match(a, e) for a, e in zip(actual, expected, strict=True)
        )
    return bool(actual == expected)


def argument_correctness(steps: Sequence[ToolCall], expected: Sequence[ToolCall]) -> float | None:
    """Share of expected calls with arguments that some call of the same tool matched.

    Only expected calls that give arguments count; each used call matches at most one expected
    call (in order). None when no expected call gives arguments.

    Example:
        >>> used = [ToolCall(name="fx", arguments={"pair": "EURUSD", "day": 3})]
        >>> argument_correctness(used, [ToolCall(name="fx", arguments={"pair": "eurusd"})])
        1.0
    """
    checked = [e for e in expected if e.arguments]
    if not checked:
        return None
    free = list(steps)
    hits = 0
    for want in checked:
        for index, step in enumerate(free):
            if step.name == want.name and values_match(step.arguments, want.arguments):
                hits += 1
                del free[index]
                break
    return hits / len(checked)


def step_efficiency(n_steps: int, minimal: int | None) -> float | None:
    """``minimal / steps`` capped at 1 (1 when both are 0); None when the minimum is unknown.

    Example:
        >>> step_efficiency(4, 2), step_efficiency(0, 0), step_efficiency(3, None)
        (0.5, 1.0, None)
    """
    if minimal is None:
        return None
    if n_steps == 0:
        return 1.0 if minimal == 0 else 0.0
    return min(1.0, minimal / n_steps)


def error_recovery(steps: Sequence[ToolCall]) -> tuple[float | None, list[int]]:
    """Share of failed calls the agent recovered from, and the 1-based unrecovered steps.

    A failed call is recovered when the next step does not repeat it unchanged (same tool, same
    arguments) and some later call of the same tool, or the next call, succeeds. None when no
    call failed.

    Example:
        >>> steps = [ToolCall(name="fx", error="timeout"), ToolCall(name="fx", result=1.1),
        ...          ToolCall(name="db", error="denied"), ToolCall(name="db", error="denied")]
        >>> error_recovery(steps)
        (0.3333333333333333, [3, 4])
    """
    failed = [i for i, s in enumerate(steps) if s.error is not None]
    if not failed:
        return None, []
    unrecovered = []
    for i in failed:
        later = steps[i + 1 :]
        repeated_failure = (
            bool(later)
            and later[0].error is not None
            and ((later[0].name, later[0].arguments) == (steps[i].name, steps[i].arguments))
        )
        succeeded = any(s.error is None and s.name == steps[i].name for s in later) or (
            bool(later) and later[0].error is None
        )
        if repeated_failure or not succeeded:
            unrecovered.append(i + 1)
    return (len(failed) - len(unrecovered)) / len(failed), unrecovered


def outcome_matches(final_answer: str | None, expected_outcome: str) -> float:
    """1 when the normalised expected outcome appears in the normalised final answer, else 0.

    Example:
        >>> outcome_matches("You will get 108 USD.", "108 usd"), outcome_matches(None, "x")
        (1.0, 0.0)
    """
    if not final_answer:
        return 0.0
    want = normalize_squad(expected_outcome)
    return float(bool(want) and f" {want} " in f" {normalize_squad(final_answer)} ")
