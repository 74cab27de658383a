"""Judge output sanity checks: constant output, parse failures and verbosity bias as problems."""

from __future__ import annotations

import json
from pathlib import Path

import assay
from assay import TestCase
from assay.backends.llm.client import Judge
from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.scripted import ScriptedJudge
from assay.evaluators.judge_answer import JudgeQAAccuracy


def _cases(n: int = 30) -> list[TestCase]:
    return [TestCase(id=f"c{i}", model="m", question=f"What is item {i}?",
                     expected_answer=f"Item {i} is a thing.",
                     actual_answer=" ".join(["word"] * (3 + i)))
            for i in range(n)]


def _run(reply: object, tmp_path: Path) -> list[dict[str, object]]:
    backend = ScriptedJudge([("equivalence", reply)], heuristics=False)
    evaluator = JudgeQAAccuracy(Judge(backend, prices={"scripted": (0.0, 0.0)}))
    run = assay.evaluate(_cases(), [evaluator], out=tmp_path / "run")
    on_disk = json.loads((tmp_path / "run" / "problems.json").read_text())
    assert on_disk == json.loads(json.dumps(run.problems, default=str))
    return [p for p in run.problems if str(p["kind"]).startswith("judge_")]


def test_a_judge_scoring_everything_alike_is_a_high_problem(tmp_path: Path) -> None:
    problems = _run('{"score": 1.0, "reason": "same"}', tmp_path)
    assert [(p["kind"], p["severity"], p["evaluator"]) for p in problems] == [
        ("judge_constant_output", "high", "judge_qa_accuracy")]
    assert "every one of the 30 parsed cases scored 1" in str(problems[0]["message"])


def test_a_high_parse_failure_rate_is_a_problem(tmp_path: Path) -> None:
    def reply(request: JudgeRequest) -> str:
        i = int(str(request.variables["question"]).split()[-1].rstrip("?"))
        return "I think it is fine" if i % 3 == 0 else json.dumps({"score": (i % 7) / 7,
                                                                   "reason": "r"})

    problems = _run(reply, tmp_path)
    parse = [p for p in problems if p["kind"] == "judge_parse_failures"]
    assert len(parse) == 1 and parse[0]["severity"] == "high"
    assert parse[0]["evidence"] == {"parse_failures": 10, "judged": 30, "rate": 0.3333}


def test_scores_following_answer_length_are_a_possible_verbosity_bias(tmp_path: Path) -> None:
    def reply(request: JudgeRequest) -> str:
        words = len(str(request.variables["answer"]).split())
        return json.dumps({"score": min(1.0, words / 40), "reason": "long is good"})

    problems = _run(reply, tmp_path)
    assert [p["kind"] for p in problems] == ["judge_verbosity_bias"]
    assert problems[0]["evidence"]["rho"] > 0.9


def test_a_discriminating_judge_raises_nothing(tmp_path: Path) -> None:
    def reply(request: JudgeRequest) -> str:
        i = int(str(request.variables["question"]).split()[-1].rstrip("?"))
        return json.dumps({"score": [0.1, 0.9, 0.4, 1.0, 0.0][i % 5], "reason": "r"})

    assert _run(reply, tmp_path) == []
