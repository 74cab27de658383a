"""Drill-down data of a conversation's turns and an agent trajectory's steps, bounded and flagged.

A conversation entry lists its turns (role, content, retrieved context, tool calls) with the
per-turn verdicts the evaluators name in their evidence: ``details["turns"]`` entries
``{"turn", "verdict", "reason"[, "metric"]}`` (the conversation metrics) and ``details["turn"]``
(the turn a multi-turn attack succeeded at). The failing metrics of the conversation's per-turn
cases (``assay turns``), when the run holds them, are verdicts on their turns too. A trajectory
entry lists its steps (tool, arguments, result or error) with the steps
``details["unrecovered_steps"]`` names, its final answer and what was expected.

Model outputs and tool results are untrusted and may be long: every text goes through the
caller's ``text`` function (clipping, and masking in shared reports), and a long conversation or
trajectory keeps its first turns, every flagged one (up to a cap) and its last, the number left
out stated beside them, so a 200-turn conversation stays a few tens of kilobytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

#: Turns (or steps) shown from the start of a conversation (trajectory).
MAX_TURNS = 30
#: Flagged turns (or steps) past the first ``MAX_TURNS`` still shown.
MAX_FLAGGED = 20
#: Characters of one turn's content (or of a final answer) at most.
MAX_TURN_TEXT = 4_000
#: Characters of one context chunk, tool arguments, result or error at most.
MAX_PART_TEXT = 1_000
#: Characters of one per-turn verdict's reason at most.
MAX_REASON = 400
#: Retrieved-context chunks and tool calls shown per turn at most.
MAX_PER_TURN = 5

#: ``text(value, limit)``: the value clipped to ``limit`` characters (and masked, when shared).
TextFn = Callable[[Any, int], Any]


def turn_verdicts(
    evidence: Iterable[Mapping[str, Any]], text: TextFn
) -> dict[int, list[dict[str, Any]]]:
    """The per-turn verdicts named in drill-down evidence, by 1-based turn number (each reason
    through ``text``).

    Example:
        >>> ev = [{"evaluator": "judge_role_adherence", "metric": "judge_role_adherence",
        ...        "explanation": "1 of 2 failed", "details": {"turns": [
        ...        {"turn": 2, "verdict": True, "reason": ""},
        ...        {"turn": 4, "verdict": False, "reason": "off role"}]}},
        ...       {"evaluator": "attack_success", "metric": "attack_success",
        ...        "explanation": "turn 6 complies", "details": {"turn": 6}}]
        >>> same = lambda value, limit: value
        >>> found = turn_verdicts(ev, same)
        >>> {n: [v["passed"] for v in vs] for n, vs in found.items()}
        {2: [True], 4: [False], 6: [False]}
        >>> found[6][0]["metric"], found[6][0]["reason"]
        ('attack_success', 'turn 6 complies')
    """
    out: dict[int, list[dict[str, Any]]] = {}
    for ev in evidence:
        details = ev.get("details")
        if not isinstance(details, Mapping):
            continue
        for item in details.get("turns") or []:
            if isinstance(item, Mapping) and _number(item.get("turn")) is not None:
                passed = item.get("verdict")
                out.setdefault(int(item["turn"]), []).append({
                    "evaluator": ev.get("evaluator"),
                    "metric": item.get("metric") or ev.get("metric"),
                    "passed": passed if isinstance(passed, bool) else None,
                    "reason": text(item.get("reason"), MAX_REASON),
                })
        if _number(details.get("turn")) is not None:  # where a multi-turn attack succeeded
            out.setdefault(int(details["turn"]), []).append({
                "evaluator": ev.get("evaluator"),
                "metric": ev.get("metric"),
                "passed": False,
                "reason": text(ev.get("explanation"), MAX_REASON),
            })
    return out


def conversation_view(
    turns: Sequence[Mapping[str, Any]] | None,
    evidence: Iterable[Mapping[str, Any]],
    text: TextFn,
    linked: Mapping[int, list[dict[str, Any]]] | None = None,
) -> dict[str, Any] | None:
    """A conversation's turns for the drill-down (None for a case without turns).

    ``linked`` adds verdicts by turn from elsewhere: the failing metrics of the conversation's
    per-turn cases (see :func:`turn_case_origin`).

    Returns:
        ``{"n_turns", "omitted", "turns": [{"n", "role", "content", "context", "n_context",
        "tool_calls", "n_tool_calls", "verdicts", "flagged"}]}``; ``omitted`` turns are not shown
        (each shown turn keeps its number ``n``, so the gaps are visible).

    Example:
        >>> turns = [{"role": "user", "content": "Hi"}] * 100
        >>> view = conversation_view(turns, [], lambda value, limit: value)
        >>> view["n_turns"], len(view["turns"]), view["omitted"], view["turns"][-1]["n"]
        (100, 31, 69, 100)
    """
    if not turns:
        return None
    verdicts = turn_verdicts(evidence, text)
    for n, more in (linked or {}).items():
        verdicts.setdefault(n, []).extend(more)
    flagged = {n for n, vs in verdicts.items() if any(v["passed"] is False for v in vs)}
    shown = _kept(len(turns), flagged)
    return {
        "n_turns": len(turns),
        "omitted": len(turns) - len(shown),
        "turns": [_turn(n, turns[n - 1], verdicts.get(n, []), n in flagged, text) for n in shown],
    }


def trajectory_view(
    trajectory: Mapping[str, Any] | None,
    evidence: Iterable[Mapping[str, Any]],
    text: TextFn,
) -> dict[str, Any] | None:
    """An agent trajectory's steps for the drill-down (None for a case without a trajectory).

    Returns:
        ``{"n_steps", "omitted", "steps": [{"n", "name", "arguments", "result", "error",
        "flagged"}], "final_answer", "expected_tools", "n_expected", "min_steps"}``; flagged
        steps are the failed calls the agent did not recover from.

    Example:
        >>> traj = {"steps": [{"name": "fx", "arguments": {"pair": "EURUSD"}, "error": "timeout"}],
        ...         "final_answer": "1.08"}
        >>> ev = [{"details": {"unrecovered_steps": [1]}}]
        >>> step = trajectory_view(traj, ev, lambda value, limit: value)["steps"][0]
        >>> step["name"], step["arguments"], step["error"], step["flagged"]
        ('fx', '{"pair": "EURUSD"}', 'timeout', True)
    """
    if not trajectory:
        return None
    steps = list(trajectory.get("steps") or [])
    flagged = {
        int(n)
        for ev in evidence
        if isinstance(ev.get("details"), Mapping)
        for n in ev["details"].get("unrecovered_steps") or []
        if _number(n) is not None
    }
    shown = _kept(len(steps), flagged)
    expected = list(trajectory.get("expected_tools") or [])
    return {
        "n_steps": len(steps),
        "omitted": len(steps) - len(shown),
        "steps": [{**_call(steps[n - 1], text), "n": n, "flagged": n in flagged} for n in shown],
        "final_answer": text(trajectory.get("final_answer"), MAX_TURN_TEXT),
        "expected_tools": [_call(call, text) for call in expected[:MAX_TURNS]],
        "n_expected": len(expected),
        "min_steps": trajectory.get("min_steps"),
    }


def linked_turn_verdicts(
    groups: dict[tuple[str, str], list[dict[str, Any]]],
    cases: dict[tuple[str, str], dict[str, Any]],
    text: TextFn,
) -> dict[tuple[str, str], dict[int, list[dict[str, Any]]]]:
    """The failing verdicts of the per-turn cases among ``groups`` (drill-down result rows by
    ``(case id, model)``; ``cases`` their case records), by ``(conversation id, model)`` and turn.

    Example:
        >>> rows = {("c#turn2", "m"): [{"evaluator": "e", "metric": "x", "primary": True,
        ...                             "passed": False, "value": 0.1, "threshold": 0.5}]}
        >>> cases = {("c#turn2", "m"): {"metadata": {"conversation_id": "c", "turn": 2}}}
        >>> found = linked_turn_verdicts(rows, cases, lambda value, limit: value)
        >>> list(found), list(found["c", "m"])
        ([('c', 'm')], [2])
    """
    linked: dict[tuple[str, str], dict[int, list[dict[str, Any]]]] = {}
    for (case_id, model), rows in groups.items():
        origin = turn_case_origin(cases.get((case_id, model), {}))
        if origin is not None:
            verdicts = turn_case_verdicts(case_id, rows, text)
            linked.setdefault((origin[0], model), {}).setdefault(origin[1], []).extend(verdicts)
    return linked


def turn_case_origin(case: Mapping[str, Any]) -> tuple[str, int] | None:
    """The conversation id and turn a per-turn case was made from
    (:func:`assay.data.turns.turn_cases`), or None for any other case.

    Example:
        >>> turn_case_origin({"metadata": {"conversation_id": "c", "turn": 2}})
        ('c', 2)
        >>> turn_case_origin({"metadata": {}}) is None
        True
    """
    meta = case.get("metadata")
    if not isinstance(meta, Mapping):
        return None
    conversation, turn = meta.get("conversation_id"), _number(meta.get("turn"))
    return None if conversation is None or turn is None else (str(conversation), turn)


def turn_case_verdicts(
    case_id: str, metrics: Iterable[Mapping[str, Any]], text: TextFn
) -> list[dict[str, Any]]:
    """The failing primary metrics of a per-turn case, as verdicts on its conversation's turn.

    Example:
        >>> m = {"evaluator": "e", "metric": "x", "primary": True, "passed": False,
        ...      "value": 0.2, "threshold": 0.5}
        >>> turn_case_verdicts("c#turn2", [m], lambda value, limit: value)[0]["reason"]
        'per-turn case c#turn2: x 0.2, threshold 0.5'
    """
    return [
        {
            "evaluator": m.get("evaluator"),
            "metric": m.get("metric"),
            "passed": False,
            "reason": text(
                f"per-turn case {case_id}: {m.get('metric')} {m.get('value'):.3g}, "
                f"threshold {m.get('threshold'):.3g}"
                if isinstance(m.get("value"), float | int)
                and isinstance(m.get("threshold"), float | int)
                else f"per-turn case {case_id}: {m.get('metric')} fails",
                MAX_REASON,
            ),
        }
        for m in metrics
        if m.get("primary") and m.get("passed") is False
    ]


def _kept(total: int, flagged: set[int]) -> list[int]:
    """The 1-based positions shown: the first ``MAX_TURNS``, flagged ones past them (at most
    ``MAX_FLAGGED``) and the last."""
    late = sorted(n for n in flagged if MAX_TURNS < n <= total)[:MAX_FLAGGED]
    return sorted({*range(1, min(total, MAX_TURNS) + 1), *late, total} - {0})


def _turn(
    n: int, turn: Mapping[str, Any], verdicts: list[dict[str, Any]], flagged: bool, text: TextFn
) -> dict[str, Any]:
    context = list(turn.get("retrieved_context") or [])
    calls = list(turn.get("tool_calls") or [])
    return {
        "n": n,
        "role": str(turn.get("role") or ""),
        "content": text(turn.get("content") or "", MAX_TURN_TEXT),
        "context": [text(chunk, MAX_PART_TEXT) for chunk in context[:MAX_PER_TURN]],
        "n_context": len(context),
        "tool_calls": [_call(call, text) for call in calls[:MAX_PER_TURN]],
        "n_tool_calls": len(calls),
        "verdicts": verdicts,
        "flagged": flagged,
    }


def _call(call: Mapping[str, Any], text: TextFn) -> dict[str, Any]:
    """A tool call with its arguments and result as (clipped) JSON text."""
    return {
        "name": text(str(call.get("name") or ""), 200),
        "arguments": text(_json(call.get("arguments")), MAX_PART_TEXT),
        "result": text(_json(call.get("result")), MAX_PART_TEXT),
        "error": text(call.get("error"), MAX_PART_TEXT),
    }


def _json(value: Any) -> str | None:
    """A value as shown: text as itself, anything else as compact JSON; None stays None."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=str)


def _number(value: Any) -> int | None:
    """``value`` when it is a positive integer (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None

