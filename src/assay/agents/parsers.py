"""Parse an artifact file by its type and say what is wrong with it.

Every parser returns a :class:`Parsed` record: the parsed value (structured types), row and page
counts where they apply, and a list of problems (empty when the file is fine). Nothing is ever
executed: Python files are parsed with :mod:`ast`, YAML with ``safe_load``.
"""

from __future__ import annotations

import ast
import csv
import io
import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.errors import MissingDependencyError, require
from assay.fileio import jsonl_lines

#: Files larger than this are checked for existence and size only.
MAX_PARSE_BYTES = 50_000_000


@dataclass
class Parsed:
    """What parsing one file found."""

    value: Any = None
    structured: bool = False
    rows: int | None = None
    columns: list[str] | None = None
    pages: int | None = None
    empty_pages: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _text(data: bytes, parsed: Parsed) -> str | None:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        parsed.problems.append(f"not valid UTF-8 text ({exc.reason} at byte {exc.start})")
        return None


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, str | list | dict) and not value)


def _document(
    parsed: Parsed,
    kind: str,
    load: Callable[[], Any],
    errors: type[Exception],
    describe: Callable[[Any], str],
) -> None:
    """Parse one whole document with ``load``; a parse error (``errors``, told by ``describe``)
    or an empty document is a problem."""
    try:
        parsed.value = load()
    except errors as exc:
        parsed.problems.append(f"invalid {kind}: {describe(exc)}")
        return
    parsed.structured = True
    if _is_empty(parsed.value):
        parsed.problems.append(f"the {kind} document is empty")


def _json(text: str, parsed: Parsed) -> None:
    _document(parsed, "JSON", lambda: json.loads(text), json.JSONDecodeError,
              lambda exc: f"{exc.msg} (line {exc.lineno}, column {exc.colno})")


def _jsonl(text: str, parsed: Parsed) -> None:
    rows: list[Any] = []
    for number, line in enumerate(jsonl_lines(text), start=1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError as exc:
            parsed.problems.append(f"invalid JSON on line {number}: {exc.msg}")
            return
    parsed.value, parsed.rows, parsed.structured = rows, len(rows), True
    if not rows:
        parsed.problems.append("no JSON lines")


def _yaml(text: str, parsed: Parsed) -> None:
    try:
        yaml: Any = require("yaml", extra="agents", package="pyyaml")
    except MissingDependencyError:
        parsed.notes.append("pyyaml is not installed: the YAML file was not parsed")
        return
    _document(parsed, "YAML", lambda: yaml.safe_load(text), yaml.YAMLError,
              lambda exc: " ".join(str(exc).split()))


def _toml(text: str, parsed: Parsed) -> None:
    _document(parsed, "TOML", lambda: tomllib.loads(text), tomllib.TOMLDecodeError, str)


def _csv(text: str, parsed: Parsed, delimiter: str) -> None:
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True))
    except csv.Error as exc:
        parsed.problems.append(f"invalid CSV: {exc}")
        return
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        parsed.problems.append("no header row")
        return
    header, body = rows[0], rows[1:]
    parsed.columns, parsed.rows = [h.strip() for h in header], len(body)
    ragged = [i for i, r in enumerate(body, start=2) if len(r) != len(header)]
    if ragged:
        shown = ", ".join(map(str, ragged[:5])) + (" ..." if len(ragged) > 5 else "")
        parsed.problems.append(f"rows with a different number of cells than the header "
                               f"({len(header)}): {shown}")
    if not body:
        parsed.problems.append("a header but no data rows")


def _python(text: str, parsed: Parsed) -> None:
    try:
        ast.parse(text)
    except SyntaxError as exc:
        parsed.problems.append(f"invalid Python: {exc.msg} (line {exc.lineno})")
    if not text.strip():
        parsed.problems.append("the file holds only whitespace")


def _pdf(path: Path, data: bytes, parsed: Parsed) -> None:
    if not data.startswith(b"%PDF-"):
        parsed.problems.append("not a PDF (no %PDF- header)")
        return
    try:
        pypdf: Any = require("pypdf", extra="generate")
    except MissingDependencyError:
        parsed.notes.append("pypdf is not installed: only the PDF header was checked")
        return
    try:
        reader = pypdf.PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            reader.decrypt("")
        texts = [page.extract_text() or "" for page in reader.pages]
    except Exception as exc:  # pypdf raises many types for broken files
        parsed.problems.append(f"unreadable PDF ({type(exc).__name__}: {exc})")
        return
    parsed.pages = len(texts)
    parsed.empty_pages = [i for i, t in enumerate(texts, start=1) if not t.strip()]
    if not texts:
        parsed.problems.append("the PDF has no pages")
    elif parsed.empty_pages:
        parsed.problems.append(f"empty page(s) without text: {parsed.empty_pages[:10]}")


def parse_file(path: Path, ftype: str) -> Parsed:
    """Read and parse ``path`` as ``ftype``; problems are listed, never raised.

    Example:
        >>> import tempfile
        >>> p = Path(tempfile.mkdtemp()) / "r.json"
        >>> _ = p.write_text('{"title": "x", ')
        >>> parse_file(p, "json").problems
        ['invalid JSON: Expecting property name enclosed in double quotes (line 1, column 16)']
    """
    parsed = Parsed()
    try:
        size = path.stat().st_size
    except OSError as exc:
        parsed.problems.append(f"cannot read: {exc.strerror}")
        return parsed
    if size == 0:
        parsed.problems.append("the file is empty (0 bytes)")
        return parsed
    if size > MAX_PARSE_BYTES or ftype == "any":
        if ftype != "any":
            parsed.notes.append(f"{size:,} bytes: too large to parse, only size checked")
        return parsed
    try:
        data = path.read_bytes()
    except OSError as exc:
        parsed.problems.append(f"cannot read: {exc.strerror}")
        return parsed
    if ftype == "pdf":
        _pdf(path, data, parsed)
        return parsed
    text = _text(data, parsed)
    if text is None:
        return parsed
    if not text.strip():
        parsed.problems.append("the file holds only whitespace")
        return parsed
    if ftype == "json":
        _json(text, parsed)
    elif ftype == "jsonl":
        _jsonl(text, parsed)
    elif ftype == "yaml":
        _yaml(text, parsed)
    elif ftype == "toml":
        _toml(text, parsed)
    elif ftype in ("csv", "tsv"):
        _csv(text, parsed, "," if ftype == "csv" else "\t")
    elif ftype == "python":
        _python(text, parsed)
    return parsed
