"""Every judge evaluator through the real HTTP path: llama-cpp-python's OpenAI-compatible server
on loopback serving SmolLM2-135M-Instruct, behind a proxy that injects 429 and 500 responses.

Set ``ASSAY_JUDGE_IT_ONLY=judge_sexism,judge_prompt`` to run a subset on a slow machine.
Checks that the small model's malformed outputs become explicit, counted parse failures, that
injected faults are retried, and that a rerun is served entirely from the cache (the proxy sees no
request). Slow: the server starts in a few seconds, the whole test takes a few minutes on 2 cores.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assay.backends.embed.fake import FakeEmbedder
from assay.backends.llm import Judge, OpenAICompatBackend
from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, Status
from assay.evaluators.judge_base import EmbeddingJudgeEvaluator, JudgeEvaluator
from assay.evaluators.registry import evaluator_class, evaluator_names

from ._servers import FaultProxy

pytestmark = pytest.mark.slow

BUILTIN = (
    "judge_answer_correctness", "judge_answer_relevancy", "judge_completeness",
    "judge_contact_leakage", "judge_context_precision", "judge_context_recall",
    "judge_context_relevancy", "judge_faithfulness", "judge_language_mismatch",
    "judge_prompt", "judge_qa_accuracy", "judge_ragas", "judge_sexism", "judge_stereotypes",
    "judge_summarization", "judge_tone",
)


#: Two short cases, so that a 135M model on a shared CPU gets through them in minutes.
CASES = [
    TestCase(id="fee", model="bot", question="What is the monthly fee?",
             expected_answer="The fee is 12 euros a month.",
             retrieved_context=["The account costs 12 euros a month.", "Cards are free."],
             actual_answer="The monthly fee is 12 euros."),
    TestCase(id="close", model="bot", question="Can I close the account online?",
             expected_answer="Yes, online and free of charge.",
             retrieved_context=["You can close the account online at no cost."],
             actual_answer="Yes, you can close it online for free."),
]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp", reason="needs the local-llm extra (llama-cpp-python)")
    from assay.backends.llm.local_server import llama_server, smollm2_gguf

    smollm2_gguf(verify=True)  # sha256-checked before use
    log = tmp_path_factory.mktemp("llama") / "server.log"
    with llama_server(n_ctx=2048, n_threads=2, log_path=log) as url:
        yield url


def selected() -> tuple[str, ...]:
    """Every built-in judge evaluator, or the comma-separated subset in
    ``ASSAY_JUDGE_IT_ONLY`` (for a quick check on a loaded machine; CI runs them all)."""
    only = [n.strip() for n in os.environ.get("ASSAY_JUDGE_IT_ONLY", "").split(",") if n.strip()]
    return tuple(n for n in BUILTIN if n in only) if only else BUILTIN


def make_evaluators(judge: Judge) -> list[JudgeEvaluator]:
    out: list[JudgeEvaluator] = []
    for name in selected():
        cls: Any = evaluator_class(name)
        if issubclass(cls, EmbeddingJudgeEvaluator):
            out.append(cls(judge, embedder=FakeEmbedder()))
        elif name == "judge_prompt":
            out.append(cls(judge, template="Is this ANSWER polite?\nANSWER: {answer}"))
        else:
            out.append(cls(judge))
    return out


def make_judge(url: str, cache: Path) -> Judge:
    backend = OpenAICompatBackend("smollm2-135m-instruct", url, temperature=0.0, seed=0,
                                  max_tokens=48, structured="json_object")
    return Judge(backend, concurrency=2, cache=cache, backoff_base=0.05, backoff_max=0.2,
                 timeout=600, prices={"smollm2": (0.0, 0.0)})


def run_all(evaluators: list[JudgeEvaluator], cases: list[Any]) -> dict[str, list[Any]]:
    return {e.name: e.evaluate(cases) for e in evaluators}


def test_every_judge_evaluator_over_real_http(server_url: str, tmp_path: Path) -> None:
    assert set(BUILTIN) <= set(evaluator_names())
    cases = CASES
    upstream = server_url.removesuffix("/v1")
    with FaultProxy(upstream, faults={1: 429, 3: 500, 6: 503}) as proxy:
        judge = make_judge(f"{proxy.url}/v1", tmp_path / "judge.sqlite")
        evaluators = make_evaluators(judge)
        first = run_all(evaluators, cases)
        sent = proxy.count

        # injected faults were retried; no request was lost to them
        assert proxy.injected == [429, 500, 503]
        assert judge.stats.retries >= 3 and judge.stats.failures == 0
        assert proxy.forwarded == sent - 3

        # every outcome is a finite in-range value or an explained skip / error; never NaN
        parse_flagged = 0
        for evaluator in evaluators:
            for result in first[evaluator.name]:
                for spec in evaluator.metrics:
                    outcome = result.outcomes[spec.name]
                    if outcome.status is Status.OK:
                        assert outcome.value is not None and math.isfinite(outcome.value)
                        assert spec.range[0] <= outcome.value <= spec.range[1]
                    else:
                        assert outcome.reason
                if result.details.get("parse_failure"):
                    parse_flagged += 1
                    for outcome in result.outcomes.values():
                        assert outcome.status is Status.ERROR
                        reason = outcome.reason or ""
                        assert (
                            "could not be parsed (after one retry)" in reason
                            or "cut at the token limit" in reason
                        )
            if evaluator.stats_.parsed:
                assert evaluator.stats_.parse_failure_rate is not None

        # the 135M model's malformed replies are counted as parse failures, case by case
        own = [e for e in evaluators if e.name != "judge_ragas"]
        total_failures = sum(e.stats_.parse_failures for e in own)
        assert total_failures >= parse_flagged > 0
        assert judge.stats.parse_failures >= total_failures
        summary = {e.name: e.stats_.to_dict()["parse_failure_rate"] for e in evaluators}
        print("parse-failure rate per evaluator:", summary)

        # a rerun with a fresh client on the same cache sends nothing and gives the same results
        rerun_judge = make_judge(f"{proxy.url}/v1", tmp_path / "judge.sqlite")
        second = run_all(make_evaluators(rerun_judge), cases)
        assert proxy.count == sent
        assert rerun_judge.stats.calls == 0 and rerun_judge.stats.cache_hits > 0
        for name, results in first.items():
            assert [r.outcomes for r in second[name]] == [r.outcomes for r in results], name


def test_spec_of_a_local_judge_records_its_settings(server_url: str) -> None:
    evaluator: Evaluator = evaluator_class("judge_sexism")(
        {"base_url": server_url, "model": "smollm2-135m-instruct", "seed": 11, "max_tokens": 32,
         "timeout": 600}
    )
    spec = evaluator.spec()
    assert spec["judge"]["base_url"] == server_url and spec["judge"]["seed"] == 11
    [result] = evaluator.evaluate(CASES[:1])
    outcome = result.outcomes["judge_sexism"]
    assert outcome.status in (Status.OK, Status.ERROR)
    assert result.details["judge"]["calls"] >= 1
