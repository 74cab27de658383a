"""The :class:`Judge`: one backend plus everything generic about calling it.

Concurrency (a thread pool), client-side rate limits, retries with backoff and jitter, a
per-request timeout, the on-disk cache, token usage and cost, and robust JSON replies (lenient
repair, one retry that shows the judge its parse error, else an explicit parse failure).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.backends.llm.cache import JudgeCache, cache_key
from assay.backends.llm.jsonrepair import parse_json_lenient, validate_schema
from assay.backends.llm.pricing import PriceTable
from assay.backends.llm.protocol import (
    JudgeBackend,
    JudgeRequest,
    JudgeResponse,
    approx_tokens,
)
from assay.backends.llm.ratelimit import RateLimiter
from assay.backends.llm.retry import Backoff, RetryPolicy
from assay.backends.llm.stats import JudgeStats
from assay.errors import BackendError, JudgeParseError, TransientBackendError
from assay.params import check, check_int

logger = logging.getLogger(__name__)

#: The client settings: the keyword arguments of :class:`Judge` that a judge spec may set, each
#: with its key in a spec (a spec's ``seed`` is the backend's sampling seed, so the client's
#: jitter seed is ``seed_jitter``). A pickled judge keeps these, its backend and ``sleep``.
CLIENT_SETTINGS: dict[str, str] = {
    "concurrency": "concurrency",
    "requests_per_minute": "requests_per_minute",
    "tokens_per_minute": "tokens_per_minute",
    "max_retries": "max_retries",
    "backoff_base": "backoff_base",
    "backoff_max": "backoff_max",
    "timeout": "timeout",
    "cache": "cache",
    "prices": "prices",
    "seed": "seed_jitter",
}
_CORRECTION = (
    "Your previous reply could not be used: {error}. Reply again with only the JSON object "
    "in the requested format, and nothing else."
)


@dataclass(frozen=True)
class JsonTask:
    """A request whose reply must be JSON; ``interpret`` turns the parsed (and, when the request
    has a schema, validated) value into the evaluator's value or raises
    :class:`~assay.errors.JudgeParseError` / ``ValueError`` saying what is wrong."""

    request: JudgeRequest
    interpret: Callable[[Any], Any] = lambda value: value


@dataclass
class JsonOutcome:
    """What came of a :class:`JsonTask`: ``value`` when it worked, else ``error`` (and
    ``parse_failure`` when the judge answered but never in a usable format)."""

    value: Any = None
    error: str | None = None
    parse_failure: bool = False
    parse_retried: bool = False
    responses: list[JudgeResponse] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether a value was obtained."""
        return self.error is None


