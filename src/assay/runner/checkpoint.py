"""An append-only, fsync'd JSONL log of finished cases, so an interrupted run resumes.

The first line is a header naming the target; every further line is one finished case (answered
or failed) with a fingerprint of the input it answered. On resume a record is reused only when
the fingerprint still matches the input case, so an edited suite is never answered from stale
records. A line cut short by a crash is ignored.

A conversation also writes a *partial* record after each completed turn (``"partial": true``,
the case holding the turns so far); an interrupted conversation resumes from its latest partial
record, so no answered turn is asked again (see docs/design/0022-conversations.md).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from assay.data.case import TestCase
from assay.errors import InvalidInputError, RunDirectoryError
from assay.fileio import jsonl_lines

logger = logging.getLogger(__name__)

_FORMAT = "assay-run-checkpoint/1"


def fingerprint(case: TestCase) -> str:
    """A short hash of the input a case is answered from (id, question, context, metadata, and
    the conversation fields when set).

    Example:
        >>> a, b = TestCase(id="1", question="a"), TestCase(id="1", question="b")
        >>> fingerprint(a) == fingerprint(b)
        False
    """
    fields = {"id", "question", "retrieved_context", "context_ids", "metadata"}
    # conversation fields only when set, so single-turn checkpoints keep their fingerprints
    fields |= {f for f in ("turns", "scenario", "expected_outcome") if getattr(case, f)}
    data = case.model_dump(include=fields)
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class Checkpoint:
    """The checkpoint file of one run.

    Example:
        >>> import tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.checkpoint.jsonl"
        >>> source = TestCase(id="q1", question="Fee?")
        >>> with Checkpoint(path, target="rag") as log:
        ...     log.append(source, source.model_copy(update={"actual_answer": "12 euros"}))
        >>> Checkpoint(path, target="rag").load([source])["q1"].actual_answer
        '12 euros'
    """

    def __init__(self, path: str | os.PathLike[str], *, target: str) -> None:
        self.path = Path(path)
        self.target = target
        self._handle: IO[str] | None = None
        self._lock = threading.Lock()
        #: Conversations in progress: the latest partial record by input case id (set by load).
        self.partial: dict[str, TestCase] = {}

    def load(self, cases: list[TestCase]) -> dict[str, TestCase]:
        """Finished results by input case id, for the ``cases`` whose input is unchanged; the
        latest partial record of each conversation goes to :attr:`partial`."""
        self.partial = {}
        if not self.path.is_file():
            return {}
        wanted = {case.id: fingerprint(case) for case in cases}
        done: dict[str, TestCase] = {}
        stale = 0
        lines = jsonl_lines(self.path.read_text(encoding="utf-8"))
        for number, line in enumerate(lines, start=1):
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                if number == len(lines):  # cut short by a crash mid-write
                    logger.warning("%s: ignoring a truncated last line", self.path)
                    continue
                raise InvalidInputError(f"{self.path}: row {number}: invalid JSON") from None
            if number == 1:
                self._check_header(record)
                continue
            try:
                key, print_, case = record["input_id"], record["fingerprint"], record["case"]
                result = TestCase.model_validate(case)
            except (KeyError, TypeError, ValidationError) as exc:
                raise InvalidInputError(
                    f"{self.path}: row {number}: not a checkpoint record ({exc})"
                ) from None
            if wanted.get(key) != print_:
                stale += 1
            elif record.get("partial"):
                self.partial[key] = result
            else:
                done[key] = result
        if stale:
            logger.warning("%s: %d records do not match the suite and are redone", self.path, stale)
        return done

    def _check_header(self, record: Any) -> None:
        if not isinstance(record, dict) or record.get("format") != _FORMAT:
            raise InvalidInputError(f"{self.path}: row 1: not an assay run checkpoint")
        if record.get("target") != self.target:
            raise InvalidInputError(
                f"{self.path}: the checkpoint belongs to target {record.get('target')!r}, not "
                f"{self.target!r}; delete it or choose another --checkpoint"
            )

    def __enter__(self) -> Checkpoint:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.is_file():
            self._drop_partial_line()
        new = not self.path.is_file() or self.path.stat().st_size == 0
        self._handle = self.path.open("a", encoding="utf-8")
        if new:
            self._write({"format": _FORMAT, "target": self.target})
        return self

    def _drop_partial_line(self) -> None:
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.path.open("r+b") as handle:
                handle.truncate(data.rfind(b"\n") + 1)

    def append(self, source: TestCase, result: TestCase, *, partial: bool = False) -> None:
        """Record that ``source`` finished with ``result`` (durable once this returns); with
        ``partial``, that a conversation reached ``result`` (its turns so far). Thread-safe."""
        record: dict[str, Any] = {"input_id": source.id, "fingerprint": fingerprint(source)}
        if partial:
            record["partial"] = True
        record["case"] = result.model_dump(mode="json", exclude_none=True)
        self._write(record)

    def _write(self, record: dict[str, Any]) -> None:
        if self._handle is None:
            raise RuntimeError("Checkpoint.append() outside a 'with' block")
        with self._lock:
            self._write_locked(self._handle, record)

    def _write_locked(self, handle: IO[str], record: dict[str, Any]) -> None:
        try:
            handle.write(json.dumps(record, ensure_ascii=False, allow_nan=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        except OSError as exc:  # disk full, quota, I/O error: stop with what is recorded kept
            raise RunDirectoryError(
                f"{self.path}: cannot write the checkpoint ({exc.strerror or exc}); the answers "
                "recorded so far are kept (a partly written last line is dropped on resume): "
                "free space and run the same command again to resume"
            ) from None

    def __exit__(self, *exc: object) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
