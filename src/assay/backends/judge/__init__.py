"""The LLM judge layer: a backend Protocol, an OpenAI-compatible HTTP backend, a callable adapter,
and the :class:`Judge` client that adds concurrency, rate limits, retries, timeouts, an on-disk
cache, usage and cost, and robust JSON replies. ``httpx`` is imported only when a request is sent.
"""

from assay.backends.judge.cache import JudgeCache, cache_key
from assay.backends.judge.callable import CallableBackend
from assay.backends.judge.client import JsonOutcome, JsonTask, Judge
from assay.backends.judge.factory import JudgeSpec, make_judge
from assay.backends.judge.jsonrepair import parse_json_lenient, validate_schema
from assay.backends.judge.openai_compat import OpenAICompatBackend
from assay.backends.judge.pricing import DEFAULT_PRICES, Price, PriceTable
from assay.backends.judge.protocol import (
    JudgeBackend,
    JudgeRequest,
    JudgeResponse,
    Message,
    TransientBackendError,
    Usage,
    approx_tokens,
)
from assay.backends.judge.ratelimit import RateLimiter
from assay.backends.judge.retry import Backoff, RetryPolicy
from assay.backends.judge.stats import JudgeStats

__all__ = [
    "DEFAULT_PRICES",
    "Backoff",
    "CallableBackend",
    "JsonOutcome",
    "JsonTask",
    "Judge",
    "JudgeBackend",
    "JudgeCache",
    "JudgeRequest",
    "JudgeResponse",
    "JudgeSpec",
    "JudgeStats",
    "Message",
    "OpenAICompatBackend",
    "Price",
    "PriceTable",
    "RateLimiter",
    "RetryPolicy",
    "TransientBackendError",
    "Usage",
    "approx_tokens",
    "cache_key",
    "make_judge",
    "parse_json_lenient",
    "validate_schema",
]
