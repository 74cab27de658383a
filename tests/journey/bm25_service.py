"""The system under test of the journey: BM25 over the corpus passages, on loopback.

A stdlib ``http.server`` in a thread. ``POST /ask`` with ``{"query": ...}`` returns the three best
passages by Okapi BM25 (k1 = 1.5, b = 0.75; written out here because it is twenty lines and no
BM25 package is a dependency) under the service's *own* ids (``json::1``: document stem and
paragraph number, not assay's chunk ids) and, as the answer, the best passage's sentence sharing
most words with the query. A query carrying a long base64 token gets it echoed back, as real
systems do with an attacker's payload.

``POST /v1/chat/completions`` is a *lazy judge* on the same server (OpenAI chat protocol): it
scores every answer 1.0 and, for one request in three (by a hash of the prompt, so a retry
fails again), writes prose instead of JSON, like a small local model. It exists to show that
assay flags such a judge instead of reporting "pass, CI [1, 1]".
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

_WORD = re.compile(r"[a-z0-9_]+")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_TOKEN = re.compile(r"[A-Za-z0-9+/]{24,}={0,2}")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@dataclass(frozen=True)
class Passage:
    """One paragraph of a corpus file, under the service's own id."""

    id: str
    text: str


def load_passages(corpus: Path) -> list[Passage]:
    """Paragraphs (not headings) of every Markdown file, ids ``<stem>::<n>``."""
    out = []
    for path in sorted(corpus.glob("*.md")):
        paragraphs = [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")]
        body = [p for p in paragraphs if p and not p.startswith("#")]
        out += [Passage(f"{path.stem}::{n}", text) for n, text in enumerate(body)]
    return out


class BM25:
    """Okapi BM25 over passages."""

    def __init__(self, passages: list[Passage], k1: float = 1.5, b: float = 0.75) -> None:
        self.passages, self.k1, self.b = passages, k1, b
        self.docs = [Counter(_words(p.text)) for p in passages]
        self.lengths = [sum(d.values()) for d in self.docs]
        self.avg = sum(self.lengths) / len(self.lengths)
        df = Counter(w for d in self.docs for w in d)
        n = len(self.docs)
        self.idf = {w: math.log(1 + (n - f + 0.5) / (f + 0.5)) for w, f in df.items()}

    def top(self, query: str, k: int = 3) -> list[Passage]:
        terms = _words(query)
        scores = []
        for doc, length in zip(self.docs, self.lengths, strict=True):
            norm = self.k1 * (1 - self.b + self.b * length / self.avg)
            scores.append(sum(self.idf.get(t, 0.0) * doc[t] * (self.k1 + 1) / (doc[t] + norm)
                              for t in terms if t in doc))
        order = sorted(range(len(scores)), key=lambda i: -scores[i])
        return [self.passages[i] for i in order[:k]]


def answer(index: BM25, query: str) -> dict[str, Any]:
    """The service's reply to ``query``."""
    found = index.top(query)
    token = _TOKEN.search(query)
    if token is not None:
        text = f"I will not decode or follow {token.group(0)}; it is not a question about the docs."
    else:
        wanted = set(_words(query))
        sentences = _SENTENCE.split(found[0].text)
        text = max(sentences, key=lambda s: len(wanted & set(_words(s))))
    return {"answer": text, "documents": [{"id": p.id, "text": p.text} for p in found]}


def lazy_judge(payload: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI chat completion: always score 1.0, prose for one prompt in three."""
    prompt = json.dumps(payload.get("messages"), sort_keys=True)
    if int(hashlib.sha256(prompt.encode()).hexdigest(), 16) % 3 == 0:
        text = "The answer looks fine to me."
    else:
        text = json.dumps({"score": 1.0, "reason": "looks right"})
    return {"id": "lazy", "object": "chat.completion", "model": "lazy-judge",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": 12,
                      "total_tokens": len(prompt) // 4 + 12}}


@contextmanager
def serve(corpus: Path) -> Iterator[str]:
    """Run the service on 127.0.0.1 and yield its base URL (``/ask``, ``/v1``)."""
    index = BM25(load_passages(corpus))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
            if self.path.endswith("/chat/completions"):
                data = json.dumps(lazy_judge(body)).encode()
            else:
                data = json.dumps(answer(index, str(body.get("query", "")))).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}"
    finally:
        server.shutdown()
        server.server_close()
