"""Loopback HTTP helpers for the judge tests: a fake OpenAI-compatible server and a
fault-injecting proxy (answers chosen requests with 429 / 500, forwards the rest)."""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit


class _Server:
    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.httpd.owner = self  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> _Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class _Quiet(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client timed out
            self.wfile.write(body)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", 0)))


class FakeOpenAI(_Server):
    """Answers ``POST .../chat/completions`` with ``reply(payload) -> str`` and records
    every payload and header set; ``delay`` seconds before answering."""

    def __init__(self, reply: Callable[[dict[str, Any]], Any], delay: float = 0.0,
                 status: int = 200, finish_reason: Callable[[dict[str, Any]], str] | None = None,
                 refuse_schema: int = 0, refuse_object_schema: bool = False) -> None:
        self.reply, self.delay, self.status = reply, delay, status
        self.refuse_schema = refuse_schema
        self.refuse_object_schema = refuse_object_schema
        self.finish_reason = finish_reason or (lambda payload: "stop")
        self.payloads: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []

        class Handler(_Quiet):
            def do_POST(self) -> None:
                owner: FakeOpenAI = self.server.owner  # type: ignore[attr-defined]
                payload = json.loads(self._body())
                owner.payloads.append(payload)
                owner.headers.append(dict(self.headers))
                owner.paths.append(self.path)
                if owner.delay:
                    time.sleep(owner.delay)
                if owner.status != 200:
                    self._send(owner.status, b'{"error": {"message": "bad request"}}')
                    return
                fmt = payload.get("response_format") or {}
                if owner.refuse_schema and (fmt.get("type") == "json_schema" or (
                        owner.refuse_object_schema and "schema" in fmt)):
                    # as a server without JSON Schema support answers, with that status
                    self._send(owner.refuse_schema, b'{"error": {"code": 400, "type": "invalid_request_error", '
                                    b'"message": "response_format type json_schema is not '
                                    b'supported"}}')
                    return
                text = owner.reply(payload)
                body = {
                    "id": "x", "object": "chat.completion", "model": payload["model"],
                    "choices": [{"index": 0, "finish_reason": owner.finish_reason(payload),
                                 "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
                }
                self._send(200, json.dumps(body).encode())

        super().__init__(Handler)


class FaultProxy(_Server):
    """Forwards requests to ``upstream`` except those whose 1-based number is in ``faults``,
    which get that HTTP status instead (429 carries ``Retry-After: 0``)."""

    def __init__(self, upstream: str, faults: dict[int, int] | None = None) -> None:
        self.upstream = urlsplit(upstream)
        self.faults = dict(faults or {})
        self.count = 0
        self.forwarded = 0
        self.injected: list[int] = []
        self.lock = threading.Lock()

        class Handler(_Quiet):
            def do_POST(self) -> None:
                owner: FaultProxy = self.server.owner  # type: ignore[attr-defined]
                body = self._body()
                with owner.lock:
                    owner.count += 1
                    number = owner.count
                status = owner.faults.get(number)
                if status is not None:
                    owner.injected.append(status)
                    headers = {"Retry-After": "0"} if status == 429 else {}
                    self._send(status, b'{"error": {"message": "injected fault"}}', headers)
                    return
                conn = http.client.HTTPConnection(owner.upstream.hostname,
                                                  owner.upstream.port, timeout=600)
                conn.request("POST", self.path, body=body,
                             headers={"Content-Type": "application/json"})
                reply = conn.getresponse()
                data = reply.read()
                conn.close()
                with owner.lock:
                    owner.forwarded += 1
                self._send(reply.status, data)

        super().__init__(Handler)
