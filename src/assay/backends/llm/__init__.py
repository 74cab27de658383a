"""The LLM judge layer: a backend Protocol, an OpenAI-compatible HTTP backend, a callable adapter,
and the :class:`Judge` client that adds concurrency, rate limits, retries, timeouts, an on-disk
cache, usage and cost, and robust JSON replies. ``httpx`` is imported only when a request is sent.
"""

from assay.backends.llm.cache import JudgeCache, cache_key
from assay.backends.llm.callable import CallableBackend
from assay.backends.llm.client import JsonOutcome, JsonTask, Judge
from assay.backends.llm.factory import JudgeSpec, make_judge
from assay.backends.llm.jsonrepair import parse_json_lenient, validate_schema
from assay.backends.llm.openai_compat import OpenAICompatBackend
from assay.backends.llm.pricing import DEFAULT_PRICES, Price, PriceTable
from assay.backends.llm.protocol import (
    JudgeBackend,
    JudgeRequest,
    JudgeResponse,
    Message,
    Usage,
    approx_tokens,
)
from assay.backends.llm.ratelimit import RateLimiter
from assay.backends.llm.retry import Backoff, RetryPolicy
from assay.backends.llm.stats import JudgeStats
from assay.errors import TransientBackendError

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
