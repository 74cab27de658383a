"""``assay evaluate --judge-repeats``: each judge asked k times per case, over real HTTP on
loopback, with a judge that samples (its verdict is a seeded draw per prompt and seed)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from assay.cli.main import cli
from assay.data.case import TestCase
from assay.data.suite import write_suite
from assay.errors import InvalidInputError
from assay.rundir.results import read_results
from judge._servers import FakeOpenAI  # tests/judge: the loopback OpenAI-compatible server

CASES = [
    TestCase(id=f"q{i}", model="bot", question=f"Do cards cost anything in country {i}?",
             expected_answer="No, cards cost nothing.", actual_answer="Cards cost nothing.")
    for i in range(12)
]
REPEATS = 3


def _draw(case: int, seed: int) -> float:
    """The sampling judge's score for a case at a seed: 1.0 or 0.0, a seeded coin."""
    return 1.0 if random.Random(f"{case}|{seed}").random() < 0.5 else 0.0


def _case_of(payload: dict[str, Any]) -> int:
    match = re.search(r"country (\d+)\?", payload["messages"][-1]["content"])
    assert match is not None
    return int(match.group(1))


def _reply(payload: dict[str, Any]) -> str:
    return json.dumps({"score": _draw(_case_of(payload), payload["seed"]), "reason": "-"})


def _evaluate(suite: Path, out: Path, judge: dict[str, Any], *extra: str) -> None:
    result = CliRunner().invoke(
        cli, ["evaluate", str(suite), "-e", "judge_qa_accuracy", "--out", str(out), *extra],
        env={"ASSAY_JUDGE": json.dumps(judge)})
    assert result.exit_code == 0, result.output


def _values(out: Path) -> dict[str, float]:
    frame = read_results(out)
    rows = frame[frame["metric"] == "judge_qa_accuracy"]
    return dict(zip(rows["case_id"], rows["value"], strict=True))


def _suite(tmp_path: Path) -> Path:
    suite = tmp_path / "answered.jsonl"
    write_suite(CASES, suite)
    return suite


def _judge(server: FakeOpenAI, tmp_path: Path) -> dict[str, Any]:
    """A sampling judge spec (temperature 1, seed 7) on ``server``, with a reply cache."""
    return {"base_url": f"{server.url}/v1", "model": "sampler", "temperature": 1.0, "seed": 7,
            "cache": str(tmp_path / "judge.sqlite")}


