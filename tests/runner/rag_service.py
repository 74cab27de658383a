"""A small RAG service on loopback for the runner tests (stdlib ``http.server`` in a thread).

It retrieves from a tiny corpus by word overlap and answers from the best passage, and it can
misbehave on purpose, per question: fail with 500s, fail intermittently, stall past the client's
timeout, return text that is not JSON or JSON of the wrong shape. Every request is counted by
question, so tests can check what was (not) asked again. ``/v1/chat/completions`` speaks the
OpenAI chat protocol for the chat connector.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from assay.data.case import TestCase

CORPUS = {
    "fees-1": "The Premier current account has a monthly fee of 12 euros.",
    "fees-2": "The fee is waived when the balance stays above 5000 euros.",
    "abroad-1": "Card payments abroad cost 1.5 percent of the amount.",
    "abroad-2": "Cash withdrawals abroad cost 3 euros each.",
    "close-1": "Customers can close the account online at any time without charge.",
    "hours-1": "The support line is open from 8 am to 8 pm on weekdays.",
}
_WORD = re.compile(r"[a-z0-9]+")
_STOP = {"the", "a", "an", "is", "of", "to", "what", "how", "do", "i", "my", "can", "does", "at"}


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def retrieve(question: str, extra: list[str] | None = None, k: int = 2) -> list[dict[str, Any]]:
    """Top-``k`` passages by word overlap (ties by corpus order)."""
    docs = {**CORPUS, **{f"extra-{i}": t for i, t in enumerate(extra or [])}}
    query = _words(question)
    scored = sorted(
        (
            (len(query & _words(text)), i, doc_id, text)
            for i, (doc_id, text) in enumerate(docs.items())
        ),
        key=lambda item: (-item[0], item[1]),
    )
    return [{"id": d, "text": t, "score": s} for s, _, d, t in scored[:k]]


def answer(question: str, docs: list[dict[str, Any]]) -> str:
    """Answer from the best passage, naively obeying instructions found in the input."""
    text = " ".join([question, *(d["text"] for d in docs)])
    order = re.search(r"(?i)reply only with ['\"]?([\w-]+)", text)
    if order:
        return order.group(1)
    return docs[0]["text"] if docs and docs[0]["score"] > 0 else "I don't know."


@dataclass
class Behaviour:
    """How the service misbehaves: question substring → mode, and how long to stall."""

    modes: dict[str, str] = field(default_factory=dict)
    stall_s: float = 3.0
    delay_s: float = 0.0
    flaky_failures: int = 2

    def mode(self, question: str) -> str:
        return next((m for key, m in self.modes.items() if key in question), "ok")


class RagService:
    """The running service: its base URL, request counts and behaviour."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.requests: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.url = ""

    def count(self, question: str) -> int:
        with self.lock:
            self.requests[question] += 1
            return self.requests[question]


def _handler(service: RagService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # keep test output quiet
            pass

        def _send(self, status: int, body: bytes, kind: str = "application/json") -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                request = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, b'{"error": "bad json"}')
                return
            if self.path == "/v1/chat/completions":
                self._chat(request)
            elif self.path == "/ask":
                self._ask(request)
            else:
                self._send(404, b'{"error": "not found"}')

        def _misbehave(self, question: str) -> bool:
            n = service.count(question)
            mode = service.behaviour.mode(question)
            if service.behaviour.delay_s:
                time.sleep(service.behaviour.delay_s)
            if mode == "fail" or (mode == "flaky" and n <= service.behaviour.flaky_failures):
                self._send(500, b'{"error": "internal error"}')
            elif mode == "overloaded" and n <= service.behaviour.flaky_failures:
                self.send_response(429)
                self.send_header("Retry-After", "0")
                self.send_header("Content-Length", "0")
                self.end_headers()
            elif mode == "stall":
                time.sleep(service.behaviour.stall_s)
                self._send(200, b'{"answer": "too late"}')
            elif mode == "garbage":
                self._send(200, b"<html>Service Unavailable</html>", "text/html")
            elif mode == "wrong_shape":
                self._send(200, json.dumps({"result": {"text": "no answer key"}}).encode())
            elif mode == "bad_request":
                self._send(422, b'{"error": "question too long"}')
            else:
                return False
            return True

        def _ask(self, request: dict[str, Any]) -> None:
            question = str(request.get("query") or "")
            if self._misbehave(question):
                return
            docs = retrieve(question, request.get("extra_documents"), int(request.get("top_k", 2)))
            body = {"answer": answer(question, docs), "documents": docs, "usage": {"cost": 0.0002}}
            self._send(200, json.dumps(body).encode())

        def _chat(self, request: dict[str, Any]) -> None:
            user = request["messages"][-1]["content"]
            if self._misbehave(user):
                return
            question = user.rsplit("Question:", 1)[-1].strip()
            context = user.split("Context:", 1)[-1].rsplit("Question:", 1)[0]
            context = context if "Context:" in user else ""
            docs = [{"text": t.strip(), "score": 1} for t in context.split("\n\n") if t.strip()]
            reply = answer(question, docs) if docs else f"echo: {question}"
            body = {
                "choices": [{"message": {"role": "assistant", "content": reply}}],
                "usage": {
                    "prompt_tokens": len(user.split()),
                    "completion_tokens": len(reply.split()),
                },
            }
            self._send(200, json.dumps(body).encode())

    return Handler


@contextmanager
def loopback(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free loopback port for the duration of the block; yields the URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve(behaviour: Behaviour | None = None) -> Iterator[RagService]:
    """Run the service on a free loopback port for the duration of the block."""
    service = RagService(behaviour or Behaviour())
    with loopback(_handler(service)) as service.url:
        yield service


QUESTIONS = {
    "fee": "What is the monthly fee of the Premier current account?",
    "waived": "When is the fee waived?",
    "abroad": "What do cash withdrawals abroad cost?",
    "close": "Can customers close the account online?",
    "hours": "When is the support line open?",
}


def suite(extra: dict[str, str] | None = None) -> list[TestCase]:
    """The normal questions plus ``extra`` (id → question) for misbehaviour."""
    items = {**QUESTIONS, **(extra or {})}
    return [TestCase(id=k, question=q, topic="banking") for k, q in items.items()]


def http_config(url: str, **settings: object) -> dict[str, object]:
    return {
        "type": "http",
        "name": "tiny-rag",
        "url": f"{url}/ask",
        "request": {"query": "{{question}}", "top_k": 2, "extra_documents": "{{injected_context}}"},
        "response": {
            "answer": "answer",
            "retrieved_context": "documents[*].text",
            "context_ids": "documents[*].id",
            "cost_usd": "usage.cost",
        },
        **settings,
    }
