"""Retries with exponential backoff and full jitter for transient judge failures."""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass

from assay.params import check, check_int


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before retrying a transient failure (429, 5xx, timeout).

    The wait before retry ``n`` (0-based) is drawn uniformly from
    ``[0, min(max_delay, base_delay * 2**n)]`` ("full jitter", so that many clients hit by the
    same 429 do not retry in lockstep), and is never shorter than the server's ``Retry-After``.

    Example:
        >>> policy = RetryPolicy(max_retries=3, base_delay=1.0, max_delay=4.0)
        >>> [policy.cap(n) for n in range(4)]
        [1.0, 2.0, 4.0, 4.0]
    """

    max_retries: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    #: longest ``Retry-After`` honoured; a server asking for more fails the request at once
    max_retry_after: float = 120.0

    def __post_init__(self) -> None:
        check_int(self.max_retries, "max_retries", "RetryPolicy", minimum=0)
        check(self.base_delay >= 0, "base_delay", "RetryPolicy", "non-negative", self.base_delay)
        check(
            self.max_delay >= self.base_delay,
            "max_delay",
            "RetryPolicy",
            "at least base_delay",
            self.max_delay,
        )

    def cap(self, retry: int) -> float:
        """The largest wait before retry number ``retry`` (0-based)."""
        return float(min(self.max_delay, self.base_delay * 2**retry))


class Backoff:
    """Draws jittered waits from a :class:`RetryPolicy` with a seeded, thread-safe generator.

    Example:
        >>> backoff = Backoff(RetryPolicy(base_delay=1.0, max_delay=8.0), seed=0)
        >>> 0.0 <= backoff.delay(2) <= 4.0
        True
        >>> backoff.delay(0, retry_after=5.0) >= 5.0
        True
    """

    def __init__(self, policy: RetryPolicy, seed: int | None = 0) -> None:
        self.policy = policy
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def delay(self, retry: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``retry``."""
        with self._lock:
            jittered = self._rng.uniform(0.0, self.policy.cap(retry))
        return max(jittered, retry_after or 0.0)
