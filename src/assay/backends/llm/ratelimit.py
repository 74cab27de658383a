"""Client-side rate limiting in requests and tokens per minute (token buckets)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from assay.params import check


class _Bucket:
    """A token bucket holding up to ``capacity`` units, refilled at ``capacity`` per minute."""

    def __init__(self, per_minute: float, now: float) -> None:
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.level = self.capacity
        self.stamp = now

    def refill(self, now: float) -> None:
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    def wait_for(self, amount: float) -> float:
        """Seconds until ``amount`` units are available (0 when they are)."""
        amount = min(amount, self.capacity)  # a request larger than a minute's budget still runs
        return 0.0 if self.level >= amount else (amount - self.level) / self.rate


class RateLimiter:
    """Blocks callers so that at most ``requests_per_minute`` requests and
    ``tokens_per_minute`` tokens start per minute (either limit may be None).

    Thread-safe. Token use is reserved from an estimate when a request starts and corrected with
    the real usage afterwards (:meth:`settle`). ``clock`` and ``sleep`` are injectable for tests.

    Example:
        >>> fake_now = [0.0]
        >>> limiter = RateLimiter(requests_per_minute=60, clock=lambda: fake_now[0],
        ...                       sleep=lambda s: fake_now.__setitem__(0, fake_now[0] + s))
        >>> for _ in range(61):
        ...     _ = limiter.acquire()
        >>> round(fake_now[0], 3)  # the 61st request waited one second
        1.0
    """

    def __init__(
        self,
        requests_per_minute: float | None = None,
        tokens_per_minute: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        for name, value in (
            ("requests_per_minute", requests_per_minute),
            ("tokens_per_minute", tokens_per_minute),
        ):
            check(value is None or value > 0, name, "RateLimiter", "positive or None", value)
        self.requests_per_minute = requests_per_minute
        self.tokens_per_minute = tokens_per_minute
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        now = clock()
        self._requests = _Bucket(requests_per_minute, now) if requests_per_minute else None
        self._tokens = _Bucket(tokens_per_minute, now) if tokens_per_minute else None

    @property
    def active(self) -> bool:
        """Whether any limit is set."""
        return self._requests is not None or self._tokens is not None

    def acquire(self, tokens: int = 0) -> float:
        """Wait until one request of about ``tokens`` tokens may start; return seconds waited."""
        waited = 0.0
        while True:
            with self._lock:
                now = self._clock()
                wait = 0.0
                for bucket, amount in ((self._requests, 1.0), (self._tokens, float(tokens))):
                    if bucket is not None:
                        bucket.refill(now)
                        wait = max(wait, bucket.wait_for(amount))
                if wait <= 0.0:
                    if self._requests is not None:
                        self._requests.level -= 1.0
                    if self._tokens is not None:
                        self._tokens.level -= min(float(tokens), self._tokens.capacity)
                    return waited
            self._sleep(wait)
            waited += wait

    def settle(self, reserved: int, actual: int) -> None:
        """Correct the token bucket once the real usage of a request is known."""
        if self._tokens is None or actual == reserved:
            return
        with self._lock:
            self._tokens.level -= actual - reserved

    def __reduce__(self) -> tuple[type[RateLimiter], tuple[float | None, float | None]]:
        # locks and clocks do not pickle: a copy starts with full buckets
        return (RateLimiter, (self.requests_per_minute, self.tokens_per_minute))
