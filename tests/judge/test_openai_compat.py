"""The OpenAI-compatible backend over real HTTP on loopback (a fake server and a fault proxy)."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from assay.backends.llm import JsonTask, Judge, JudgeRequest, OpenAICompatBackend
from assay.errors import BackendError, InvalidInputError

from ._servers import FakeOpenAI, FaultProxy

pytest.importorskip("httpx")

SCHEMA = {"type": "object", "properties": {"score": {"type": "number"}}, "required": ["score"]}


def req(text: str) -> JudgeRequest:
    return JudgeRequest(messages=({"role": "system", "content": "judge"},
                                  {"role": "user", "content": text}),
                        json_schema=SCHEMA, task="equivalence")


def test_payload_headers_and_usage(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_JUDGE_KEY", "sk-test-123")
    with FakeOpenAI(lambda payload: '{"score": 0.9}') as server:
        backend = OpenAICompatBackend("judge-model", f"{server.url}/v1", temperature=0.0, seed=42,
                                      max_tokens=64, structured="json_schema",
                                      api_key_env="TEST_JUDGE_KEY")
        reply = backend.complete(req("hello"), timeout=5)
    assert reply.text == '{"score": 0.9}'
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (11, 5)
    assert not reply.usage.estimated and reply.finish_reason == "stop"
    [payload] = server.payloads
    assert payload["model"] == "judge-model" and payload["temperature"] == 0.0
    assert payload["seed"] == 42 and payload["max_tokens"] == 64
    assert payload["messages"][1] == {"role": "user", "content": "hello"}
    assert payload["response_format"]["type"] == "json_schema"
    assert payload["response_format"]["json_schema"]["schema"] == SCHEMA
    assert server.headers[0]["Authorization"] == "Bearer sk-test-123"
    assert server.paths == ["/v1/chat/completions"]
    # the key is never recorded
    assert "sk-test" not in json.dumps(backend.describe()) + repr(backend)


def test_azure_urls_and_header(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZ_KEY", "az-secret")
    with FakeOpenAI(lambda payload: '{"score": 1}') as server:
        backend = OpenAICompatBackend("my-deploy", server.url, api_version="2024-06-01",
                                      api_key_env="AZ_KEY", structured="json_object")
        backend.complete(req("x"), timeout=5)
    assert server.paths == ["/openai/deployments/my-deploy/chat/completions?api-version=2024-06-01"]
    assert server.headers[0]["api-key"] == "az-secret"
    assert server.payloads[0]["response_format"] == {"type": "json_object"}


def test_injected_429_and_500_are_retried_through_the_proxy() -> None:
    waits: list[float] = []
    with FakeOpenAI(lambda payload: '{"score": 1}') as server, \
            FaultProxy(server.url, faults={1: 429, 2: 500, 4: 503}) as proxy:
        judge = Judge(OpenAICompatBackend("m", f"{proxy.url}/v1"), concurrency=1,
                      sleep=waits.append, backoff_base=0.01)
        outcomes = judge.complete_json([JsonTask(req("a")), JsonTask(req("b"))])
    assert all(o.ok for o in outcomes)
    assert proxy.injected == [429, 500, 503] and proxy.forwarded == 2
    assert judge.stats.retries == 3 and judge.stats.calls == 5
    assert len(server.payloads) == 2


def test_client_errors_are_not_retried() -> None:
    with FakeOpenAI(lambda payload: "", status=400) as server:
        judge = Judge(OpenAICompatBackend("m", f"{server.url}/v1"), sleep=lambda s: None)
        [reply] = judge.complete([req("x")])
    assert isinstance(reply, BackendError) and "HTTP 400" in str(reply)
    assert len(server.payloads) == 1


def test_timeouts_are_transient() -> None:
    with FakeOpenAI(lambda payload: '{"score": 1}', delay=1.0) as server:
        judge = Judge(OpenAICompatBackend("m", f"{server.url}/v1"), timeout=0.2, max_retries=1,
                      sleep=lambda s: None)
        [reply] = judge.complete([req("x")])
    assert isinstance(reply, BackendError) and "timeout" in str(reply)
    assert judge.stats.retries == 1


def test_unreachable_server_is_a_transient_error_after_retries() -> None:
    judge = Judge(OpenAICompatBackend("m", "http://127.0.0.1:9/v1"), max_retries=1,
                  sleep=lambda s: None)
    [reply] = judge.complete([req("x")])
    assert isinstance(reply, BackendError) and "connection error" in str(reply)


def test_backend_pickles_and_validates() -> None:
    backend = OpenAICompatBackend("m", "http://127.0.0.1:9/v1")
    backend._http()
    clone: Any = pickle.loads(pickle.dumps(backend))
    assert clone.describe() == backend.describe() and clone._client is None
    with pytest.raises(InvalidInputError, match="structured"):
        OpenAICompatBackend("m", structured="xml")
    with pytest.raises(InvalidInputError, match="base_url"):
        OpenAICompatBackend("m", base_url="ftp://x")


def test_a_non_text_reply_fails_only_its_own_case() -> None:
    """One reply whose content is an int or a dict must not lose the batch's other scores."""

    def reply(payload: dict[str, Any]) -> Any:
        text = payload["messages"][1]["content"]
        return {"int": 7, "dict": {"score": 1}}.get(text, '{"score": 0.5}')

    with FakeOpenAI(reply) as server:
        judge = Judge(OpenAICompatBackend("m", f"{server.url}/v1"), max_retries=0)
        tasks = [JsonTask(req(t), lambda v: v["score"]) for t in ("a", "int", "b", "dict")]
        outcomes = judge.complete_json(tasks)
    assert [o.value for o in outcomes] == [0.5, None, 0.5, None]
    assert "not text: int" in (outcomes[1].error or "")
    assert "not text: dict" in (outcomes[3].error or "")


