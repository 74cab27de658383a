"""One judge rate limit for all Ray workers.

Each :class:`~assay.backends.llm.Judge` limits its own requests and tokens per minute with a
:class:`~assay.backends.llm.RateLimiter`. On Ray every worker holds its own copy of the judge, so
N workers would send N times the configured rate. Here the driver starts one limiter *actor* per
distinct judge endpoint and limit (a threaded actor wrapping the very same
:class:`RateLimiter`), and each worker's judges get a :class:`SharedRateLimiter` that asks that
actor for permits: the limit then holds across the whole cluster.
"""

from __future__ import annotations

import logging
from typing import Any

from assay.errors import AssayError, require
from assay.evaluators.base import Evaluator

logger = logging.getLogger(__name__)

#: Concurrent permit requests one limiter actor serves (each waits in its own thread).
LIMITER_CONCURRENCY = 256


def ray_module() -> Any:
    """``ray``, imported on first use (``pip install 'assay[ray]'``)."""
    return require("ray", extra="ray")


def judges_of(evaluator: Evaluator) -> list[Any]:
    """The :class:`~assay.backends.llm.Judge` objects ``evaluator`` calls (resolved now).

    Example:
        >>> from assay.evaluators import get_evaluator
        >>> judges_of(get_evaluator("exact_match"))
        []
    """
    import sys

    if "assay.backends.llm.client" not in sys.modules:
        return []  # no judge was ever built or imported: nothing to limit
    from assay.backends.llm.client import Judge

    found: list[Any] = []
    client = getattr(evaluator, "judge_client", None)
    if callable(client):
        try:
            found.append(client())
        except AssayError as exc:  # no judge configured: evaluate() reports it per case
            logger.debug("no judge to rate-limit for %s: %s", evaluator.name, exc)
    for value in vars(evaluator).values():
        if isinstance(value, Judge) and all(value is not j for j in found):
            found.append(value)
    return found


def limit_key(judge: Any) -> str | None:
    """Identify a judge's endpoint and limits; None when the judge has no rate limit.

    Example:
        >>> from assay.backends.llm import make_judge
        >>> limit_key(make_judge({"provider": "ollama", "model": "m", "requests_per_minute": 60}))
        'http://localhost:11434/v1|m|60|None'
        >>> limit_key(make_judge("scripted")) is None
        True
    """
    if judge.requests_per_minute is None and judge.tokens_per_minute is None:
        return None
    base_url = judge.describe().get("base_url")
    return f"{base_url}|{judge.model}|{judge.requests_per_minute}|{judge.tokens_per_minute}"


class SharedRateLimiter:
    """A :class:`RateLimiter` stand-in whose permits come from a limiter actor shared by workers.

    ``actor`` is a handle to ``ray.remote(RateLimiter)``; :meth:`acquire` blocks until the actor
    grants a permit, :meth:`settle` corrects token usage without waiting.
    """

    def __init__(
        self, actor: Any, requests_per_minute: float | None, tokens_per_minute: float | None
    ) -> None:
        self.actor = actor
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute

    @property
    def active(self) -> bool:
        """Always true: only judges with a limit get a shared limiter."""
        return True

    def acquire(self, tokens: int = 0) -> float:
        """Wait until the shared limiter lets one request of about ``tokens`` tokens start."""
        ray = ray_module()

        return float(ray.get(self.actor.acquire.remote(tokens)))

    def settle(self, reserved: int, actual: int) -> None:
        """Correct the shared token bucket once a request's real usage is known."""
        if self.tokens_per_minute is not None and actual != reserved:
            self.actor.settle.remote(reserved, actual)


def start_limiters(evaluator: Evaluator, existing: dict[str, Any]) -> dict[str, Any]:
    """Start (in ``existing``, keyed by :func:`limit_key`) one limiter actor per limited judge of
    ``evaluator``; return the handles this evaluator needs. Runs on the driver."""
    ray = ray_module()

    from assay.backends.llm.ratelimit import RateLimiter

    needed: dict[str, Any] = {}
    for judge in judges_of(evaluator):
        key = limit_key(judge)
        if key is None:
            continue
        if key not in existing:
            actor_cls = ray.remote(num_cpus=0, max_concurrency=LIMITER_CONCURRENCY)(RateLimiter)
            existing[key] = actor_cls.remote(judge.requests_per_minute, judge.tokens_per_minute)
            logger.info("shared judge rate limit started for %s", key)
        needed[key] = existing[key]
    return needed


def install_limiters(evaluator: Evaluator, handles: dict[str, Any]) -> int:
    """Point the judges of ``evaluator`` at the shared limiter actors; return how many were.
    Runs in each worker, on its own copy of the evaluator."""
    if not handles:
        return 0
    installed = 0
    for judge in judges_of(evaluator):
        key = limit_key(judge)
        if key is not None and key in handles:
            judge._limiter = SharedRateLimiter(
                handles[key], judge.requests_per_minute, judge.tokens_per_minute
            )
            installed += 1
    return installed
