"""Judge bias probes: a padded answer and reversed contexts, asked again, compared per case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from assay.analyze.judge_probes import PADDING, probe_findings, probe_judges
from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.scripted import ScriptedJudge, content_words
from assay.cli.main import cli
from assay.data.case import TestCase
from assay.data.suite import write_suite
from assay.evaluators.registry import get_evaluator
from judge._servers import FakeOpenAI  # tests/judge: the loopback OpenAI-compatible server

CASES = [
    TestCase(id=f"q{i}", model="bot", question=f"Do cards cost anything in country {i}?",
             expected_answer="No, cards cost nothing.", actual_answer="Cards cost nothing.",
             retrieved_context=["The branch opens at nine.", "Parking is free for customers.",
                                "Cards cost nothing in any country."])
    for i in range(8)
]


def _length_score(answer: str) -> str:
    """A verbosity-biased judge: the longer the answer, the better."""
    return json.dumps({"score": min(1.0, len(answer.split()) / 40), "reason": "long is good"})


def _first_two_only(request: JudgeRequest) -> str:
    """A position-biased judge: only sentences in the first two places can be relevant."""
    question = content_words(str(request.variables["question"]))
    items = [str(x) for x in request.variables.get("items", [])]
    return json.dumps({"verdicts": [
        {"id": i, "verdict": i <= 2 and bool(content_words(s) & question), "reason": "-"}
        for i, s in enumerate(items, start=1)]})


def _findings(judge: ScriptedJudge, names: list[str]) -> tuple[list[Any], list[Any]]:
    evaluators = [get_evaluator(n, judge=judge) for n in names]
    return probe_findings(probe_judges(evaluators, CASES, n=8, seed=0))


def test_a_judge_that_rewards_length_is_caught_by_the_padded_answer() -> None:
    judge = ScriptedJudge({"equivalence": lambda r: _length_score(str(r.variables["answer"]))})
    problems, insights = _findings(judge, ["judge_qa_accuracy"])
    (problem,) = problems
    assert problem["kind"] == "judge_verbosity_probe" and problem["evaluator"] == "judge_qa_accuracy"
    assert problem["evidence"]["pairs"] == 8 and problem["evidence"]["up"] == 8
    assert problem["evidence"]["mean_shift"] > 0.5 and problem["evidence"]["p_value"] < 0.01
    assert not insights
    padded = [r for r in judge.requests if PADDING.strip()[:20] in r.prompt_text]
    assert len(padded) == 8  # one padded request per probed case


def test_a_judge_that_reads_only_the_first_contexts_is_caught_by_reversing_them() -> None:
    judge = ScriptedJudge({"relevant_sentences": _first_two_only})
    problems, _ = _findings(judge, ["judge_context_relevancy"])
    (problem,) = problems
    assert problem["kind"] == "judge_position_probe"
    assert problem["evidence"]["up"] == 8 and problem["evidence"]["mean_shift"] > 0.3


def test_an_order_and_length_blind_judge_gives_insights_not_problems() -> None:
    judge = ScriptedJudge({"equivalence": '{"score": 1.0, "reason": "same"}'})
    problems, insights = _findings(judge, ["judge_qa_accuracy", "judge_context_relevancy",
                                           "judge_context_precision"])
    assert problems == []
    probed = {(i["evaluator"], i["evidence"]["probe"]) for i in insights}
    # context precision is rank-aware by definition: its order is not probed
    assert probed == {("judge_qa_accuracy", "verbosity"), ("judge_context_relevancy", "position")}
    assert all("no bias found" in i["message"] for i in insights)


def test_assay_evaluate_reports_probe_findings(tmp_path: Path) -> None:
    suite = tmp_path / "answered.jsonl"
    write_suite(CASES, suite)

    def reply(payload: dict[str, Any]) -> str:
        answer = payload["messages"][-1]["content"].split("ANSWER:")[-1].split("Reply as")[0]
        return _length_score(answer)

    with FakeOpenAI(reply) as server:
        judge = json.dumps({"base_url": f"{server.url}/v1", "model": "wordy", "cache": None})
        result = CliRunner().invoke(
            cli, ["evaluate", str(suite), "-e", "judge_qa_accuracy", "--judge-probes", "6",
                  "--out", str(tmp_path / "run")], env={"ASSAY_JUDGE": judge})
        assert result.exit_code == 0, result.output
        # the run, then per probed case the plain answer again (no cache here; with the judge's
        # cache it is not re-sent) and the padded one
        assert len(server.payloads) == 8 + 6 + 6
    problems = json.loads((tmp_path / "run" / "problems.json").read_text())
    (probe,) = [p for p in problems if p["kind"] == "judge_verbosity_probe"]
    assert probe["evaluator"] == "judge_qa_accuracy" and probe["evidence"]["pairs"] == 6
    assert "judge_verbosity_probe" in (tmp_path / "run" / "report.md").read_text()
