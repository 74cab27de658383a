"""A judge backend for any OpenAI-compatible chat completions endpoint.

OpenAI, Azure OpenAI (``api_version`` set), vLLM, Ollama, llama.cpp's server and
llama-cpp-python's server all speak this protocol. Requests go only to ``base_url``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

from assay.backends.llm.protocol import (
    JudgeRequest,
    JudgeResponse,
    Usage,
)
from assay.errors import BackendError, TransientBackendError, require
from assay.params import check, check_choice, check_int
from assay.safety.credentials import redact_text

STRUCTURED_MODES = ("json_schema", "json_object", "none")
#: HTTP statuses with which a server refuses a request it cannot serve as sent; when the error
#: names the response format or the schema, the request is retried in JSON mode. 500 is there
#: because llama-cpp-python's server (0.3) answers a ``json_schema`` response_format with a 500
#: validation error ("Input should be 'text' or 'json_object'").
_REFUSED = (400, 422, 500, 501)
_REFUSAL_WORDS = ("response_format", "json_schema", "schema")

logger = logging.getLogger(__name__)


class OpenAICompatBackend:
    """Chat completions over HTTP with ``httpx`` (extra ``judge``).

    Args:
        model: Model name (for Azure, the deployment name).
        base_url: API root, e.g. ``https://api.openai.com/v1`` or ``http://127.0.0.1:8080/v1``
            (for Azure, the resource endpoint ``https://NAME.openai.azure.com``).
        api_key: The key itself; prefer ``api_key_env``. Never recorded or repr'd.
        api_key_env: Environment variable holding the key (read at call time; may be unset for
            local servers).
        temperature: Sampling temperature (0 for the most repeatable verdicts).
        seed: Sampling seed sent to servers that honour it.
        max_tokens: Default cap on generated tokens per request.
        structured: ``"json_schema"`` (default: send the reply's JSON Schema, so the server
            constrains decoding to it; OpenAI, vLLM, llama.cpp), ``"json_object"`` (JSON mode)
            or ``"none"`` (rely on the prompt). A server that refuses the schema (HTTP 400, 422,
            500 or 501 naming it) is asked again in JSON mode *with the schema* (``{"type":
            "json_object", "schema": ...}``: llama-cpp-python's server compiles it to a GBNF
            grammar, so decoding is still constrained), and if it refuses that too, in plain
            JSON mode; the step down is kept for later requests, logged once and reported by
            :meth:`describe` as ``structured_fallback`` (and ``structured_fallback_plain``).
        api_version: Azure OpenAI API version; switches to Azure URLs and the ``api-key`` header.
        headers: Extra HTTP headers (e.g. an organisation id).

    Example:
        >>> backend = OpenAICompatBackend("gpt-4o-mini", temperature=0.0, seed=7)
        >>> backend.describe()["seed"], backend.model
        (7, 'gpt-4o-mini')
    """

    def __init__(
        self,
        model: str,
        base_url: str = "https://api.openai.com/v1",
        *,
        api_key: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        temperature: float = 0.0,
        seed: int | None = 0,
        max_tokens: int = 512,
        structured: str = "json_schema",
        api_version: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        check(bool(model), "model", "OpenAICompatBackend", "a non-empty model name", model)
        check(
            base_url.startswith(("http://", "https://")),
            "base_url",
            "OpenAICompatBackend",
            "an http(s) URL",
            base_url,
        )
        check_choice(structured, STRUCTURED_MODES, "structured", "OpenAICompatBackend")
        check_int(max_tokens, "max_tokens", "OpenAICompatBackend")
        self._model = model
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.api_key_env = api_key_env
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.structured = structured
        self.schema_refused: str | None = None
        self.object_schema_refused: str | None = None
        self.api_version = api_version
        self.headers = dict(headers or {})
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def model(self) -> str:
        """The model (or Azure deployment) name."""
        return self._model

    def describe(self) -> dict[str, Any]:
        """Settings that change replies; never the key."""
        return {
            "backend": "openai_compat",
            "model": self._model,
            "base_url": redact_text(self.base_url),  # never a user:password@
            "temperature": self.temperature,
            "seed": self.seed,
            "max_tokens": self.max_tokens,
            "structured": self.structured,
            "api_version": self.api_version,
            **({"structured_fallback": self.schema_refused} if self.schema_refused else {}),
            **({"structured_fallback_plain": self.object_schema_refused}
               if self.object_schema_refused else {}),
        }

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_client"] = None
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAICompatBackend({self._model!r}, {redact_text(self.base_url)!r})"

    # -- HTTP ---------------------------------------------------------------------------------
    def _http(self) -> Any:
        with self._lock:
            if self._client is None:
                httpx = require("httpx", extra="judge")
                headers = {"Content-Type": "application/json", **self.headers}
                key = self._api_key or (
                    os.environ.get(self.api_key_env) if self.api_key_env else None
                )
                if key:
                    if self.api_version:
                        headers["api-key"] = key
                    else:
                        headers["Authorization"] = f"Bearer {key}"
                limits = httpx.Limits(max_connections=64, max_keepalive_connections=16)  # type: ignore[attr-defined]
                self._client = httpx.Client(headers=headers, limits=limits)  # type: ignore[attr-defined]
            return self._client

    def _url(self) -> tuple[str, dict[str, str]]:
        if self.api_version:
            return (
                f"{self.base_url}/openai/deployments/{self._model}/chat/completions",
                {"api-version": self.api_version},
            )
        return f"{self.base_url}/chat/completions", {}

    def payload(self, request: JudgeRequest) -> dict[str, Any]:
        """The JSON body sent for ``request``."""
        body: dict[str, Any] = {
            "model": self._model,
            "messages": request.wire_messages(),
            "temperature": self.temperature,
            "max_tokens": request.max_tokens or self.max_tokens,
        }
        if self.seed is not None:  # each repeated judgement samples with a seed of its own
            body["seed"] = self.seed + request.sample
        schema = request.json_schema if self.structured == "json_schema" else None
        if schema is not None and self.schema_refused is None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": (request.task or "reply").replace(":", "_"),
                    "schema": dict(schema),
                },
            }
        elif schema is not None and self.object_schema_refused is None:
            # llama-cpp-python's server: JSON mode with a "schema" key, compiled to a grammar
            body["response_format"] = {"type": "json_object", "schema": dict(schema)}
        elif self.structured in ("json_object", "json_schema"):
            body["response_format"] = {"type": "json_object"}
        return body

    def complete(self, request: JudgeRequest, *, timeout: float | None = None) -> JudgeResponse:
        """POST the request; map 429 / 5xx / timeouts to :class:`TransientBackendError`."""
        httpx = require("httpx", extra="judge")
        url, params = self._url()
        body = self.payload(request)
        try:
            reply = self._http().post(url, params=params, json=body, timeout=timeout)
            while _schema_refused(body, reply.status_code, reply.text):
                self._refuse_schema(body, f"HTTP {reply.status_code}: {reply.text[:200]}")
                body = self.payload(request)
                reply = self._http().post(url, params=params, json=body, timeout=timeout)
        except httpx.TimeoutException as exc:  # type: ignore[attr-defined]
            raise TransientBackendError(f"timeout after {timeout}s: {exc!r}") from exc
        except httpx.TransportError as exc:  # type: ignore[attr-defined]
            raise TransientBackendError(f"connection error: {exc!r}") from exc
        status = reply.status_code
        if status == 429 or status >= 500:
            raise TransientBackendError(
                f"HTTP {status} from {url}: {reply.text[:200]}",
                retry_after=_retry_after(reply.headers.get("retry-after")),
            )
        if status >= 400:
            raise BackendError(f"HTTP {status} from {url}: {reply.text[:500]}")
        try:
            data = reply.json()
            choice = data["choices"][0]
            text = choice["message"]["content"] or ""
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise BackendError(f"unexpected reply from {url}: {reply.text[:300]}") from exc
        if not isinstance(text, str):  # fails this request only, never its batch
            raise BackendError(f"reply content from {url} is not text: {type(text).__name__}")
        usage_data = data.get("usage") or {}
        if "prompt_tokens" in usage_data:
            usage = Usage(
                int(usage_data.get("prompt_tokens") or 0),
                int(usage_data.get("completion_tokens") or 0),
            )
        else:
            usage = Usage.estimate(request.prompt_text, text)
        return JudgeResponse(
            text=text,
            usage=usage,
            model=str(data.get("model") or self._model),
            finish_reason=choice.get("finish_reason"),
        )

    def _refuse_schema(self, body: Mapping[str, Any], reason: str) -> None:
        """Step down from the response format ``body`` used, for this and later requests
        (JSON Schema, then JSON mode with the schema, then plain JSON mode), logging why once."""
        with self._lock:
            if body["response_format"]["type"] == "json_schema":
                if self.schema_refused is None:
                    self.schema_refused = reason
                    logger.warning(
                        "%s refused a JSON Schema response_format (%s); asking in JSON mode "
                        "with the schema (response_format json_object + schema, which "
                        "llama.cpp compiles to a grammar) from now on",
                        self.base_url,
                        reason,
                    )
            elif self.object_schema_refused is None:
                self.object_schema_refused = reason
                logger.warning(
                    "%s refused a schema in JSON mode too (%s); asking in plain JSON mode "
                    "(response_format json_object) from now on",
                    self.base_url,
                    reason,
                )

    def close(self) -> None:
        """Close the HTTP connection pool."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def _schema_refused(body: Mapping[str, Any], status: int, text: str) -> bool:
    """Whether the server refused the schema of ``body``'s ``response_format`` (a ``json_schema``
    one, or JSON mode with a ``schema``): a 400, 422, 500 or 501 whose error names the response
    format or the schema (other client errors are the request's own fault and are reported as
    they are).

    Example:
        >>> sent = {"response_format": {"type": "json_schema"}}
        >>> _schema_refused(sent, 400, "response_format type json_schema is not supported")
        True
        >>> _schema_refused(sent, 400, "bad request"), _schema_refused({}, 400, "schema")
        (False, False)
        >>> _schema_refused({"response_format": {"type": "json_object", "schema": {}}}, 400,
        ...                 "unknown field schema"), _schema_refused(
        ...     {"response_format": {"type": "json_object"}}, 400, "response_format")
        (True, False)
    """
    fmt = body.get("response_format") or {}
    if status not in _REFUSED or not (fmt.get("type") == "json_schema" or "schema" in fmt):
        return False
    lowered = text.lower()
    return any(word in lowered for word in _REFUSAL_WORDS)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds form only).

    Example:
        >>> _retry_after("2"), _retry_after(None), _retry_after("Wed, 21 Oct 2015 07:28:00 GMT")
        (2.0, None, None)
    """
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
