"""Drill-down data of conversations and trajectories: turns, per-turn verdicts, steps, bounds,
masking, and the HTML page keeping hostile turn text inert."""

from __future__ import annotations

import json
import re
from typing import Any

from assay.report.dialogue_view import (
    MAX_FLAGGED,
    MAX_PART_TEXT,
    MAX_PER_TURN,
    MAX_TURN_TEXT,
    MAX_TURNS,
    conversation_view,
    trajectory_view,
)
from assay.report.drilldown import run_drilldown
from assay.rundir.run import EvaluationRun

from .report_runs import LONG_OFFENDING, LONG_TURNS, SCRIPT_TURN


def _entries(run: EvaluationRun, redact: bool = True) -> dict[str, dict[str, Any]]:
    out = run_drilldown(run.results, run.path, redact=redact)
    return {e["case_id"]: e for e in out["entries"]}


def _same(value: Any, limit: int) -> Any:
    return value


def test_a_conversation_shows_every_turn_and_marks_the_offending_one(
    dialogue_run: EvaluationRun,
) -> None:
    conv = _entries(dialogue_run)["conv-loan"]["conversation"]
    assert (conv["n_turns"], conv["omitted"]) == (7, 0)
    assert [t["n"] for t in conv["turns"]] == list(range(1, 8))
    assert [t["role"] for t in conv["turns"]] == ["system"] + ["user", "assistant"] * 3
    flagged = [t["n"] for t in conv["turns"] if t["flagged"]]
    assert flagged == [5, 7]
    (verdict,) = conv["turns"][6]["verdicts"]  # the changed amount, named by the evaluator
    assert verdict["metric"] == "knowledge_retention" and verdict["passed"] is False
    assert "6,000" in verdict["reason"]
    (linked,) = conv["turns"][4]["verdicts"]  # the failing per-turn case of turn 5
    assert linked["metric"] == "test_groundedness" and linked["passed"] is False
    assert linked["reason"].startswith("per-turn case conv-loan#turn5: test_groundedness 0.")
    assert conv["turns"][4]["context"] == ["Personal loans: 4.5% APR."]
    (call,) = conv["turns"][6]["tool_calls"]
    assert call["name"] == "annuity" and call["result"] == "250"
    assert json.loads(call["arguments"])["principal"] == 5000
    assert SCRIPT_TURN in conv["turns"][1]["content"]  # kept as text: the page escapes it


def test_a_200_turn_conversation_is_capped_and_keeps_its_late_offending_turn(
    dialogue_run: EvaluationRun,
) -> None:
    entry = _entries(dialogue_run)["conv-long"]
    conv = entry["conversation"]
    numbers = [t["n"] for t in conv["turns"]]
    assert numbers == [*range(1, MAX_TURNS + 1), LONG_OFFENDING, LONG_TURNS]
    assert conv["n_turns"] == LONG_TURNS
    assert conv["omitted"] == LONG_TURNS - len(numbers)
    assert [t["n"] for t in conv["turns"] if t["flagged"]] == [LONG_OFFENDING]
    assert len(json.dumps(entry)) < 20_000


def test_long_turns_and_many_flags_stay_bounded() -> None:
    turns = [{"role": "assistant", "content": "x" * 50_000, "retrieved_context": ["c" * 9_000] * 40,
              "tool_calls": [{"name": "t", "result": "r" * 9_000}] * 40}] * 300
    evidence = [{"evaluator": "e", "metric": "m",
                 "details": {"turns": [{"turn": n, "verdict": False, "reason": "bad " * 500}
                                       for n in range(1, 301)]}}]
    from assay.report.drilldown import _clip

    view = conversation_view(turns, evidence, _clip)
    assert view is not None
    assert len(view["turns"]) == MAX_TURNS + MAX_FLAGGED + 1
    assert view["omitted"] == 300 - len(view["turns"])
    turn = view["turns"][0]
    assert len(turn["content"]) < MAX_TURN_TEXT + 50 and "more characters" in turn["content"]
    assert (len(turn["context"]), turn["n_context"]) == (MAX_PER_TURN, 40)
    assert (len(turn["tool_calls"]), turn["n_tool_calls"]) == (MAX_PER_TURN, 40)
    assert len(turn["tool_calls"][0]["result"]) < MAX_PART_TEXT + 50
    # 300 turns of ~430,000 characters each: ~130 MB raw, about a megabyte shown
    assert len(json.dumps(view)) < 1_100_000 < 100 * 1_100_000 < len(json.dumps(turns))


