"""Thread-safe counters of what a judge did: calls, cache hits, retries, tokens, cost, parsing."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, fields
from typing import Any

from assay.backends.llm.protocol import JudgeResponse


@dataclass
class JudgeStats:
    """Counters accumulated by a :class:`~assay.backends.llm.client.Judge`.

    ``requests`` counts logical requests, ``calls`` the requests actually sent (retries
    included), ``cache_hits`` those answered from the cache. ``parsed`` counts JSON replies
    attempted, ``parse_retries`` those retried after a parse error and ``parse_failures`` those
    that never parsed. ``cost_usd`` sums priced calls; ``unpriced_calls`` counts calls whose model
    has no price (their cost is unknown, not zero: ``cost_known`` is then False).

    Example:
        >>> stats = JudgeStats()
        >>> stats.add(parsed=4, parse_failures=1)
        >>> stats.parse_failure_rate
        0.25
    """

    requests: int = 0
    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    parsed: int = 0
    parse_retries: int = 0
    parse_failures: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: float) -> None:
        """Add to named counters."""
        with self._lock:
            for name, amount in counts.items():
                setattr(self, name, getattr(self, name) + amount)

    def record_response(self, response: JudgeResponse, cost: float | None) -> None:
        """Account for one reply (a cache hit costs nothing and uses no tokens)."""
        if response.cached:
            self.add(cache_hits=1)
            return
        self.add(
            prompt_tokens=response.usage.prompt_tokens,
            completion_tokens=response.usage.completion_tokens,
        )
        if cost is None:
            self.add(unpriced_calls=1)
        else:
            self.add(cost_usd=cost)

    def merge(self, other: JudgeStats) -> None:
        """Add ``other``'s counters to these."""
        self.add(**{f.name: getattr(other, f.name) for f in fields(self) if f.name != "_lock"})

    @property
    def parse_failure_rate(self) -> float | None:
        """Share of JSON replies that never parsed (None before any)."""
        return self.parse_failures / self.parsed if self.parsed else None

    def to_dict(self) -> dict[str, Any]:
        """The counters and derived rates as JSON-serialisable data."""
        data: dict[str, Any] = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name != "_lock"
        }
        data["cost_usd"] = round(self.cost_usd, 8)
        data["cost_known"] = self.unpriced_calls == 0
        data["parse_failure_rate"] = self.parse_failure_rate
        return data

    def __getstate__(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()
