"""An on-disk cache of judge replies (SQLite), keyed by (model, messages, parameters).

A rerun over the same cases with the same judge settings reads every reply from here: it costs
nothing and returns the same numbers.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.backends.llm.protocol import JudgeRequest, JudgeResponse, Usage

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    usage_estimated INTEGER NOT NULL,
    finish_reason TEXT,
    created REAL NOT NULL
)
"""


def cache_key(model: str, request: JudgeRequest, settings: Mapping[str, Any]) -> str:
    """The sha256 of the canonical JSON of everything that can change the reply.

    Example:
        >>> request = JudgeRequest(messages=({"role": "user", "content": "hi"},))
        >>> key = cache_key("m", request, {"temperature": 0})
        >>> key == cache_key("m", request, {"temperature": 0})
        True
        >>> key == cache_key("m", request, {"temperature": 1})
        False

        A repeated judgement (``sample`` above 0) has a key of its own; the first keeps the key
        it had before repeats existed, so older caches still hit:

        >>> from dataclasses import replace
        >>> key == cache_key("m", replace(request, sample=1), {"temperature": 0})
        False
        >>> key == cache_key("m", replace(request, sample=0), {"temperature": 0})
        True
    """
    payload = {
        "model": model,
        "messages": request.wire_messages(),
        "max_tokens": request.max_tokens,
        "json_schema": request.json_schema,
        "settings": dict(settings),
    }
    if request.sample:
        payload["sample"] = request.sample
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class JudgeCache:
    """A thread-safe SQLite store of judge replies at ``path`` (created on first use).

    Example:
        >>> import tempfile, os
        >>> cache = JudgeCache(os.path.join(tempfile.mkdtemp(), "judge.sqlite"))
        >>> cache.put("k", JudgeResponse(text="{}", usage=Usage(3, 1), model="m"))
        >>> cache.get("k").cached, len(cache)
        (True, 1)
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30.0)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(_SCHEMA)
            conn.commit()
            self._conn = conn
        return self._conn

    def get(self, key: str) -> JudgeResponse | None:
        """The stored reply for ``key`` (marked ``cached``), or None."""
        with self._lock:
            row = (
                self._connection()
                .execute(
                    "SELECT model, text, prompt_tokens, completion_tokens, usage_estimated, "
                    "finish_reason FROM replies WHERE key = ?",
                    (key,),
                )
                .fetchone()
            )
        if row is None:
            return None
        model, text, prompt_tokens, completion_tokens, estimated, finish = row
        return JudgeResponse(
            text=text,
            usage=Usage(prompt_tokens, completion_tokens, bool(estimated)),
            model=model,
            cached=True,
            attempts=0,
            finish_reason=finish,
        )

    def put(self, key: str, response: JudgeResponse) -> None:
        """Store ``response`` under ``key`` (replacing any previous reply)."""
        with self._lock:
            conn = self._connection()
            conn.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    response.model,
                    response.text,
                    response.usage.prompt_tokens,
                    response.usage.completion_tokens,
                    int(response.usage.estimated),
                    response.finish_reason,
                    time.time(),
                ),
            )
            conn.commit()

    def __len__(self) -> int:
        with self._lock:
            (count,) = self._connection().execute("SELECT COUNT(*) FROM replies").fetchone()
        return int(count)

    def close(self) -> None:
        """Close the database connection (it reopens on next use)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __reduce__(self) -> tuple[type[JudgeCache], tuple[Path]]:
        return (JudgeCache, (self.path,))

    def __repr__(self) -> str:
        return f"JudgeCache({str(self.path)!r})"
