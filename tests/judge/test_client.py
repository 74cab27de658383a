"""The Judge client: retries, backoff, cache, deduplication, concurrency, cost, JSON repair."""

from __future__ import annotations

import pickle
import threading
import time
from typing import Any

import pytest

from assay.backends.llm import (
    CallableBackend,
    JsonTask,
    Judge,
    JudgeRequest,
    PriceTable,
    RateLimiter,
    TransientBackendError,
    Usage,
    make_judge,
)
from assay.errors import BackendError, InvalidInputError, JudgeParseError


def req(text: str, schema: dict[str, Any] | None = None) -> JudgeRequest:
    return JudgeRequest(messages=({"role": "user", "content": text},), json_schema=schema,
                        task="t")


class Flaky:
    """Fails with a transient error ``fails`` times, then answers ``reply``."""

    def __init__(self, fails: int, reply: str = '{"ok": true}', retry_after: float | None = None):
        self.fails, self.reply, self.retry_after = fails, reply, retry_after
        self.calls = 0

    def __call__(self, messages: list[dict[str, str]]) -> str:
        self.calls += 1
        if self.calls <= self.fails:
            raise TransientBackendError("HTTP 429", retry_after=self.retry_after)
        return self.reply


def test_transient_failures_are_retried_with_jittered_exponential_backoff() -> None:
    waits: list[float] = []
    fn = Flaky(fails=3)
    judge = Judge(CallableBackend(fn), max_retries=4, backoff_base=1.0, backoff_max=3.0,
                  sleep=waits.append)
    [reply] = judge.complete([req("x")])
    assert not isinstance(reply, BackendError) and reply.attempts == 4
    assert fn.calls == 4 and len(waits) == 3
    for retry, wait in enumerate(waits):
        assert 0.0 <= wait <= min(3.0, 2**retry)
    assert len(set(waits)) == 3  # jittered, not lockstep
    assert judge.stats.retries == 3 and judge.stats.calls == 4


def test_retry_after_is_honoured_and_retries_are_bounded() -> None:
    waits: list[float] = []
    fn = Flaky(fails=10, retry_after=7.0)
    judge = Judge(CallableBackend(fn), max_retries=2, backoff_base=0.1, sleep=waits.append)
    [reply] = judge.complete([req("x")])
    assert isinstance(reply, BackendError) and "gave up after 2 retries" in str(reply)
    assert fn.calls == 3 and waits == [7.0, 7.0]
    assert judge.stats.failures == 1


def test_permanent_errors_are_not_retried() -> None:
    calls = []

    def broken(messages: list[dict[str, str]]) -> str:
        calls.append(1)
        raise BackendError("HTTP 401 unauthorised")

    judge = Judge(CallableBackend(broken), sleep=lambda s: None)
    [reply] = judge.complete([req("x")])
    assert isinstance(reply, BackendError) and "401" in str(reply)
    assert len(calls) == 1


def test_cache_makes_a_rerun_free(tmp_path: Any) -> None:
    fn = Flaky(fails=0, reply='{"score": 1}')
    prices = {"paid": (1000.0, 1000.0)}
    judge = Judge(CallableBackend(fn, model="paid"), cache=tmp_path / "c.sqlite", prices=prices)
    first = judge.complete([req("a"), req("b")])
    assert fn.calls == 2 and all(not r.cached for r in first)  # type: ignore[union-attr]
    assert judge.stats.cost_usd > 0
    spent = judge.stats.cost_usd
    # a fresh client on the same file (a rerun) sends nothing and costs nothing
    again = Judge(CallableBackend(fn, model="paid"), cache=tmp_path / "c.sqlite", prices=prices)
    second = again.complete([req("a"), req("b")])
    assert fn.calls == 2
    assert [r.text for r in second] == [r.text for r in first]  # type: ignore[union-attr]
    assert all(r.cached and again.cost(r) == 0.0 for r in second)  # type: ignore[union-attr]
    assert again.stats.cache_hits == 2 and again.stats.cost_usd == 0.0 and spent > 0


def test_cache_key_depends_on_settings(tmp_path: Any) -> None:
    fn = Flaky(fails=0)
    a = Judge(CallableBackend(fn, settings={"temperature": 0.0}), cache=tmp_path / "c.sqlite")
    b = Judge(CallableBackend(fn, settings={"temperature": 1.0}), cache=tmp_path / "c.sqlite")
    a.complete([req("x")])
    b.complete([req("x")])
    assert fn.calls == 2


def test_identical_requests_in_a_batch_are_sent_once() -> None:
    fn = Flaky(fails=0)
    judge = Judge(CallableBackend(fn))
    replies = judge.complete([req("same")] * 5 + [req("other")])
    assert fn.calls == 2 and len(replies) == 6
    assert judge.stats.requests == 6


