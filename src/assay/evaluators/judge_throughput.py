"""Measured judge throughput: send a few of a run's real judge requests and time them.

A small local model can need a quarter of an hour for a suite a hosted API judges in a minute,
and a llama.cpp server with too many threads is another twenty times slower (docs/judge.md).
:func:`measure_throughput` sends the first ``n`` uncached requests the run would send, one at a
time, and projects the run's duration from the measured seconds per call, so the surprise comes
before the run. The replies are real replies: they go to the judge's cache like any other.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass

from assay.backends.llm.client import Judge
from assay.backends.llm.factory import JudgeSpec, make_judge
from assay.backends.llm.protocol import JudgeRequest
from assay.data.case import TestCase
from assay.errors import BackendError
from assay.evaluators.base import Evaluator
from assay.evaluators.judge_base import JudgeEvaluator


@dataclass
class Throughput:
    """What ``n`` sequential judge calls took, and the run's projected duration.

    ``projected_s`` is the time of the run's remaining uncached calls sent one at a time (a
    server with parallel slots divides it by its concurrency); None when nothing was measured.
    """

    model: str
    measured: int
    failed: int
    seconds: float
    completion_tokens: int
    remaining_calls: int

    @property
    def seconds_per_call(self) -> float | None:
        """Mean wall time of one measured call."""
        return self.seconds / self.measured if self.measured else None

    @property
    def tokens_per_s(self) -> float | None:
        """Completion tokens decoded per second over the measured calls."""
        return self.completion_tokens / self.seconds if self.seconds > 0 else None

    @property
    def projected_s(self) -> float | None:
        """Seconds the remaining calls take one at a time at the measured pace."""
        per_call = self.seconds_per_call
        return None if per_call is None else per_call * self.remaining_calls

    def to_dict(self) -> dict[str, object]:
        """JSON-serialisable form (with the derived figures)."""
        return {**asdict(self), "seconds_per_call": self.seconds_per_call,
                "tokens_per_s": self.tokens_per_s, "projected_s": self.projected_s}


def _pending(evaluators: Iterable[Evaluator], cases: Sequence[TestCase],
             override: Judge | None) -> tuple[Judge | None, list[JudgeRequest]]:
    """The judge and the uncached first-stage requests the run would send, in order."""
    client: Judge | None = override
    requests: list[JudgeRequest] = []
    for evaluator in evaluators:
        if not isinstance(evaluator, JudgeEvaluator):
            continue
        client = client or evaluator.judge_client()
        for case in cases:
            if evaluator.missing_fields(case):
                continue
            requests += [r for r, _ in evaluator.plan(case) if not client.is_cached(r)]
    return client, requests


def measure_throughput(evaluators: Iterable[Evaluator], cases: Sequence[TestCase], n: int,
                       judge: JudgeSpec = None) -> Throughput:
    """Send the first ``n`` uncached judge requests of a run one at a time and time them.

    Example:
        >>> from assay.evaluators.judge_answer import JudgeQAAccuracy
        >>> from assay.testing import sample_cases
        >>> t = measure_throughput([JudgeQAAccuracy()], sample_cases(), 2, judge="scripted")
        >>> t.measured, t.remaining_calls, t.failed
        (2, 5, 0)
    """
    override = make_judge(judge) if judge is not None else None
    client, requests = _pending(evaluators, cases, override)
    if client is None:
        return Throughput("no judge", 0, 0, 0.0, 0, 0)
    sample = requests[: max(0, n)]
    seconds, tokens, failed = 0.0, 0, 0
    for request in sample:
        start = time.perf_counter()
        reply = client.complete([request])[0]
        seconds += time.perf_counter() - start
        if isinstance(reply, BackendError):
            failed += 1
        else:
            tokens += reply.usage.completion_tokens
    return Throughput(client.model, len(sample), failed, round(seconds, 6), tokens,
                      len(requests) - len(sample))
