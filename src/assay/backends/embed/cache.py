"""Persistent and in-memory caching of embeddings, keyed by (model identity, text).

:class:`EmbeddingCache` is one SQLite file per model under a cache directory (WAL journal, so
any number of processes may read while one writes). :class:`CachedEmbedder` wraps a backend:
it deduplicates the texts of each call, answers from memory, then from disk, and only sends the
texts never seen before to the model.

Token embeddings are stored as float16 (4x smaller); they are rounded through float16 also when
freshly computed, so a cold run and a warm rerun give bit-identical scores.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.embed.base import DTYPE, Embedder
from assay.errors import BackendError
from assay.params import PickledAsParams

logger = logging.getLogger(__name__)

#: Environment variable: cache root (embeddings go under ``<root>/embeddings``).
CACHE_ENV = "ASSAY_CACHE_DIR"
#: Environment variable: set to ``off`` / ``0`` / ``false`` to disable the on-disk cache.
CACHE_SWITCH_ENV = "ASSAY_EMBED_CACHE"
_SQL_CHUNK = 500
_TOKEN_DTYPE = np.float16


def default_cache_dir() -> Path | None:
    """``$ASSAY_CACHE_DIR/embeddings``, else ``~/.cache/assay/embeddings``; None when disabled.

    Example:
        >>> import os
        >>> os.environ["ASSAY_CACHE_DIR"] = "/tmp/assay-cache"
        >>> str(default_cache_dir())
        '/tmp/assay-cache/embeddings'
        >>> del os.environ["ASSAY_CACHE_DIR"]
    """
    if os.environ.get(CACHE_SWITCH_ENV, "").strip().lower() in ("off", "0", "false", "no"):
        return None
    root = os.environ.get(CACHE_ENV)
    if root:
        return Path(root).expanduser() / "embeddings"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "assay" / "embeddings"


def text_key(text: str) -> bytes:
    """The 32-byte key of a text (sha256 of its UTF-8 bytes)."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def round_tokens(matrix: np.ndarray) -> np.ndarray:
    """Token rows rounded through the storage precision (float16), returned as float32."""
    return np.asarray(matrix, dtype=_TOKEN_DTYPE).astype(DTYPE)


class EmbeddingCache(PickledAsParams):
    """One SQLite database per model identity under ``directory``.

    Args:
        directory: where the database files live (created when needed).

    Example:
        >>> import tempfile
        >>> cache = EmbeddingCache(tempfile.mkdtemp())
        >>> cache.put("m1", [("hello", np.ones(3, dtype=np.float32), None)])
        >>> cache.get("m1", ["hello", "unknown"])["hello"][0].tolist()
        [1.0, 1.0, 1.0]
    """

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._connections: dict[str, sqlite3.Connection] = {}
        self._lock = threading.Lock()

    def path(self, model_id: str) -> Path:
        """The database file of ``model_id``."""
        safe = re.sub(r"[^A-Za-z0-9._@-]+", "_", model_id)[:120]
        digest = hashlib.sha256(model_id.encode()).hexdigest()[:8]
        return self.directory / f"{safe}-{digest}.sqlite3"

    def _connect(self, model_id: str) -> sqlite3.Connection:
        conn = self._connections.get(model_id)
        if conn is None:
            self.directory.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path(model_id), timeout=60, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS emb (key BLOB PRIMARY KEY, dim INTEGER NOT NULL, "
                "vec BLOB NOT NULL, tok BLOB)"
            )
            conn.commit()
            self._connections[model_id] = conn
        return conn

    def get(
        self, model_id: str, texts: Sequence[str], *, tokens: bool = False
    ) -> dict[str, tuple[np.ndarray, np.ndarray | None]]:
        """Cached ``(vector, tokens or None)`` of those ``texts`` that are stored.

        With ``tokens=True`` only entries that also hold token embeddings are returned.
        """
        keys = {text_key(t): t for t in texts}
        found: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
        if not keys:
            return found
        column = "tok" if tokens else "NULL"
        with self._lock:
            conn = self._connect(model_id)
            key_list = list(keys)
            for start in range(0, len(key_list), _SQL_CHUNK):
                chunk = key_list[start : start + _SQL_CHUNK]
                marks = ",".join("?" * len(chunk))
                query = f"SELECT key, dim, vec, {column} FROM emb WHERE key IN ({marks})"
                for key, dim, vec, tok in conn.execute(query, chunk):
                    if tokens and tok is None:
                        continue
                    matrix = (
                        np.frombuffer(tok, dtype=_TOKEN_DTYPE).reshape(-1, dim).astype(DTYPE)
                        if tok is not None
                        else None
                    )
                    found[keys[key]] = (np.frombuffer(vec, dtype=DTYPE).copy(), matrix)
        return found

    def put(
        self, model_id: str, items: Sequence[tuple[str, np.ndarray, np.ndarray | None]]
    ) -> None:
        """Store ``(text, vector, tokens or None)`` entries (an entry with tokens wins)."""
        if not items:
            return
        rows = [
            (
                text_key(text),
                int(vec.shape[-1]),
                np.asarray(vec, dtype=DTYPE).tobytes(),
                None if tok is None else np.asarray(tok, dtype=_TOKEN_DTYPE).tobytes(),
            )
            for text, vec, tok in items
        ]
        with self._lock:
            conn = self._connect(model_id)
            with conn:
                conn.executemany(
                    "INSERT INTO emb (key, dim, vec, tok) VALUES (?, ?, ?, ?) ON CONFLICT(key) "
                    "DO UPDATE SET tok = COALESCE(excluded.tok, emb.tok)",
                    rows,
                )

    def close(self) -> None:
        """Close the open database connections."""
        with self._lock:
            for conn in self._connections.values():
                conn.close()
            self._connections.clear()