def test_judge_repeats_report_the_cases_whose_judge_verdict_flips(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    with FakeOpenAI(_reply) as server:
        judge = _judge(server, tmp_path)
        _evaluate(suite, tmp_path / "run", judge, "--judge-repeats", str(REPEATS))
        # every sample asked afresh, with a seed of its own: nothing deduplicated or cached
        assert len(server.payloads) == len(CASES) * REPEATS
        asked = {(_case_of(p), p["seed"]) for p in server.payloads}
        assert asked == {(i, 7 + j) for i in range(len(CASES)) for j in range(REPEATS)}
        # a rerun reads every sample's own reply from the cache: nothing is asked again
        _evaluate(suite, tmp_path / "rerun", judge, "--judge-repeats", str(REPEATS))
        assert len(server.payloads) == len(CASES) * REPEATS
    answered = {i: [_draw(i, 7 + j) for j in range(REPEATS)] for i in range(len(CASES))}
    flipping = {f"q{i}" for i, scores in answered.items() if len(set(scores)) > 1}
    assert 0 < len(flipping) < len(CASES)  # the seeded judge flips on some cases, not all

    values = _values(tmp_path / "run")
    assert values == {f"q{i}#sample{j + 1}": answered[i][j]
                      for i in range(len(CASES)) for j in range(REPEATS)}
    problems = json.loads((tmp_path / "run" / "problems.json").read_text())
    flaky = {p["case_id"]: p for p in problems if p["kind"] == "flaky_case"}
    assert set(flaky) == flipping
    for case_id, problem in flaky.items():
        assert problem["evidence"]["passing"] == sum(answered[int(case_id[1:])])
        assert problem["evidence"]["samples"] == REPEATS
    analysis = json.loads((tmp_path / "run" / "analysis.json").read_text())
    repeats = analysis["repeats"]
    (row,) = [r for r in repeats["metrics"] if r["metric"] == "judge_qa_accuracy"]
    assert row["n_cases"] == len(CASES) and row["n_flaky"] == len(flipping)
    assert {f["case_id"] for f in repeats["flaky"]} == flipping
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["judge_repeats"] == REPEATS

    assert _values(tmp_path / "rerun") == values


def test_one_judge_repeat_changes_nothing(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    with FakeOpenAI(_reply) as server:
        judge = _judge(server, tmp_path)
        _evaluate(suite, tmp_path / "plain", judge)
        sent = list(server.payloads)
        assert {p["seed"] for p in sent} == {7}
        # the first judgement keeps the cache key it had before repeats existed
        _evaluate(suite, tmp_path / "one", judge, "--judge-repeats", "1")
        assert server.payloads == sent
    assert _values(tmp_path / "one") == _values(tmp_path / "plain")
    assert set(_values(tmp_path / "plain")) == {c.id for c in CASES}
    assert "judge_repeats" not in json.loads((tmp_path / "one" / "manifest.json").read_text())
    for name in ("problems.json", "leaderboard.json"):
        assert (tmp_path / "one" / name).read_text() == (tmp_path / "plain" / name).read_text()


def test_a_suite_of_samples_is_not_repeated_again(tmp_path: Path) -> None:
    suite = tmp_path / "sampled.jsonl"
    write_suite([CASES[0].model_copy(update={"id": "q0#sample1", "sample": 1,
                                             "sample_of": "q0"})], suite)
    result = CliRunner().invoke(
        cli, ["evaluate", str(suite), "-e", "judge_qa_accuracy", "--out", str(tmp_path / "run"),
              "--judge-repeats", "2"], env={"ASSAY_JUDGE": "scripted"})
    # main() prints the error and exits 1
    assert isinstance(result.exception, InvalidInputError)
    assert "'q0#sample1' is already sample 1" in str(result.exception)
    assert not (tmp_path / "run").exists()


def test_target_samples_with_the_same_answer_are_judged_apart_and_estimated_as_cached(
    tmp_path: Path,
) -> None:
    """Samples of ``assay run --repeats`` carry their index too: two samples that answered alike
    are two judgements, each cached under its own key, which the dry run finds."""
    from assay.backends.llm.client import Judge
    from assay.backends.llm.scripted import ScriptedJudge
    from assay.data.samples import repeat_cases
    from assay.evaluators.judge_estimate import estimate_judge_cost
    from assay.evaluators.registry import get_evaluator

    backend = ScriptedJudge({"equivalence": '{"score": 1.0, "reason": "same"}'})
    judge = Judge(backend, cache=tmp_path / "judge.sqlite", prices={"scripted": (0.0, 0.0)})
    cases = [CASES[0], *repeat_cases(CASES[1:2], 2)]
    evaluator = get_evaluator("judge_qa_accuracy", judge=judge)
    assert estimate_judge_cost([evaluator], cases).cached_calls == 0
    evaluator.evaluate(cases[:2])  # sample 2 asks the same prompt, but is a judgement of its own
    assert estimate_judge_cost([evaluator], cases).cached_calls == 2
    results = evaluator.evaluate(cases)
    assert [r.outcomes["judge_qa_accuracy"].value for r in results] == [1.0] * 3
    assert sorted(r.sample for r in backend.requests) == [0, 0, 1]  # 2 cached, 1 asked
    assert len(judge.cache or []) == 3
    assert estimate_judge_cost([evaluator], cases).cached_calls == 3
