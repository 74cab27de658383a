"""The chat bots of :mod:`.chat_bots` served on loopback over HTTP.

The service counts requests by ``(conversation id, user turns seen)``, so tests can check
that no completed turn is asked again after a resume.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler
from typing import Any

from .chat_bots import BOTS, users
from .rag_service import loopback


class ChatService:
    """The running service: its URL and request counts by (conversation, user turns seen)."""

    def __init__(self, bot: str, delay_s: float) -> None:
        self.bot = BOTS[bot]
        self.delay_s = delay_s
        self.requests: Counter[tuple[str, int]] = Counter()
        self.lock = threading.Lock()
        self.url = ""


def _handler(service: ChatService) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            request = json.loads(self.rfile.read(length) or b"{}")
            messages = request["messages"]
            with service.lock:
                service.requests[(request["conversation_id"], len(users(messages)))] += 1
            if service.delay_s:
                time.sleep(service.delay_s)
            body = json.dumps({"reply": service.bot(messages)}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)

    return Handler


@contextmanager
def serve_chat(bot: str = "steadfast", delay_s: float = 0.0) -> Iterator[ChatService]:
    """Serve ``bot`` on a free loopback port for the duration of the block."""
    service = ChatService(bot, delay_s)
    with loopback(_handler(service)) as service.url:
        yield service


def chat_config(url: str, **settings: object) -> dict[str, object]:
    """An ``http`` target config that sends the history as ``messages``."""
    return {
        "type": "http",
        "name": "chat-bot",
        "url": f"{url}/chat",
        "request": {"messages": "{{messages}}", "conversation_id": "{{id}}"},
        "response": {"answer": "reply"},
        **settings,
    }