class _Lru(OrderedDict[str, Any]):
    def __init__(self, maxsize: int) -> None:
        super().__init__()
        self.maxsize = maxsize

    def put(self, key: str, value: Any) -> None:
        self[key] = value
        if len(self) > self.maxsize:
            self.popitem(last=False)


class CachedEmbedder(PickledAsParams):
    """Deduplicating, memory- and disk-caching wrapper around an :class:`Embedder`.

    Args:
        backend: the embedder that computes vectors for unseen texts.
        cache: the on-disk cache, or None for memory only.
        memory_items: sentence vectors kept in memory (least recently used dropped first).
        memory_token_items: token matrices kept in memory.

    Example:
        >>> from assay.backends.embed.fake import FakeEmbedder
        >>> fake = FakeEmbedder()
        >>> cached = CachedEmbedder(fake, cache=None)
        >>> _ = cached.encode(["a b", "a b", "c d"]); _ = cached.encode(["a b"])
        >>> fake.texts_encoded  # each distinct text once
        2
    """

    def __init__(
        self,
        backend: Embedder,
        cache: EmbeddingCache | None = None,
        *,
        memory_items: int = 200_000,
        memory_token_items: int = 20_000,
    ) -> None:
        self.backend = backend
        self.cache = cache
        self.memory_items = memory_items
        self.memory_token_items = memory_token_items
        self._vectors = _Lru(memory_items)
        self._tokens = _Lru(memory_token_items)
        self._tokens_unsaved: set[str] = set()  # token matrices in memory, not yet on disk
        self._lock = threading.RLock()
        self.stats = {"memory": 0, "disk": 0, "computed": 0}

    @property
    def model_id(self) -> str:
        """The backend's identity."""
        return self.backend.model_id

    @property
    def token_limit(self) -> int | None:
        """The backend's input limit in tokens (``None`` when it does not say)."""
        return getattr(self.backend, "token_limit", None)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """The backend's token count of each text (call only when :attr:`token_limit` is set)."""
        return list(self.backend.count_tokens(texts))  # type: ignore[attr-defined]

    @property
    def has_tokens(self) -> bool:
        """Whether the backend gives token embeddings."""
        return hasattr(self.backend, "encode_with_tokens")

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised row per text; each distinct unseen text is computed once."""
        if not texts:
            return np.zeros((0, 0), dtype=DTYPE)
        with self._lock:
            vectors, _ = self._fill(texts, tokens=False)
        return np.stack([vectors[t] for t in texts]).astype(DTYPE, copy=False)

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Sentence rows and token matrices (raises :class:`BackendError` without token access)."""
        if not self.has_tokens:
            raise BackendError(f"the embedder {self.backend!r} gives no token embeddings")
        if not texts:
            return np.zeros((0, 0), dtype=DTYPE), []
        with self._lock:
            vectors, tokens = self._fill(texts, tokens=True)
        rows = np.stack([vectors[t] for t in texts]).astype(DTYPE, copy=False)
        return rows, [tokens[t] for t in texts]

    def encode_tokens(self, texts: Sequence[str]) -> list[np.ndarray]:
        """Token matrices only."""
        return self.encode_with_tokens(texts)[1]

    def _fill(
        self, texts: Sequence[str], *, tokens: bool
    ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        """Vectors (and token matrices when asked) of every distinct text: memory, disk, model.

        The model always returns token matrices with the vectors (one forward pass); they are
        kept in memory but written to disk only once some caller asks for them, so a run without
        token-level metrics stores about 1.5 KB per text instead of ~25 KB."""
        vectors: dict[str, np.ndarray] = {}
        token_map: dict[str, np.ndarray] = {}
        missing: list[str] = []
        to_persist: list[tuple[str, np.ndarray, np.ndarray | None]] = []
        for text in dict.fromkeys(texts):
            vec = self._vectors.get(text)
            tok = self._tokens.get(text) if tokens else None
            if vec is not None and (tok is not None or not tokens):
                vectors[text] = vec
                if tok is not None:
                    token_map[text] = tok
                    if text in self._tokens_unsaved:
                        to_persist.append((text, vec, tok))
                        self._tokens_unsaved.discard(text)
                self._vectors.move_to_end(text)
            else:
                missing.append(text)
        self.stats["memory"] += len(vectors)
        self._persist(to_persist)
        if not missing:
            return vectors, token_map
        model_id = self.model_id
        if self.cache is not None:
            found = self.cache.get(model_id, missing, tokens=tokens)
            for text, (vec, tok) in found.items():
                vectors[text] = vec
                self._vectors.put(text, vec)
                if tok is not None:
                    token_map[text] = tok
                    self._tokens.put(text, tok)
            self.stats["disk"] += len(found)
            missing = [t for t in missing if t not in found]
        if not missing:
            return vectors, token_map
        if self.has_tokens:
            rows, toks = self.backend.encode_with_tokens(missing)  # type: ignore[attr-defined]
            toks = [round_tokens(t) for t in toks]
        else:
            rows, toks = self.backend.encode(missing), [None] * len(missing)
        rows = np.asarray(rows, dtype=DTYPE)
        self.stats["computed"] += len(missing)
        self._keep(missing, rows, toks, persist_tokens=tokens)
        for text, vec, tok in zip(missing, rows, toks, strict=True):
            vectors[text] = vec
            if tok is not None:
                token_map[text] = tok
        return vectors, token_map

    def _keep(self, texts: Sequence[str], rows: np.ndarray,
              tokens: Sequence[np.ndarray | None], *, persist_tokens: bool) -> None:
        """Hold freshly computed entries in memory and write them to disk (token matrices
        only when ``persist_tokens``; otherwise once a caller asks for them)."""
        for text, vec, tok in zip(texts, rows, tokens, strict=True):
            self._vectors.put(text, vec)
            if tok is not None:
                self._tokens.put(text, tok)
                if not persist_tokens:
                    self._tokens_unsaved.add(text)
        self._persist([(t, v, k if persist_tokens else None)
                       for t, v, k in zip(texts, rows, tokens, strict=True)])
        if len(self._tokens_unsaved) > 2 * self.memory_token_items:  # forget evicted ones
            self._tokens_unsaved.intersection_update(self._tokens)

    def remember(self, texts: Sequence[str], rows: np.ndarray, tokens: Sequence[np.ndarray]
                 ) -> None:
        """Take vectors and token matrices of ``texts`` computed by this embedder's model in
        another caller's forward pass (a fine-tuned top layer's, which runs the layers below
        it once for both: :mod:`assay.backends.embed.top_layer`). Texts already in memory or
        on disk keep what they have, so a text's vector never changes once stored."""
        with self._lock:
            first = {text: i for i, text in reversed(list(enumerate(texts)))}
            new = [t for t in first if t not in self._vectors]
            if new and self.cache is not None:
                stored = self.cache.get(self.model_id, new)
                new = [t for t in new if t not in stored]
            if new:
                picked = [first[t] for t in new]
                self._keep(new, np.asarray(rows, dtype=DTYPE)[picked],
                           [round_tokens(tokens[i]) for i in picked], persist_tokens=False)

    def _persist(self, items: list[tuple[str, np.ndarray, np.ndarray | None]]) -> None:
        """Write entries to the disk cache; a read-only or full disk must not fail the run."""
        if self.cache is None or not items:
            return
        try:
            self.cache.put(self.model_id, items)
        except sqlite3.Error as exc:
            logger.warning("could not write to the embedding cache: %s", exc)

    def __repr__(self) -> str:
        return f"CachedEmbedder({self.backend!r})"
