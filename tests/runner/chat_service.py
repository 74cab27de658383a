"""The chat bots of :mod:`.chat_bots` served on loopback over HTTP.

The service counts requests by ``(conversation id, user turns seen)``, so tests can check
that no completed turn is asked again after a resume. ``POST /chat`` takes
``{"messages", "conversation_id"}`` and answers ``{"reply"}``; ``POST /v1/chat/completions``
speaks the OpenAI chat protocol (the conversation is then named by its first user message) and
keeps every message list it received in ``histories``.
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
        self.histories: list[list[dict[str, str]]] = []
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
            asked = users(messages)
            with service.lock:
                service.requests[(request.get("conversation_id") or asked[0], len(asked))] += 1
                service.histories.append(messages)
            if service.delay_s:
                time.sleep(service.delay_s)
            reply = service.bot(messages)
            if self.path == "/v1/chat/completions":
                choice = {"message": {"role": "assistant", "content": reply}}
                body = json.dumps({"choices": [choice], "usage": {"prompt_tokens": 10}}).encode()
            else:
                body = json.dumps({"reply": reply}).encode()
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
