"""Judge faults: one hostile or broken judge reply fails its own case, never its batch.

A real OpenAI-compatible server on loopback answers each request by the case it is about: most
replies are valid, a few are hostile (100,000 nested brackets, a list where an object is due, a
score that is text, NaN or out of range, statements that are not strings, a non-JSON essay, an
HTTP error). Every judge evaluator runs whole batches; the valid cases must keep their scores and
each broken one must be an ``error`` with a reason (never a traceback, never a silent value).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from assay import TestCase, evaluate
from judge._servers import FakeOpenAI  # tests/judge: the loopback OpenAI-compatible server

HOSTILE = {
    "deep": "[" * 100_000 + "]" * 100_000,
    "list": '[{"score": 1.0}]',
    "text-score": '{"score": "very good", "reason": "x"}',
    "nan-score": '{"score": NaN, "reason": "x"}',
    "huge-score": '{"score": 1e400, "reason": "x"}',
    "statements-not-strings": '{"statements": [{"a": 1}, 7, null]}',
    "verdicts-odd": '{"verdicts": "all fine"}',
    "essay": "I think the answer is quite good overall. " * 200,
    "null": "null",
}


def _reply(payload: dict[str, Any]) -> str:
    prompt = json.dumps(payload["messages"])
    for marker, text in HOSTILE.items():
        if f"CASE-{marker} " in prompt:
            return text
    if "statements" in prompt and "verdict" not in prompt:
        return '{"statements": ["The fee is 4.50 euros."]}'
    if "verdict" in prompt:
        return '{"verdicts": [{"id": 1, "verdict": 1, "reason": "stated"}]}'
    return '{"score": 0.9, "reason": "equivalent"}'


def _cases() -> list[TestCase]:
    names = ["good-1", *HOSTILE, "good-2", "good-3"]
    return [TestCase(id=name, model="m", question=f"CASE-{name} asks: what is the fee?",
                     expected_answer=f"CASE-{name} costs 4.50 euros",
                     actual_answer=f"CASE-{name} says the fee is 4.50.",
                     retrieved_context=[f"CASE-{name} pays a fee of 4.50 euros."]) for name in names]


@pytest.mark.parametrize("evaluator", ["judge_qa_accuracy", "judge_faithfulness",
                                       "judge_answer_correctness", "judge_context_recall"])
def test_one_bad_reply_fails_only_its_own_case(evaluator: str) -> None:
    with FakeOpenAI(_reply) as server:
        judge = {"provider": "openai_compat", "model": "m", "base_url": f"{server.url}/v1",
                 "max_retries": 0, "concurrency": 4}
        params: dict[str, Any] = {"judge": judge}
        if evaluator == "judge_answer_correctness":
            params["weights"] = [1, 0]
        run = evaluate(_cases(), [evaluator], params={evaluator: params}, batch_size=64)
    rows = run.results[run.results["primary"]]
    status = dict(zip(rows["case_id"], rows["status"], strict=True))
    assert "Traceback" not in " ".join(rows["reason"].dropna())
    good = [status[g] for g in ("good-1", "good-2", "good-3")]
    assert good == ["ok"] * 3, rows[["case_id", "status", "reason"]].to_string()
    for name in HOSTILE:  # a hostile reply is never scored: an error naming why
        row = rows[rows["case_id"] == name].iloc[0]
        assert row["status"] == "error" and row["reason"], (name, row.to_dict())