def test_a_trajectory_shows_its_steps_the_unrecovered_failures_and_what_was_expected(
    dialogue_run: EvaluationRun,
) -> None:
    traj = _entries(dialogue_run)["agent-fx"]["trajectory"]
    assert traj["n_steps"] == 3 and traj["omitted"] == 0
    assert [s["name"] for s in traj["steps"]] == ["fx_rate", "fx_rate", "convert"]
    # the first failure was retried unchanged (not a recovery); the second was followed by a
    # successful call
    assert [s["flagged"] for s in traj["steps"]] == [True, False, False]
    assert traj["steps"][0]["error"] == "timeout" and traj["steps"][2]["result"] == "108.0"
    assert json.loads(traj["steps"][0]["arguments"]) == {"pair": "EURUSD"}
    assert traj["final_answer"] == "100 EUR is 108 USD."
    # recorded without actual_answer: the drill-down's answer is the agent's final answer
    assert _entries(dialogue_run)["agent-fx"]["answer"] == "100 EUR is 108 USD."
    assert [c["name"] for c in traj["expected_tools"]] == ["fx_rate", "convert"]
    assert _entries(dialogue_run)["agent-fx"]["expected_outcome"] == "108 USD"


def test_a_long_trajectory_is_capped() -> None:
    steps = [{"name": f"tool{n}", "arguments": {}, "result": n} for n in range(100)]
    view = trajectory_view({"steps": steps, "final_answer": "done"},
                           [{"details": {"unrecovered_steps": [77]}}], _same)
    assert view is not None
    assert [s["n"] for s in view["steps"]][-2:] == [77, 100]
    assert view["omitted"] == 100 - MAX_TURNS - 2


def test_single_turn_cases_have_no_conversation_or_trajectory(report_run: EvaluationRun) -> None:
    entry = next(iter(_entries(report_run).values()))
    assert entry["conversation"] is None and entry["trajectory"] is None


def test_turn_and_tool_texts_are_masked_in_the_shared_report() -> None:
    from functools import partial

    from assay.report.drilldown import _redacted
    from assay.safety.masking import Redactor

    masked = partial(_redacted, Redactor())
    email, card = "jane.doe@example.com", "4111111111111111"
    turns = [{"role": "user", "content": f"mail {email}",
              "tool_calls": [{"name": "crm", "arguments": {"card": card}, "result": email}]}]
    evidence = [{"evaluator": "e", "metric": "m",
                 "details": {"turns": [{"turn": 1, "verdict": False, "reason": f"gave {card}"}]}}]
    text = json.dumps(conversation_view(turns, evidence, masked))
    traj = json.dumps(trajectory_view(
        {"steps": [{"name": "crm", "arguments": {"to": email}, "error": f"no {card}"}],
         "final_answer": email}, [], masked))
    for shown in (text, traj):
        assert email not in shown and card not in shown
    assert "mail j" in text and "no 4111" in traj  # the rest of each text is still shown


def test_the_page_embeds_hostile_turn_text_only_as_inert_json(dialogue_run: EvaluationRun) -> None:
    page = (dialogue_run.path / "report.html").read_text(encoding="utf-8")
    assert "<script>window.__pwnedTurn" not in page
    assert "onerror=\"window.__pwnedTurn" not in page
    payload = re.search(r'<script id="assay-cases" type="application/json">(.*?)</script>',
                        page, re.S)
    assert payload and "\\u003cscript\\u003ewindow.__pwnedTurn" in payload.group(1)
