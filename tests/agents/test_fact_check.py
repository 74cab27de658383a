"""The fact-check agent and the ``fact_check`` evaluator, with scripted judges and a small corpus."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from assay.agents.factcheck.scripted import scripted_factcheck_judge
from assay.backends.llm import Judge
from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.scripted import ScriptedJudge
from assay.cli.main import cli
from assay.data.case import TestCase
from assay.data.suite import write_suite
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.fact_check import FactCheck
from assay.evaluators.judge_estimate import estimate_judge_cost
from assay.testing.conformance import check_evaluator

CORPUS = {
    "fees.md#0": "The monthly account fee is 12 euros. Students pay no fee.",
    "cards.md#0": "A debit card is included. A replacement card costs 5 euros.",
    "history.md#0": "The bank was founded in 1998 in Lyon.",
}
ANSWER = ("The monthly account fee is 12 euros. A replacement card costs 8 euros. "
          "The bank has 40 branches.")
CASE = TestCase(id="q1", model="bot", question="What does the account cost?",
                actual_answer=ANSWER)


def judge_with(*rules: tuple[str, Any], prices: dict[str, tuple[float, float]] | None = None
               ) -> tuple[Judge, ScriptedJudge]:
    backend = ScriptedJudge(rules)
    return Judge(backend, prices=prices or {"scripted": (0.0, 0.0)}, concurrency=2), backend


def test_claims_are_checked_with_evidence_and_every_tool_call_recorded() -> None:
    evaluator = FactCheck(judge=scripted_factcheck_judge(), corpus=CORPUS)
    [result] = evaluator.evaluate([CASE])
    values = {k: o.value for k, o in result.outcomes.items()}
    assert values == {"factcheck_score": pytest.approx(1 / 3),
                      "factcheck_refuted": pytest.approx(1 / 3), "factcheck_coverage": 1.0}
    claims = result.details["claims"]
    assert [c["verdict"] for c in claims] == ["supported", "refuted", "not_enough_evidence"]
    assert claims[0]["evidence"][0]["id"] == "corpus:fees.md#0"
    assert "12 euros" in claims[0]["evidence"][0]["text"]
    assert claims[1]["evidence"][0]["id"] == "corpus:cards.md#0"
    assert claims[2]["evidence"] == [] and claims[2]["steps"] == 2
    calls = result.details["tool_calls"]
    assert len(calls) == 3 and all(c["tool"] == "corpus" for c in calls)
    explanation = result.explanation or ""
    assert explanation.startswith("3/3 claims checked: 1 supported, 1 refuted, "
                                  "1 not enough evidence; 3 tool call(s): ")
    for call in calls:
        assert f'corpus("{call["query"]}") -> [' in explanation
    usage = result.details["judge"]
    assert usage["calls"] == 1 + 3 * 2 and usage["parse_failures"] == 0
    assert usage["cost_usd"] == 0.0
    assert evaluator.stats_.requests == 7


def test_the_judge_sees_the_search_results() -> None:
    judge, backend = judge_with()
    FactCheck(judge=judge, corpus=CORPUS).evaluate([CASE])
    verdict_prompts = [r.prompt_text for r in backend.requests
                       if r.task == "factcheck_step" and r.variables["n_searches"]]
    assert len(verdict_prompts) == 3
    assert "[corpus:fees.md#0] The monthly account fee is 12 euros." in verdict_prompts[0]
    assert "You have 2 step(s) left" in verdict_prompts[0]


def test_case_context_is_searched_when_no_corpus_is_given() -> None:
    case = CASE.model_copy(update={"retrieved_context": list(CORPUS.values()),
                                   "context_ids": list(CORPUS)})
    [result] = FactCheck(judge=scripted_factcheck_judge()).evaluate([case])
    assert result.details["tool_calls"][0]["tool"] == "context"
    assert result.details["claims"][0]["evidence"][0]["id"] == "context:fees.md#0"
    [bare] = FactCheck(judge=scripted_factcheck_judge()).evaluate([CASE])
    assert bare.outcomes["factcheck_score"].status is Status.SKIPPED
    assert "no evidence source" in (bare.outcomes["factcheck_score"].reason or "")


def test_web_search_callable_is_a_tool() -> None:
    queries: list[str] = []

    def web(query: str) -> list[dict[str, str]]:
        queries.append(query)
        return [{"url": "https://bank.example/branches", "snippet": "The bank has 40 branches."}]

    def pick_web(request: JudgeRequest) -> str:
        v = request.variables
        if not v["n_searches"]:
            return json.dumps({"action": "search", "tool": "web", "query": v["claim"]})
        return json.dumps({"action": "verdict", "verdict": "supported",
                           "evidence": [e["id"] for e in v["evidence"]], "reason": "web"})

    judge, _ = judge_with(("factcheck_step", pick_web))
    evaluator = FactCheck(judge=judge, corpus=CORPUS, web_search=web)
    [result] = evaluator.evaluate([CASE])
    assert len(queries) == 3 and result.outcomes["factcheck_score"].value == 1.0
    assert 'web("The bank has 40 branches.") -> [web:https://bank.example/branches]' in (
        result.explanation or "")
    assert result.details["claims"][2]["evidence"][0]["source"] == \
        "https://bank.example/branches"


def test_web_search_by_import_string(tmp_path: Path) -> None:
    (tmp_path / "mysearch.py").write_text(
        "def search(query, k):\n    return [f'result for {query}'] * k\n")
    evaluator = FactCheck(judge=scripted_factcheck_judge(),
                          web_search=f"{tmp_path / 'mysearch.py'}:search")
    [result] = evaluator.evaluate([CASE])
    assert result.details["tool_calls"][0]["tool"] == "web"
    assert len(result.details["tool_calls"][0]["results"]) == 3


def test_step_limit_forces_a_verdict_without_search() -> None:
    judge, backend = judge_with()
    [result] = FactCheck(judge=judge, corpus=CORPUS, max_steps=1).evaluate([CASE])
    assert result.details["tool_calls"] == []
    assert {r.task for r in backend.requests} == {"factcheck_claims", "factcheck_verdict"}
    assert result.outcomes["factcheck_coverage"].value == 1.0
    assert result.outcomes["factcheck_score"].value == 0.0  # nothing found, nothing supported
    assert result.explanation.endswith("no tool calls")  # type: ignore[union-attr]


def test_tool_call_limit_refuses_and_records_extra_searches() -> None:
    [result] = FactCheck(judge=scripted_factcheck_judge(), corpus=CORPUS,
                         max_tool_calls=1).evaluate([CASE])
    calls = result.details["tool_calls"]
    assert len(calls) == 3  # all three claims asked in the same round
    assert calls[0]["error"] is None
    assert [c["error"] for c in calls[1:]] == ["refused: the tool-call limit (1) is reached"] * 2
    assert "error: refused: the tool-call limit (1)" in (result.explanation or "")
    assert result.outcomes["factcheck_coverage"].value == 1.0  # verdicts still given


def test_max_claims_caps_the_claims() -> None:
    [result] = FactCheck(judge=scripted_factcheck_judge(), corpus=CORPUS,
                         max_claims=2).evaluate([CASE])
    assert len(result.details["claims"]) == 2


def test_cost_limit_stops_claims_explicitly() -> None:
    judge, _ = judge_with(prices={"scripted": (1000.0, 1000.0)})
    [result] = FactCheck(judge=judge, corpus=CORPUS, max_cost_usd=1e-6).evaluate([CASE])
    outcome = result.outcomes["factcheck_score"]
    assert outcome.status is Status.SKIPPED
    assert "cost limit $1e-06 reached" in (outcome.reason or "")
    assert {c["status"] for c in result.details["claims"]} == {"stopped"}
    assert result.details["cost_usd"] > 1e-6 and result.details["judge"]["calls"] == 1


def test_parse_failures_are_explicit_and_keep_the_trail() -> None:
    judge, backend = judge_with(("factcheck_verdict", "I think it is true"),
                                ("factcheck_step", lambda r: json.dumps(
                                    {"action": "search", "tool": "corpus", "query": "fee"})
                                 if not r.variables["n_searches"] else "maybe?"))
    evaluator = FactCheck(judge=judge, corpus=CORPUS)
    [result] = evaluator.evaluate([CASE])
    for outcome in result.outcomes.values():
        assert outcome.status is Status.ERROR
        assert "could not be parsed (after one retry)" in (outcome.reason or "")
    assert result.details["parse_failure"] is True
    assert result.details["judge"]["parse_failures"] >= 1
    assert len(result.details["tool_calls"]) == 3  # the searches made before failing
    assert 'corpus("fee")' in (result.explanation or "")
    assert (result.explanation or "").startswith("judge step failed (judge output could not")
    assert any(r.task == "factcheck_step:retry" for r in backend.requests)
    assert evaluator.stats_.parse_failures >= 1


def test_unknown_tool_is_a_parse_error_that_is_retried() -> None:
    answers = iter([json.dumps({"action": "search", "tool": "google", "query": "x"})])

    def step(request: JudgeRequest) -> str:
        if request.task == "factcheck_step":
            return next(answers, json.dumps({"action": "verdict",
                                             "verdict": "not_enough_evidence"}))
        return json.dumps({"action": "verdict", "verdict": "supported", "evidence": ["zzz"]})

    judge, backend = judge_with(("factcheck_step", step))
    case = CASE.model_copy(update={"actual_answer": "The fee is 12 euros."})
    [result] = FactCheck(judge=judge, corpus=CORPUS).evaluate([case])
    retry = next(r for r in backend.requests if r.task == "factcheck_step:retry")
    assert "tool must be one of ['corpus']; got 'google'" in retry.prompt_text
    assert result.outcomes["factcheck_score"].value == 1.0
    assert result.details["claims"][0]["unknown_evidence_ids"] == ["zzz"]
    assert result.details["judge"]["parse_retries"] == 1


def test_no_claims_and_empty_answers_are_skipped() -> None:
    judge, _ = judge_with(("factcheck_claims", '{"claims": []}'))
    [none] = FactCheck(judge=judge, corpus=CORPUS).evaluate([CASE])
    assert "no checkable claims" in (none.outcomes["factcheck_score"].reason or "")
    empty = CASE.model_copy(update={"actual_answer": "  "})
    [skipped] = FactCheck(judge=scripted_factcheck_judge(), corpus=CORPUS).evaluate([empty])
    assert skipped.outcomes["factcheck_score"].reason == "the answer is empty"


def test_max_rows_guard_skips_the_rest_with_a_reason() -> None:
    cases = [CASE.model_copy(update={"id": str(i)}) for i in range(5)]
    evaluator = FactCheck(judge=scripted_factcheck_judge(), corpus=CORPUS, max_rows=3)
    first = [*evaluator.evaluate(cases[:2]), *evaluator.evaluate(cases[2:])]  # two batches
    statuses = [r.outcomes["factcheck_score"].status for r in first]
    assert statuses == [Status.OK] * 3 + [Status.SKIPPED] * 2
    assert "max_rows=3 reached" in (first[-1].outcomes["factcheck_score"].reason or "")
    unlimited = FactCheck(judge=scripted_factcheck_judge(), corpus=CORPUS, max_rows=None)
    assert all(r.outcomes["factcheck_score"].status is Status.OK
               for r in unlimited.evaluate(cases))


def test_batch_of_cases_runs_round_by_round() -> None:
    judge, backend = judge_with()
    other = TestCase(id="q2", question="When?", actual_answer="The bank was founded in 1998.")
    results = FactCheck(judge=judge, corpus=CORPUS).evaluate([CASE, other])
    assert results[1].outcomes["factcheck_score"].value == 1.0
    assert results[1].details["claims"][0]["evidence"][0]["id"] == "corpus:history.md#0"
    assert len(backend.requests) == 2 + 4 * 2


def test_parameters_are_validated() -> None:
    for bad in ({"search": "tfidf"}, {"max_steps": 0}, {"max_rows": 0}, {"k": 0},
                {"max_cost_usd": -1}, {"web_search": 3}, {"max_tool_calls": -1}):
        with pytest.raises(InvalidInputError):
            FactCheck(**bad)


def test_conformance_and_pickling() -> None:
    evaluator = FactCheck(judge=scripted_factcheck_judge(), corpus=CORPUS)
    check_evaluator(evaluator, [CASE, TestCase(id="x", actual_answer="Cards are free.")])
    clone = pickle.loads(pickle.dumps(evaluator))
    assert clone.evaluate([CASE])[0].outcomes["factcheck_score"].value == pytest.approx(1 / 3)
    spec = json.loads(json.dumps(evaluator.spec()))
    assert spec["params"]["max_rows"] == 200 and spec["judge"]["model"] == "scripted"
    assert spec["params"]["corpus"]["passages"] == 3  # summarised, not copied
    assert len(spec["params"]["corpus"]["sha256"]) == 64


def test_dry_run_estimate_plans_every_step(tmp_path: Path) -> None:
    evaluator = FactCheck(corpus=CORPUS, max_claims=2)
    estimate = estimate_judge_cost([evaluator], [CASE], judge="openai:gpt-4o-mini")
    assert estimate.calls == 1 + 2 * 2  # extraction + (search, verdict) per claim
    assert estimate.cost_usd is not None and estimate.cost_usd > 0
    with_context = CASE.model_copy(update={"retrieved_context": list(CORPUS.values())})
    suite = write_suite([with_context, with_context.model_copy(update={"id": "q2"})],
                        tmp_path / "s.jsonl")  # no corpus on the CLI: the cases' context is searched
    result = CliRunner().invoke(cli, ["judge-estimate", str(suite), "-e", "fact_check",
                                      "--param", "fact_check.max_steps=1",
                                      "--judge", "openai:gpt-4o-mini", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["per_evaluator"]["fact_check"]["calls"] == 2 * (1 + 3)


def test_estimate_counts_only_rows_the_evaluator_would_check(tmp_path: Path) -> None:
    """The max_rows guard and pre-call skips (empty answer, no evidence) bound the estimate,
    and the CLI says how many rows the guard leaves out."""
    context = list(CORPUS.values())
    cases = [CASE.model_copy(update={"id": f"q{i}", "retrieved_context": context})
             for i in range(5)]
    cases.insert(1, CASE.model_copy(update={"id": "blank", "actual_answer": " ",
                                            "retrieved_context": context}))
    cases.append(CASE.model_copy(update={"id": "no-evidence"}))
    evaluator = FactCheck(max_claims=2, max_rows=3)
    estimate = estimate_judge_cost([evaluator], cases, judge="openai:gpt-4o-mini")
    part = estimate.per_evaluator["fact_check"]
    assert (estimate.rows, estimate.rows_over_limit) == (3, 2)
    assert (part["rows"], part["rows_over_limit"], part["row_limit"]) == (3, 2, 3)
    assert estimate.calls == 3 * (1 + 2 * 2)

    # the rows counted are the rows a real run sends to the judge
    ran = FactCheck(judge=scripted_factcheck_judge(), max_claims=2, max_rows=3)
    results = [*ran.evaluate(cases[:3]), *ran.evaluate(cases[3:])]  # the guard spans batches
    reasons = [r.outcomes["factcheck_score"].reason or "" for r in results]
    assert sum("max_rows=3 reached" in r for r in reasons) == estimate.rows_over_limit
    assert reasons[1] == "the answer is empty" and reasons[-1].startswith("no evidence source")
    assert ran.rows_left() == 0
    assert estimate_judge_cost([ran], cases, judge="openai:gpt-4o-mini").rows == 0

    suite = write_suite(cases, tmp_path / "s.jsonl")
    args = ["judge-estimate", str(suite), "-e", "fact_check", "--param", "fact_check.max_rows=3",
            "--param", "fact_check.max_claims=2", "--judge", "openai:gpt-4o-mini"]
    data = json.loads(CliRunner().invoke(cli, [*args, "--json"]).output)
    assert data["calls"] == estimate.calls and data["rows_over_limit"] == 2
    text = CliRunner().invoke(cli, args)
    assert text.exit_code == 0, text.output
    assert "fact_check: 3 rows, 15 calls" in text.output
    assert "row limit 3: 2 more rows would be skipped and are not counted" in text.output