def test_concurrency_limit_is_respected() -> None:
    lock = threading.Lock()
    state = {"now": 0, "peak": 0}

    def slow(messages: list[dict[str, str]]) -> str:
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return "{}"

    judge = Judge(CallableBackend(slow), concurrency=3)
    started = time.perf_counter()
    judge.complete([req(str(i)) for i in range(12)])
    elapsed = time.perf_counter() - started
    assert state["peak"] == 3
    assert elapsed < 12 * 0.05  # overlapped, not serial


def test_rate_limiter_spaces_requests_and_tokens() -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    limiter = RateLimiter(tokens_per_minute=600, clock=lambda: now[0], sleep=sleep)
    for _ in range(3):
        limiter.acquire(300)  # 600 tokens/min: the third 300-token request waits 30 s
    assert now[0] == pytest.approx(30.0)
    limiter.settle(reserved=300, actual=600)  # it really used 600: the next waits longer
    limiter.acquire(300)
    assert now[0] == pytest.approx(90.0)


def test_costs_use_the_price_table_and_unknown_prices_stay_unknown() -> None:
    usage_fn = lambda messages: ("{}", Usage(1_000_000, 1_000_000))  # noqa: E731
    judge = Judge(CallableBackend(usage_fn, model="gpt-4o-mini-2024-07-18"))
    [reply] = judge.complete([req("x")])
    assert judge.cost(reply) == pytest.approx(0.15 + 0.60)  # type: ignore[arg-type]
    unknown = Judge(CallableBackend(usage_fn, model="my-local-model"))
    [reply] = unknown.complete([req("x")])
    assert unknown.cost(reply) is None  # type: ignore[arg-type]
    assert unknown.stats.unpriced_calls == 1 and unknown.stats.to_dict()["cost_known"] is False
    assert PriceTable({"my-local-model": (0, 0)}).cost("my-local-model", Usage(5, 5)) == 0.0


SCHEMA = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}


def test_json_is_repaired_without_a_retry() -> None:
    fn = Flaky(fails=0, reply="Here you go:\n```json\n{'score': 4,}\n```")
    judge = Judge(CallableBackend(fn))
    [outcome] = judge.complete_json([JsonTask(req("x", SCHEMA), lambda v: v["score"])])
    assert outcome.ok and outcome.value == 4 and not outcome.parse_retried
    assert fn.calls == 1


def test_parse_error_is_shown_to_the_judge_once() -> None:
    seen: list[list[dict[str, str]]] = []

    def fn(messages: list[dict[str, str]]) -> str:
        seen.append(messages)
        return '{"score": "high"}' if len(seen) == 1 else '{"score": 0.5}'

    judge = Judge(CallableBackend(fn))
    [outcome] = judge.complete_json([JsonTask(req("x", SCHEMA), lambda v: v["score"])])
    assert outcome.ok and outcome.value == 0.5 and outcome.parse_retried
    retry = seen[1]
    assert retry[-2] == {"role": "assistant", "content": '{"score": "high"}'}
    assert "'high' is not of type 'number'" in retry[-1]["content"]


def test_persistent_garbage_is_an_explicit_parse_failure() -> None:
    judge = Judge(CallableBackend(lambda messages: "I think it is fine."))
    outcomes = judge.complete_json([JsonTask(req("x", SCHEMA)), JsonTask(req("y", SCHEMA))])
    assert all(not o.ok and o.parse_failure for o in outcomes)
    assert "could not be parsed (after one retry): no JSON object" in (outcomes[0].error or "")
    assert judge.stats.parse_failures == 2 and judge.stats.parse_failure_rate == 1.0
    assert len(outcomes[0].responses) == 2  # both replies are accounted for


def test_interpret_errors_count_as_parse_errors() -> None:
    def interpret(value: Any) -> Any:
        raise JudgeParseError("expected 3 verdicts")

    judge = Judge(CallableBackend(lambda messages: '{"score": 1}'))
    [outcome] = judge.complete_json([JsonTask(req("x", SCHEMA), interpret)])
    assert outcome.parse_failure and "expected 3 verdicts" in (outcome.error or "")


def test_backend_failures_are_not_parse_failures() -> None:
    judge = Judge(CallableBackend(Flaky(fails=99)), max_retries=0)
    [outcome] = judge.complete_json([JsonTask(req("x", SCHEMA))])
    assert not outcome.ok and not outcome.parse_failure
    assert (outcome.error or "").startswith("judge call failed")


def test_judge_pickles_without_its_runtime_state(tmp_path: Any) -> None:
    judge = make_judge({"provider": "ollama", "model": "m", "cache": str(tmp_path / "c.sqlite"),
                        "requests_per_minute": 30})
    clone = pickle.loads(pickle.dumps(judge))
    assert clone.describe() == judge.describe()
    assert clone.describe()["cache"] == str(tmp_path / "c.sqlite")