def test_a_reply_cut_at_the_token_limit_is_a_parse_failure_not_a_score() -> None:
    def finish(payload: dict[str, Any]) -> str:
        return "length" if payload["messages"][1]["content"] == "long" else "stop"

    # the truncated reply would parse (lenient repair closes the brace) — it must not be scored
    with FakeOpenAI(lambda payload: '{"score": 0.9', finish_reason=finish) as server:
        judge = Judge(OpenAICompatBackend("m", f"{server.url}/v1"), max_retries=0)
        outcomes = judge.complete_json(
            [JsonTask(req(t), lambda v: v["score"]) for t in ("long", "short")]
        )
    assert outcomes[0].value is None and outcomes[0].parse_failure
    assert "finish_reason: length" in (outcomes[0].error or "")
    assert outcomes[1].value == 0.9
    assert judge.stats.parse_failures == 1


def test_json_schema_is_asked_by_default() -> None:
    with FakeOpenAI(lambda payload: '{"score": 1}') as server:
        backend = OpenAICompatBackend("local", f"{server.url}/v1")
        backend.complete(req("x"), timeout=5)
    assert server.payloads[0]["response_format"] == {
        "type": "json_schema", "json_schema": {"name": "equivalence", "schema": SCHEMA}}
    assert backend.describe()["structured"] == "json_schema"
    assert "structured_fallback" not in backend.describe()


@pytest.mark.parametrize("status", [400, 500])
def test_a_server_refusing_json_schema_is_asked_in_json_mode_from_then_on(
        status: int, caplog: pytest.LogCaptureFixture) -> None:
    """A server without JSON Schema support answers 400 (OpenAI's format) or 500 (llama-cpp-python
    0.3): the same request is sent again in JSON mode with the schema (which llama-cpp-python
    compiles to a grammar), later requests go that way directly, and the reason is logged once."""
    with FakeOpenAI(lambda payload: '{"score": 0.5}', refuse_schema=status) as server:
        judge = Judge(OpenAICompatBackend("local", f"{server.url}/v1"), max_retries=0,
                      concurrency=1)
        with caplog.at_level("WARNING", logger="assay.backends.llm.openai_compat"):
            outcomes = judge.complete_json(
                [JsonTask(req(t), lambda v: v["score"]) for t in ("a", "b", "c")])
    assert [o.value for o in outcomes] == [0.5, 0.5, 0.5]
    assert [p["response_format"]["type"] for p in server.payloads] == [
        "json_schema", "json_object", "json_object", "json_object"]
    assert all(p["response_format"]["schema"] == SCHEMA for p in server.payloads[1:])
    [record] = [r for r in caplog.records if "refused a JSON Schema" in r.getMessage()]
    assert f"HTTP {status}" in record.getMessage() and "json_schema is not supported" in (
        record.getMessage())
    assert f"HTTP {status}" in judge.backend.describe()["structured_fallback"]


def test_a_server_refusing_a_schema_in_json_mode_too_is_asked_in_plain_json_mode() -> None:
    with FakeOpenAI(lambda payload: '{"score": 0.5}', refuse_schema=400,
                    refuse_object_schema=True) as server:
        judge = Judge(OpenAICompatBackend("local", f"{server.url}/v1"), max_retries=0,
                      concurrency=1)
        outcomes = judge.complete_json([JsonTask(req(t), lambda v: v["score"]) for t in "ab"])
    assert [o.value for o in outcomes] == [0.5, 0.5]
    assert [p["response_format"] for p in server.payloads][1:] == [
        {"type": "json_object", "schema": SCHEMA}, {"type": "json_object"},
        {"type": "json_object"}]
    described = judge.backend.describe()
    assert "HTTP 400" in described["structured_fallback"]
    assert "HTTP 400" in described["structured_fallback_plain"]


def test_other_client_errors_are_not_retried_in_json_mode() -> None:
    with FakeOpenAI(lambda payload: '{"score": 1}', status=401) as server:
        backend = OpenAICompatBackend("local", f"{server.url}/v1")
        with pytest.raises(BackendError, match="HTTP 401"):
            backend.complete(req("x"), timeout=5)
    assert len(server.payloads) == 1 and backend.schema_refused is None