class Judge:
    """Calls a :class:`JudgeBackend` concurrently, politely and reproducibly.

    Args:
        backend: Where requests go.
        concurrency: Requests in flight at once.
        requests_per_minute: Client-side request rate limit (None: none).
        tokens_per_minute: Client-side token rate limit (None: none).
        max_retries: Retries of a transient failure (429, 5xx, timeout, dropped connection).
        backoff_base: Cap of the first retry's jittered wait, in seconds; doubles per retry.
        backoff_max: Largest cap of a retry's wait, in seconds.
        timeout: Per-request timeout in seconds.
        cache: SQLite cache file (or a :class:`JudgeCache`); None disables caching.
        prices: A :class:`PriceTable`, a mapping ``model -> (input, output)`` USD per million
            tokens, or a JSON file of one; None uses the dated defaults.
        seed: Seed of the jitter generator.
        sleep: Function used to wait (injectable for tests).

    Example:
        >>> from assay.backends.llm import CallableBackend
        >>> judge = Judge(CallableBackend(lambda messages: '{"score": 3}', model="echo"))
        >>> [r.text for r in judge.complete([JudgeRequest(({"role": "user", "content": "hi"},))])]
        ['{"score": 3}']
    """

    def __init__(
        self,
        backend: JudgeBackend,
        *,
        concurrency: int = 4,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        max_retries: int = 4,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        timeout: float = 60.0,
        cache: str | Path | JudgeCache | None = None,
        prices: PriceTable | Mapping[str, tuple[float, float]] | str | Path | None = None,
        seed: int = 0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        check_int(concurrency, "concurrency", "Judge")
        check(timeout > 0, "timeout", "Judge", "positive", timeout)
        self.backend = backend
        self.concurrency = concurrency
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self.max_retries = max_retries
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.timeout = timeout
        self.cache = cache if cache is None or isinstance(cache, JudgeCache) else JudgeCache(cache)
        if isinstance(prices, str | Path):
            prices = PriceTable.load(prices)
        self.prices = prices if isinstance(prices, PriceTable) else PriceTable(prices)
        self.seed = seed
        self.sleep = sleep
        self._setup()

    def _setup(self) -> None:
        self.policy = RetryPolicy(self.max_retries, self.backoff_base, self.backoff_max)
        self._backoff = Backoff(self.policy, self.seed)
        self._limiter = RateLimiter(self.requests_per_minute, self.tokens_per_minute)
        self._settings = self.backend.describe()
        self.stats = JudgeStats()

    def __getstate__(self) -> dict[str, Any]:
        return {name: self.__dict__[name] for name in ("backend", *CLIENT_SETTINGS, "sleep")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._setup()

    def session(self) -> Judge:
        """A judge sharing this one's backend, cache, prices and rate limiter, with counters
        (:attr:`stats`) and retry jitter of its own.

        :func:`~assay.backends.llm.make_judge` builds a spec's judge once per process and hands
        each caller a session: callers share the connection (one rate limit, one cache file,
        one structured-output fallback) but never each other's accounting.

        Example:
            >>> from assay.backends.llm import CallableBackend
            >>> judge = Judge(CallableBackend(lambda messages: "{}", model="echo"))
            >>> other = judge.session()
            >>> _ = other.complete([JudgeRequest(({"role": "user", "content": "hi"},))])
            >>> other.stats.requests, judge.stats.requests, other.backend is judge.backend
            (1, 0, True)
        """
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other._backoff = Backoff(self.policy, self.seed)
        other.stats = JudgeStats()
        return other

    @property
    def model(self) -> str:
        """The backend's model name."""
        return self.backend.model

    def describe(self) -> dict[str, Any]:
        """Backend settings plus the client's (recorded in run manifests)."""
        return {
            **self._settings,
            "concurrency": self.concurrency,
            "requests_per_minute": self.requests_per_minute,
            "tokens_per_minute": self.tokens_per_minute,
            "max_retries": self.max_retries,
            "timeout_s": self.timeout,
            "cache": None if self.cache is None else str(self.cache.path),
        }

    def key(self, request: JudgeRequest) -> str:
        """The cache key of ``request`` under this judge's settings."""
        return cache_key(self.model, request, self._settings)

    def is_cached(self, request: JudgeRequest) -> bool:
        """Whether the reply to ``request`` is already in the cache."""
        return self.cache is not None and self.cache.get(self.key(request)) is not None

    def cost(self, response: JudgeResponse) -> float | None:
        """What ``response`` cost in USD: 0 when served from the cache, None when unpriced."""
        if response.cached:
            return 0.0
        return self.prices.cost(response.model or self.model, response.usage)

    # -- plain completions ------------------------------------------------------------------
    def complete(self, requests: Sequence[JudgeRequest]) -> list[JudgeResponse | BackendError]:
        """Send ``requests`` concurrently; identical requests are sent once.

        Returns one reply or one :class:`BackendError` per request, in order; never raises for
        a failed request.
        """
        keys = [self.key(r) for r in requests]
        unique: dict[str, JudgeRequest] = {}
        for key, request in zip(keys, requests, strict=True):
            unique.setdefault(key, request)
        answers: dict[str, JudgeResponse | BackendError] = {}
        pending: list[tuple[str, JudgeRequest]] = []
        for key, request in unique.items():
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                self.stats.record_response(hit, 0.0)
                answers[key] = hit
            else:
                pending.append((key, request))
        if pending:
            workers = min(self.concurrency, len(pending))
            if workers == 1:
                for key, request in pending:
                    answers[key] = self._guarded_call(key, request)
            else:
                with ThreadPoolExecutor(
                    max_workers=workers, thread_name_prefix="assay-judge"
                ) as pool:
                    futures = {key: pool.submit(self._guarded_call, key, r) for key, r in pending}
                    for key, future in futures.items():
                        answers[key] = future.result()
        self.stats.add(requests=len(requests))
        return [answers[k] for k in keys]

    def _guarded_call(self, key: str, request: JudgeRequest) -> JudgeResponse | BackendError:
        """:meth:`_call`, with anything it raises (a malformed reply's usage, a cache that cannot
        write) turned into this request's error: one request never fails its batch."""
        try:
            return self._call(key, request)
        except Exception as exc:
            self.stats.add(failures=1)
            logger.warning("judge request failed: %s: %s", type(exc).__name__, exc)
            return BackendError(f"{type(exc).__name__}: {exc}")

    def _call(self, key: str, request: JudgeRequest) -> JudgeResponse | BackendError:
        reserve = approx_tokens(request.prompt_text) + (request.max_tokens or 256)
        retry = 0
        while True:
            self._limiter.acquire(reserve)
            started = time.perf_counter()
            self.stats.add(calls=1)
            try:
                response = self.backend.complete(request, timeout=self.timeout)
            except TransientBackendError as exc:
                waits = exc.retry_after or 0.0
                if waits > self.policy.max_retry_after:
                    self.stats.add(failures=1)
                    return BackendError(
                        f"the judge asked to wait {waits:.0f} s (Retry-After), more than the "
                        f"{self.policy.max_retry_after:.0f} s honoured: {exc}"
                    )
                if retry >= self.policy.max_retries:
                    self.stats.add(failures=1)
                    logger.warning("judge request failed after %d retries: %s", retry, exc)
                    return BackendError(f"gave up after {retry} retries: {exc}")
                delay = self._backoff.delay(retry, exc.retry_after)
                logger.info("judge: %s; retry %d in %.2fs", exc, retry + 1, delay)
                self.stats.add(retries=1)
                retry += 1
                self.sleep(delay)
                continue
            except BackendError as exc:
                self.stats.add(failures=1)
                return exc
            except Exception as exc:  # a callable backend may raise anything
                self.stats.add(failures=1)
                return BackendError(f"{type(exc).__name__}: {exc}")
            latency = time.perf_counter() - started
            self._limiter.settle(reserve, response.usage.total_tokens)
            response = JudgeResponse(
                text=response.text,
                usage=response.usage,
                model=response.model or self.model,
                cached=False,
                latency_s=latency,
                attempts=retry + 1,
                finish_reason=response.finish_reason,
            )
            if self.cache is not None:
                self.cache.put(key, response)
            self.stats.record_response(response, self.cost(response))
            return response

    # -- JSON replies -------------------------------------------------------------------------
    def complete_json(self, tasks: Sequence[JsonTask]) -> list[JsonOutcome]:
        """Send tasks concurrently and interpret their JSON replies.

        A reply that cannot be parsed, repaired, validated and interpreted is retried once with
        the parse error shown to the judge; if that fails too the outcome is an explicit parse
        failure. Backend failures are outcomes with an error, never exceptions.
        """
        outcomes = [JsonOutcome() for _ in tasks]
        first = self.complete([t.request for t in tasks])
        again: list[int] = []
        followups: list[JudgeRequest] = []
        for index, (task, reply) in enumerate(zip(tasks, first, strict=True)):
            if isinstance(reply, BackendError):
                outcomes[index].error = f"judge call failed: {reply}"
                continue
            outcomes[index].responses.append(reply)
            if reply.finish_reason == "length":  # cut off: never repaired and scored as whole
                outcomes[index].parse_failure = True
                outcomes[index].error = (
                    "judge reply was cut at the token limit (finish_reason: length); raise the "
                    "judge's max_tokens"
                )
                self.stats.add(parse_failures=1)
                continue
            try:
                outcomes[index].value = self._interpret(task, reply.text)
            except _REPLY_ERRORS as exc:
                again.append(index)
                followups.append(_followup(task.request, reply.text, _reason(exc)))
        self.stats.add(parsed=len(tasks) - sum(o.error is not None for o in outcomes))
        if not again:
            return outcomes
        self.stats.add(parse_retries=len(again))
        second = self.complete(followups)
        for index, request, reply in zip(again, followups, second, strict=True):
            outcome = outcomes[index]
            outcome.parse_retried = True
            if isinstance(reply, BackendError):
                outcome.error = f"judge call failed on the parse retry: {reply}"
                continue
            outcome.responses.append(reply)
            if reply.finish_reason == "length":
                outcome.parse_failure = True
                outcome.error = "judge reply was cut at the token limit on the parse retry"
                self.stats.add(parse_failures=1)
                continue
            try:
                outcome.value = self._interpret(tasks[index], reply.text)
            except _REPLY_ERRORS as exc:
                outcome.parse_failure = True
                outcome.error = (f"judge output could not be parsed (after one retry): "
                                 f"{_reason(exc)}")
                self.stats.add(parse_failures=1)
                logger.info("judge parse failure on %s: %s", request.task, exc)
        return outcomes

    @staticmethod
    def _interpret(task: JsonTask, text: str) -> Any:
        value = parse_json_lenient(text)
        if task.request.json_schema is not None:
            validate_schema(value, task.request.json_schema)
        return task.interpret(value)

    def __repr__(self) -> str:
        return f"Judge({self.backend!r}, concurrency={self.concurrency}, cache={self.cache!r})"


#: What interpreting a reply may raise: a parse or schema error, a reply of an unexpected shape
#: (a list where an object is due, a score that is text), or nesting deeper than the parser's
#: stack. Each is that reply's parse failure.
_REPLY_ERRORS = (JudgeParseError, ValueError, TypeError, KeyError, IndexError, AttributeError,
                 RecursionError)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "the reply is nested too deeply to parse"
    if isinstance(exc, JudgeParseError | ValueError):
        return str(exc)
    return f"the reply has an unexpected shape ({type(exc).__name__}: {exc})"


def _followup(request: JudgeRequest, reply: str, error: str) -> JudgeRequest:
    messages = (
        *request.messages,
        {"role": "assistant", "content": reply},
        {"role": "user", "content": _CORRECTION.format(error=error)},
    )
    return JudgeRequest(
        messages=messages,
        max_tokens=request.max_tokens,
        json_schema=request.json_schema,
        task=f"{request.task}:retry",
        variables=request.variables,
        sample=request.sample,
    )
