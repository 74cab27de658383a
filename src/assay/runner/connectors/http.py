"""A JSON-over-HTTP endpoint with a configurable request template and response mapping."""

from __future__ import annotations

import json
import threading
from typing import Any

from assay.data.case import TestCase
from assay.errors import require
from assay.params import check
from assay.runner.connectors.base import TargetError, TargetResponse, case_variables, map_response
from assay.runner.mapping import render

#: The request sent when none is configured.
DEFAULT_REQUEST: dict[str, Any] = {"question": "{{question}}"}


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


class HTTPConnector:
    """POST (or another method) a JSON request per case and map the JSON response.

    Args:
        url: the endpoint; may hold ``{{placeholders}}`` (URL-encoded values are the caller's job).
        name: the system's name (becomes ``TestCase.model``).
        method: HTTP method.
        headers: extra headers (use ``${ENV_VAR}`` in the config file for secrets).
        request: JSON template of the body (``None`` for methods without one); see
            :func:`assay.runner.mapping.render`.
        response: response field → path mapping; see
            :func:`assay.runner.connectors.base.map_response`.

    Example:
        >>> c = HTTPConnector("http://127.0.0.1:1/ask", name="rag")
        >>> c.request
        {'question': '{{question}}'}
    """

    def __init__(
        self,
        url: str,
        *,
        name: str = "http",
        method: str = "POST",
        headers: dict[str, str] | None = None,
        request: Any = None,
        response: dict[str, str] | None = None,
    ) -> None:
        check(
            isinstance(url, str) and url.startswith(("http://", "https://")),
            "url",
            "HTTPConnector",
            "an http:// or https:// URL",
            url,
        )
        self.url = url
        self.name = name
        self.method = method.upper()
        self.headers = dict(headers or {})
        self.request = DEFAULT_REQUEST if request is None else request
        self.response = dict(response or {})
        self._local = threading.local()
        self._clients: list[Any] = []
        self._lock = threading.Lock()

    def _client(self) -> Any:
        client = getattr(self._local, "client", None)
        if client is None:
            httpx = require("httpx", extra="runner")
            client = httpx.Client(headers=self.headers)  # type: ignore[attr-defined]
            self._local.client = client
            with self._lock:
                self._clients.append(client)
        return client

    def answer(self, case: TestCase, timeout_s: float) -> TargetResponse:
        """Send one request and map its response (see :class:`Connector`)."""
        variables = case_variables(case)
        url = str(render(self.url, variables))
        body = render(self.request, variables) if self.method not in ("GET", "HEAD") else None
        return map_response(self.send(url, body, timeout_s), self.response)

    def send(self, url: str, body: Any, timeout_s: float) -> Any:
        """Send ``body`` as JSON to ``url`` and return the parsed JSON reply.

        Raises:
            TargetError: ``timeout`` / ``connection`` / ``http_status`` (5xx, 408 and 429 are
                retryable) / ``bad_response`` (not JSON).
        """
        import httpx

        try:
            reply = self._client().request(self.method, url, json=body, timeout=timeout_s)
        except httpx.TimeoutException as exc:
            raise TargetError(
                f"no response within {timeout_s:g} s ({type(exc).__name__})",
                kind="timeout",
                retryable=True,
            ) from None
        except httpx.TransportError as exc:
            raise TargetError(
                f"connection failed: {type(exc).__name__}: {exc}", kind="connection", retryable=True
            ) from None
        if reply.status_code >= 400:
            retryable = reply.status_code >= 500 or reply.status_code in (408, 429)
            raise TargetError(
                f"HTTP {reply.status_code}: {reply.text[:200]!r}",
                kind="http_status",
                retryable=retryable,
                retry_after_s=_retry_after(reply.headers.get("retry-after")),
            )
        try:
            return reply.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise TargetError(
                f"response is not JSON: {reply.text[:120]!r}", kind="bad_response", retryable=False
            ) from None

    def close(self) -> None:
        """Close every per-thread HTTP client."""
        with self._lock:
            for client in self._clients:
                client.close()
            self._clients.clear()
        self._local = threading.local()