def test_make_judge_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    assert make_judge("openai:gpt-4o-mini").describe()["base_url"] == "https://api.openai.com/v1"
    spec = '{"base_url": "http://127.0.0.1:9/v1", "model": "x", "temperature": 0.3, "seed": 5}'
    described = make_judge(spec).describe()
    assert (described["temperature"], described["seed"], described["model"]) == (0.3, 5, "x")
    monkeypatch.setenv("ASSAY_JUDGE", "ollama:qwen")
    assert make_judge().model == "qwen"
    monkeypatch.delenv("ASSAY_JUDGE")
    with pytest.raises(BackendError, match="no judge configured"):
        make_judge()
    with pytest.raises(InvalidInputError, match="provider:model"):
        make_judge("gpt-4o")
    with pytest.raises(InvalidInputError, match="unknown judge setting"):
        make_judge({"model": "x", "base_url": "http://h", "tempreature": 0})
    with pytest.raises(InvalidInputError, match="concurrency"):
        make_judge({"model": "x", "base_url": "http://h", "concurrency": 0})


def test_an_excessive_retry_after_fails_at_once_instead_of_waiting() -> None:
    waits: list[float] = []
    fn = Flaky(fails=10, retry_after=86_400.0)
    judge = Judge(CallableBackend(fn), max_retries=4, sleep=waits.append)
    [reply] = judge.complete([req("x")])
    assert isinstance(reply, BackendError) and "asked to wait 86400 s" in str(reply)
    assert fn.calls == 1 and waits == []


def test_a_spec_is_built_once_and_each_caller_gets_its_own_counters(tmp_path: Any) -> None:
    from assay.backends.resolve import clear_loaded

    spec = {"provider": "ollama", "model": "m", "cache": str(tmp_path / "c.sqlite"),
            "requests_per_minute": 600}
    first = make_judge(spec)
    second = make_judge(dict(reversed(spec.items())))  # same settings, another key order
    assert second.backend is first.backend and second.cache is first.cache
    assert second._limiter is first._limiter  # one rate limit for the endpoint
    assert second.stats is not first.stats
    local = Judge(CallableBackend(lambda messages: '{"score": 1}', model="echo"))
    session = local.session()
    session.complete([req("x")])
    assert (session.stats.requests, local.stats.requests) == (1, 0)
    clear_loaded()
    assert make_judge(spec).backend is not first.backend


def test_client_settings_are_declared_once(tmp_path: Any) -> None:
    import inspect

    from assay.backends.llm.client import CLIENT_SETTINGS

    keyword = [p.name for p in inspect.signature(Judge).parameters.values()
               if p.kind is p.KEYWORD_ONLY and p.name != "sleep"]
    assert list(CLIENT_SETTINGS) == keyword
    values = {"concurrency": 3, "requests_per_minute": 60.0, "tokens_per_minute": 1e5,
              "max_retries": 2, "backoff_base": 0.25, "backoff_max": 5.0, "timeout": 9.0,
              "cache": str(tmp_path / "j.sqlite"), "prices": {"m": [1.0, 2.0]}, "seed": 11}
    judge = make_judge({"provider": "ollama", "model": "m", "seed": 5,
                        **{CLIENT_SETTINGS[k]: v for k, v in values.items()}})
    assert judge.seed == 11 and judge.backend.describe()["seed"] == 5  # seed_jitter vs seed
    assert (judge.concurrency, judge.max_retries, judge.timeout) == (3, 2, 9.0)
    assert set(judge.__getstate__()) == {"backend", *CLIENT_SETTINGS, "sleep"}
    clone = pickle.loads(pickle.dumps(judge))
    assert {k: getattr(clone, k) for k in ("concurrency", "seed", "backoff_base")} == {
        "concurrency": 3, "seed": 11, "backoff_base": 0.25}


def test_scripted_is_an_ordinary_judge_spec_answering_registered_tasks() -> None:
    from assay.agents.factcheck.claims import extract_claims
    from assay.corpus.chunking import Chunk
    from assay.generate.questions import key_facts_task

    judge = make_judge("scripted")
    chunk = Chunk("d#1", "d", "d.md", 0, 35, "The fee is 5 euros. Cards are free.", (0, 2))
    facts, claims = judge.complete_json([key_facts_task(chunk),
                                         extract_claims("Fee?", "It costs 12 euros.", 5)])
    assert facts.value == ["The fee is 5 euros.", "Cards are free."]
    assert claims.value == ["It costs 12 euros."]
    assert judge.model == "scripted" and judge.stats.cost_usd == 0.0
    assert judge.stats.unpriced_calls == 0


def test_a_json_string_spec_shares_the_judge_of_the_same_dict() -> None:
    as_dict = make_judge({"provider": "ollama", "model": "json-spec", "timeout": 7})
    as_text = make_judge('{"timeout": 7, "model": "json-spec", "provider": "ollama"}')
    assert as_text.backend is as_dict.backend and as_text.timeout == 7
    with pytest.raises(InvalidInputError, match="not valid JSON"):
        make_judge('{"model": ')
