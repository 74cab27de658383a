"""Label storage: SQLite (a file in the run directory, WAL mode) or PostgreSQL (a URL).

Every write is one short transaction committed before the web request answers, so a killed
server loses nothing that was acknowledged. Schema changes are numbered migrations recorded in
``schema_migrations`` and applied under a lock, so two processes starting at once are safe.
SQL is written once with ``?`` placeholders and adapted to psycopg's ``%s``.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError, require
from assay.label.criteria import Criterion
from assay.label.migrations import MIGRATIONS

logger = logging.getLogger(__name__)

#: Default SQLite file name inside the run directory.
DEFAULT_DB = "labels.sqlite"
_POOL_SIZE = 8
_LOCK_KEY = 7_311_604_211  # PostgreSQL advisory lock id for migrations and queue assignment


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def hash_token(token: str) -> str:
    """sha256 of an access token (only the hash is stored).

    Example:
        >>> len(hash_token("abc"))
        64
    """
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def database_url(run_dir: str | Path, db: str | None) -> str:
    """The database URL to use: ``db`` when given, else the SQLite file in ``run_dir``.

    Example:
        >>> database_url("runs/x", None)
        'sqlite:///runs/x/labels.sqlite'
        >>> database_url("runs/x", "postgresql://u@localhost/labels")
        'postgresql://u@localhost/labels'
    """
    if db:
        return db if "://" in db else f"sqlite:///{db}"
    return f"sqlite:///{Path(run_dir) / DEFAULT_DB}"


class Store:
    """Annotators, criteria, items, leases and judgments in one SQL database.

    Args:
        url: ``sqlite:///path/to/file.sqlite`` or ``postgresql://user@host:port/db``.

    Example:
        >>> import tempfile, pathlib
        >>> store = Store(f"sqlite:///{pathlib.Path(tempfile.mkdtemp()) / 'l.sqlite'}")
        >>> store.migrate()
        >>> token = store.add_annotator("ada")
        >>> store.annotator_for_token(token)["name"]
        'ada'
    """

    def __init__(self, url: str) -> None:
        self.url = url
        self.path: Path | None = None
        self._idle: list[Any] = []  # reusable connections (a tiny pool)
        self._pool_lock = threading.Lock()
        if url.startswith("sqlite:///"):
            self.dialect = "sqlite"
            self.path = Path(url[len("sqlite:///") :])
        elif url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
            self.dialect = "postgresql"
            require("psycopg", extra="label")
        else:
            raise InvalidInputError(
                f"unsupported database URL {url!r}: use sqlite:///FILE or postgresql://..."
            )

    def __repr__(self) -> str:
        return f"Store({self.safe_url!r})"

    @property
    def safe_url(self) -> str:
        """The URL without its password (for logs and pages)."""
        if "@" in self.url and "://" in self.url:
            scheme, rest = self.url.split("://", 1)
            creds, host = rest.rsplit("@", 1)
            return f"{scheme}://{creds.split(':', 1)[0]}@{host}"
        return self.url

    # ----------------------------------------------------------------- connections
    def _connect(self) -> Any:
        if self.dialect == "sqlite":
            assert self.path is not None
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(
                self.path, timeout=30, isolation_level=None, check_same_thread=False
            )
            conn.execute("PRAGMA busy_timeout = 30000")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            return conn
        import psycopg

        url = self.url.replace("postgresql+psycopg://", "postgresql://", 1)
        return psycopg.connect(url, autocommit=True)

    @contextmanager
    def transaction(self, *, lock: bool = False) -> Iterator[_Tx]:
        """One committed transaction; ``lock`` serialises writers (queue assignment, migrations)."""
        with self._pool_lock:
            conn = self._idle.pop() if self._idle else None
        if conn is None:
            conn = self._connect()
        healthy = False
        try:
            if self.dialect == "sqlite":
                conn.execute("BEGIN IMMEDIATE" if lock else "BEGIN")
            else:
                conn.execute("BEGIN")
                if lock:
                    conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
            tx = _Tx(conn, self.dialect)
            try:
                yield tx
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            healthy = True
        finally:
            with self._pool_lock:
                if healthy and len(self._idle) < _POOL_SIZE:
                    self._idle.append(conn)
                    conn = None
            if conn is not None:
                conn.close()

    def close(self) -> None:
        """Close the pooled connections."""
        with self._pool_lock:
            idle, self._idle = self._idle, []
        for conn in idle:
            conn.close()

    # ----------------------------------------------------------------- schema
    def migrate(self) -> None:
        """Create or upgrade the schema; each migration is applied once, in order."""
        with self.transaction(lock=True) as tx:
            tx.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            done = {r[0] for r in tx.fetchall("SELECT version FROM schema_migrations")}
            for version, statements in enumerate(MIGRATIONS, start=1):
                if version in done:
                    continue
                for sql in statements:
                    tx.execute(sql.replace("{pk}", self._pk()))
                tx.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    (version, _now()),
                )
                logger.info("applied label-store migration %d", version)
            if tx.fetchone("SELECT value FROM meta WHERE key = 'secret'") is None:
                tx.execute(
                    "INSERT INTO meta (key, value) VALUES ('secret', ?)", (secrets.token_hex(32),)
                )

    def _pk(self) -> str:
        if self.dialect == "sqlite":
            return "INTEGER PRIMARY KEY AUTOINCREMENT"
        return "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"

    def schema_version(self) -> int:
        """The number of applied migrations."""
        with self.transaction() as tx:
            row = tx.fetchone("SELECT MAX(version) FROM schema_migrations")
        return int(row[0] or 0) if row else 0

    def meta(self, key: str) -> str | None:
        """A value from the ``meta`` table."""
        with self.transaction() as tx:
            row = tx.fetchone("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    def bind_run(self, fingerprint: str) -> None:
        """Record which run this database labels; refuse a database made for another run."""
        with self.transaction(lock=True) as tx:
            row = tx.fetchone("SELECT value FROM meta WHERE key = 'run'")
            if row is None:
                tx.execute("INSERT INTO meta (key, value) VALUES ('run', ?)", (fingerprint,))
            elif row[0] != fingerprint:
                raise InvalidInputError(
                    f"{self.safe_url} holds labels for another run (suite {row[0][:12]}…, this "
                    f"run's is {fingerprint[:12]}…); use a separate database (--db)"
                )

    # ----------------------------------------------------------------- annotators
    def add_annotator(self, name: str) -> str:
        """Create annotator ``name`` and return a new access token (only its hash is kept)."""
        name = name.strip()
        if not name or len(name) > 100:
            raise InvalidInputError("an annotator name must have 1 to 100 characters")
        token = secrets.token_urlsafe(24)
        with self.transaction(lock=True) as tx:
            if tx.fetchone("SELECT id FROM annotators WHERE name = ?", (name,)) is not None:
                raise InvalidInputError(
                    f"annotator {name!r} already exists (use 'assay labels reset-token')"
                )
            tx.execute(
                "INSERT INTO annotators (name, token_sha256, created_at) VALUES (?, ?, ?)",
                (name, hash_token(token), _now()),
            )
        return token

    def reset_token(self, name: str) -> str:
        """Give annotator ``name`` a new token (the old one stops working)."""
        token = secrets.token_urlsafe(24)
        with self.transaction(lock=True) as tx:
            n = tx.execute(
                "UPDATE annotators SET token_sha256 = ? WHERE name = ?", (hash_token(token), name)
            )
        if n == 0:
            raise InvalidInputError(f"no annotator named {name!r}")
        return token

    def annotator_for_token(self, token: str) -> dict[str, Any] | None:
        """The annotator (``id``, ``name``) holding ``token``, or None."""
        if not token:
            return None
        with self.transaction() as tx:
            row = tx.fetchone(
                "SELECT id, name FROM annotators WHERE token_sha256 = ?", (hash_token(token),)
            )
        return None if row is None else {"id": int(row[0]), "name": str(row[1])}

    def annotators(self) -> list[dict[str, Any]]:
        """Every annotator with their judgment and skip counts."""
        with self.transaction() as tx:
            rows = tx.fetchall(
                "SELECT a.id, a.name, a.created_at, "
                "COALESCE(SUM(CASE WHEN j.skipped = 0 THEN 1 ELSE 0 END), 0), "
                "COALESCE(SUM(CASE WHEN j.skipped = 1 THEN 1 ELSE 0 END), 0) "
                "FROM annotators a LEFT JOIN judgments j ON j.annotator_id = a.id "
                "GROUP BY a.id, a.name, a.created_at ORDER BY a.name"
            )
        return [
            {
                "id": int(r[0]),
                "name": r[1],
                "created_at": r[2],
                "labels": int(r[3]),
                "skipped": int(r[4]),
            }
            for r in rows
        ]

    # ----------------------------------------------------------------- criteria
    def set_criteria(self, criteria: Sequence[Criterion]) -> None:
        """Record the criteria (new ones are added; a changed scale is refused)."""
        with self.transaction(lock=True) as tx:
            for position, c in enumerate(criteria):
                row = tx.fetchone(
                    "SELECT kind, min_value, max_value FROM criteria WHERE name = ?", (c.name,)
                )
                if row is None:
                    tx.execute(
                        "INSERT INTO criteria (name, kind, min_value, max_value, position) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (c.name, c.kind, c.low, c.high, position),
                    )
                elif (row[0], row[1], row[2]) != (c.kind, c.low, c.high):
                    raise InvalidInputError(
                        f"criterion {c.name!r} is already recorded as {row[0]} {row[1]}-{row[2]} "
                        f"in {self.safe_url}; its scale cannot change"
                    )

    def criteria(self) -> list[Criterion]:
        """The recorded criteria in order."""
        with self.transaction() as tx:
            rows = tx.fetchall(
                "SELECT name, kind, min_value, max_value FROM criteria ORDER BY position, name"
            )
        return [Criterion(r[0], r[1], int(r[2]), int(r[3])) for r in rows]

    # ----------------------------------------------------------------- items and queue
    def sync_items(self, items: Sequence[tuple[str, str, int, str, bool]]) -> None:
        """Make ``items``, given as ``(case_id, model, priority, stratum, uncertain)``, the queue:
        insert or re-prioritise them; items not given stay recorded (with their labels) but are
        no longer served."""
        with self.transaction(lock=True) as tx:
            known = {
                (r[0], r[1]): int(r[2]) for r in tx.fetchall("SELECT case_id, model, id FROM items")
            }
            tx.execute("UPDATE items SET active = 0")
            for case_id, model, priority, stratum, uncertain in items:
                if (case_id, model) in known:
                    tx.execute(
                        "UPDATE items SET priority = ?, stratum = ?, uncertain = ?, active = 1 "
                        "WHERE id = ?",
                        (priority, stratum, int(uncertain), known[(case_id, model)]),
                    )
                else:
                    tx.execute(
                        "INSERT INTO items (case_id, model, priority, stratum, uncertain) "
                        "VALUES (?, ?, ?, ?, ?)",
                        (case_id, model, priority, stratum, int(uncertain)),
                    )

    def item(self, item_id: int) -> dict[str, Any] | None:
        """One item's key, stratum and uncertainty flag."""
        with self.transaction() as tx:
            row = tx.fetchone(
                "SELECT id, case_id, model, stratum, uncertain FROM items WHERE id = ?",
                (item_id,),
            )
        if row is None:
            return None
        return {
            "id": int(row[0]),
            "case_id": row[1],
            "model": row[2],
            "stratum": row[3],
            "uncertain": bool(row[4]),
        }

    def next_item(self, annotator_id: int, *, overlap: int, lease_s: float = 1200) -> int | None:
        """The item to show ``annotator_id`` next (leased to them), or None when done.

        The annotator's current lease comes first; otherwise the highest-priority item they have
        not judged or skipped whose labels plus other annotators' live leases are fewer than
        ``overlap``. Runs under the writer lock, so two annotators never take the last slot.
        """
        now = time.time()
        with self.transaction(lock=True) as tx:
            row = tx.fetchone(
                "SELECT a.item_id FROM assignments a WHERE a.annotator_id = ? "
                "AND a.expires_at > ? AND NOT EXISTS (SELECT 1 FROM judgments j "
                "WHERE j.item_id = a.item_id AND j.annotator_id = a.annotator_id) "
                "ORDER BY a.expires_at DESC LIMIT 1",
                (annotator_id, now),
            )
            if row is None:
                row = tx.fetchone(
                    "SELECT i.id FROM items i WHERE i.active = 1 AND NOT EXISTS (SELECT 1 "
                    "FROM judgments j "
                    "WHERE j.item_id = i.id AND j.annotator_id = ?) AND "
                    "(SELECT COUNT(*) FROM judgments j WHERE j.item_id = i.id AND j.skipped = 0)"
                    " + (SELECT COUNT(*) FROM assignments a WHERE a.item_id = i.id AND "
                    "a.annotator_id <> ? AND a.expires_at > ? AND NOT EXISTS (SELECT 1 FROM "
                    "judgments j2 WHERE j2.item_id = a.item_id AND j2.annotator_id = "
                    "a.annotator_id)) < ? ORDER BY i.priority, i.id LIMIT 1",
                    (annotator_id, annotator_id, now, overlap),
                )
            if row is None:
                return None
            item_id = int(row[0])
            tx.execute("DELETE FROM assignments WHERE annotator_id = ?", (annotator_id,))
            tx.execute(
                "INSERT INTO assignments (item_id, annotator_id, expires_at) VALUES (?, ?, ?)",
                (item_id, annotator_id, now + lease_s),
            )
        return item_id

    def submit(
        self,
        item_id: int,
        annotator_id: int,
        values: dict[str, int],
        comment: str = "",
        *,
        skipped: bool = False,
        require_lease: bool = False,
    ) -> None:
        """Record (or replace) one annotator's judgment of one item, committed on return.

        With ``require_lease`` (the web app) the item must have been leased to the annotator by
        :meth:`next_item`, or already judged by them (a revision): nobody labels items of their
        own choosing or beyond the overlap.
        """
        with self.transaction(lock=True) as tx:
            if tx.fetchone("SELECT id FROM items WHERE id = ?", (item_id,)) is None:
                raise InvalidInputError(f"no item {item_id}")
            row = tx.fetchone(
                "SELECT id FROM judgments WHERE item_id = ? AND annotator_id = ?",
                (item_id, annotator_id),
            )
            leased = tx.fetchone(
                "SELECT 1 FROM assignments WHERE item_id = ? AND annotator_id = ?",
                (item_id, annotator_id),
            )
            if require_lease and row is None and leased is None:
                raise InvalidInputError(
                    f"item {item_id} was not given to you; label the item the queue shows"
                )
            if row is None:
                row = tx.fetchone(
                    "INSERT INTO judgments (item_id, annotator_id, skipped, comment, created_at) "
                    "VALUES (?, ?, ?, ?, ?) RETURNING id",
                    (item_id, annotator_id, int(skipped), comment, _now()),
                )
            else:
                tx.execute(
                    "UPDATE judgments SET skipped = ?, comment = ?, created_at = ? WHERE id = ?",
                    (int(skipped), comment, _now(), row[0]),
                )
                tx.execute("DELETE FROM judgment_values WHERE judgment_id = ?", (row[0],))
            assert row is not None
            for criterion, value in values.items():
                tx.execute(
                    "INSERT INTO judgment_values (judgment_id, criterion, value) VALUES (?, ?, ?)",
                    (row[0], criterion, int(value)),
                )
            tx.execute(
                "DELETE FROM assignments WHERE item_id = ? AND annotator_id = ?",
                (item_id, annotator_id),
            )

    # ----------------------------------------------------------------- reading labels
    def judgments(self) -> list[dict[str, Any]]:
        """Every non-skipped judgment value: ``case_id, model, annotator, criterion, value,
        comment, created_at``."""
        with self.transaction() as tx:
            rows = tx.fetchall(
                "SELECT i.case_id, i.model, a.name, v.criterion, v.value, j.comment, j.created_at "
                "FROM judgments j JOIN items i ON i.id = j.item_id "
                "JOIN annotators a ON a.id = j.annotator_id "
                "JOIN judgment_values v ON v.judgment_id = j.id WHERE j.skipped = 0 "
                "ORDER BY i.case_id, i.model, a.name, v.criterion"
            )
        keys = ("case_id", "model", "annotator", "criterion", "value", "comment", "created_at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def progress(self, overlap: int) -> dict[str, Any]:
        """Item counts: total, with at least one label, with ``overlap`` labels, skipped."""
        with self.transaction() as tx:
            total = tx.fetchone("SELECT COUNT(*) FROM items WHERE active = 1")
            rows = tx.fetchall(
                "SELECT item_id, COUNT(*) FROM judgments WHERE skipped = 0 GROUP BY item_id"
            )
            uncertain = tx.fetchone("SELECT COUNT(*) FROM items WHERE uncertain = 1 AND active = 1")
        counts = [int(r[1]) for r in rows]
        return {
            "items": int(total[0]) if total else 0,
            "uncertain": int(uncertain[0]) if uncertain else 0,
            "labelled": len(counts),
            "complete": sum(c >= overlap for c in counts),
            "labels": sum(counts),
        }


class _Tx:
    """A connection inside a transaction, with ``?`` placeholders for both dialects."""

    def __init__(self, conn: Any, dialect: str) -> None:
        self.conn = conn
        self.dialect = dialect

    def _sql(self, sql: str) -> str:
        return sql if self.dialect == "sqlite" else sql.replace("?", "%s")

    def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cursor = self.conn.execute(self._sql(sql), tuple(params))
        return int(cursor.rowcount or 0)

    def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(self._sql(sql), tuple(params)).fetchone()

    def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(self.conn.execute(self._sql(sql), tuple(params)).fetchall())
