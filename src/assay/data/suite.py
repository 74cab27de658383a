"""The :class:`TestSuite` and its readers and writers (JSONL, JSON, CSV, Parquet).

Readers validate every row and report *all* problems at once, each naming the file, the row
(1-based, as a person counts lines or records) and the field. Columns that are not fields of
:class:`~assay.data.case.TestCase` are kept in ``metadata``.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from assay.data.case import CASE_FIELDS, MAX_DEPTH, TestCase
from assay.data.suite_parquet import ParquetSuiteWriter, flat_records, parquet_records, unflatten
from assay.errors import InvalidInputError
from assay.fileio import atomic_path, sha256_file

FORMATS = ("jsonl", "json", "csv", "parquet")
_MAX_REPORTED_ERRORS = 50
#: Cases per chunk of :func:`iter_suite`.
CHUNK_SIZE = 8192


class TestSuite:
    """An ordered collection of :class:`TestCase` with unique ``(id, model)`` keys.

    Example:
        >>> suite = TestSuite([TestCase(id="q1", model="a"), TestCase(id="q1", model="b")])
        >>> len(suite), suite.models
        (2, ['a', 'b'])
    """

    __test__ = False

    def __init__(
        self,
        cases: Iterable[TestCase],
        *,
        source: str | None = None,
        sha256: str | None = None,
    ) -> None:
        self.cases: list[TestCase] = list(cases)
        self.source = source
        self.sha256 = sha256
        seen: dict[tuple[str, str], int] = {}
        for row, case in enumerate(self.cases, start=1):
            first = seen.setdefault(case.key, row)
            if first != row:
                raise InvalidInputError(_duplicate(case, row, first, source))

    def __len__(self) -> int:
        return len(self.cases)

    def __iter__(self) -> Iterator[TestCase]:
        return iter(self.cases)

    def __getitem__(self, index: int) -> TestCase:
        return self.cases[index]

    @property
    def models(self) -> list[str]:
        """Distinct model names in order of first appearance (``""`` for unnamed)."""
        return list(dict.fromkeys(case.model or "" for case in self.cases))

    def to_records(self) -> list[dict[str, Any]]:
        """Return the cases as plain dictionaries (unset optional fields omitted)."""
        return [case.model_dump(exclude_none=True) for case in self.cases]


def _json_safe(value: Any) -> Any:
    return None if isinstance(value, float) and math.isnan(value) else value


def _record_to_case(
    record: dict[str, Any], row: int, source: str, *, nan_is_empty: bool = False
) -> TestCase:
    """Validate one record; ``nan_is_empty`` for tables (CSV / Parquet: an empty cell reads as
    NaN). In JSON a NaN is a value the sanitiser refuses, never silently dropped."""
    fields = {
        k: _json_safe(v) if nan_is_empty else v for k, v in record.items() if k in CASE_FIELDS
    }
    extra = {k: v for k, v in record.items() if k not in CASE_FIELDS}
    if extra:
        fields["metadata"] = {**(fields.get("metadata") or {}), **extra}
    for key in ("labels", "metadata"):
        if fields.get(key) is None:
            fields.pop(key, None)
    try:
        case = TestCase.model_validate(fields)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            problems.append(f"{source}: row {row}, {_location(err['loc'])}: {err['msg']}")
        raise InvalidInputError("\n".join(problems)) from None
    _check_condition(case, row, source)
    return case


def _check_condition(case: TestCase, row: int, source: str) -> None:
    """Refuse a condition that does not parse (a file's condition is checked when it is read,
    not found unusable case by case while scoring)."""
    if not case.condition or not case.condition.strip():
        return
    from assay.matching import ConditionSyntaxError, compile_condition

    try:
        compile_condition(case.condition)
    except ConditionSyntaxError as exc:
        raise InvalidInputError(f"{source}: row {row}, field 'condition': {exc}") from None


def _location(loc: tuple[int | str, ...]) -> str:
    """Name the place of a validation error: a turn or step (1-based) and the field.

    Example:
        >>> _location(("turns", 2, "content"))
        "turn 3, field 'content'"
        >>> _location(("trajectory", "steps", 0, "name"))
        "trajectory step 1, field 'name'"
        >>> _location(("question",))
        "field 'question'"
    """
    parts = list(loc)
    where = ""
    if len(parts) >= 2 and parts[0] == "turns" and isinstance(parts[1], int):
        where, parts = f"turn {parts[1] + 1}, ", parts[2:] or ["turns"]
    elif len(parts) >= 3 and parts[0] == "trajectory" and isinstance(parts[2], int):
        kind = "step" if parts[1] == "steps" else "expected call"
        where, parts = f"trajectory {kind} {parts[2] + 1}, ", parts[3:] or [parts[1]]
    field = ".".join(str(part) for part in parts) or "<row>"
    return f"{where}field {field!r}"


def _decode(path: Path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InvalidInputError(
            f"{path}: row {line}: invalid UTF-8 at byte {exc.start} ({exc.reason}); "
            "save the file as UTF-8"
        ) from None


def _unreadable(exc: Exception) -> str:
    """Why the JSON parser gave up, in the suite's terms (not the interpreter's)."""
    if isinstance(exc, RecursionError):
        return f"nested deeper than the {MAX_DEPTH} levels a case may have"
    return str(exc)


def _jsonl_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Records of a JSON Lines file, read line by line (the file is never held whole).

    Lines are split at ``b"\\n"`` only, as :func:`~assay.fileio.jsonl_lines` does on text.
    """
    offset = 0
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if number == 1 else "utf-8").removesuffix("\n")
            except UnicodeDecodeError as exc:
                raise InvalidInputError(
                    f"{path}: row {number}: invalid UTF-8 at byte {offset + exc.start} "
                    f"({exc.reason}); save the file as UTF-8"
                ) from None
            offset += len(raw)
            line = line.removesuffix("\r")
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"{path}: row {number}: invalid JSON: {exc.msg}") from None
            except (RecursionError, ValueError) as exc:  # hostile depth; a 5,000-digit number
                raise InvalidInputError(f"{path}: row {number}: unreadable JSON: "
                                        f"{_unreadable(exc)}") from None
            if not isinstance(record, dict):
                raise InvalidInputError(f"{path}: row {number}: expected a JSON object per line")
            yield number, record


def _json_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        data = json.loads(_decode(path))
    except json.JSONDecodeError as exc:
        raise InvalidInputError(f"{path}: row {exc.lineno}: invalid JSON: {exc.msg}") from None
    except (RecursionError, ValueError) as exc:  # hostile depth; a 5,000-digit number
        raise InvalidInputError(f"{path}: unreadable JSON: {_unreadable(exc)}") from None
    if isinstance(data, dict) and isinstance(data.get("cases"), list):
        data = data["cases"]
    if not isinstance(data, list):
        raise InvalidInputError(f"{path}: expected a JSON list of cases or {{'cases': [...]}}")
    for number, record in enumerate(data, start=1):
        if not isinstance(record, dict):
            raise InvalidInputError(f"{path}: row {number}: expected a JSON object")
        yield number, record


def _csv_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.DictReader(io.StringIO(_decode(path), newline=""))
    if not reader.fieldnames:
        return
    for number, record in enumerate(reader, start=2):  # row 1 is the header
        if None in record:
            raise InvalidInputError(f"{path}: row {number}: more values than header columns")
        yield number, unflatten(dict(record), number, str(path), empty_is_missing=True)


_READERS = {
    "jsonl": _jsonl_records,
    "json": _json_records,
    "csv": _csv_records,
    "parquet": parquet_records,
}


def detect_format(path: str | os.PathLike[str]) -> str:
    """Return the suite format implied by the file extension."""
    suffix = Path(path).suffix.lower().lstrip(".")
    fmt = {"ndjson": "jsonl", "pq": "parquet"}.get(suffix, suffix)
    if fmt not in FORMATS:
        raise InvalidInputError(
            f"{path}: unknown suite format {suffix!r}; expected one of {', '.join(FORMATS)}"
        )
    return fmt


def read_suite(path: str | os.PathLike[str], *, fmt: str | None = None) -> TestSuite:
    """Read and validate a suite; every invalid row is reported in one error.

    Args:
        path: A ``.jsonl``, ``.json``, ``.csv`` or ``.parquet`` file.
        fmt: Force a format instead of inferring it from the extension.

    Raises:
        InvalidInputError: naming the file, row and field of each problem.
    """
    file = Path(path)
    cases = [case for chunk in iter_suite(file, fmt=fmt) for case in chunk]
    return TestSuite(cases, source=str(file), sha256=sha256_file(file))


def iter_suite(
    path: str | os.PathLike[str],
    *,
    fmt: str | None = None,
    chunk_size: int = CHUNK_SIZE,
    keys_unique: bool = False,
) -> Iterator[list[TestCase]]:
    """Validated cases of a suite file, ``chunk_size`` at a time, without holding the suite.

    JSON Lines and Parquet files are read incrementally (JSON and CSV are parsed whole, then
    validated chunk by chunk). Once a row is invalid nothing more is yielded: the remaining rows
    are still checked and one :class:`InvalidInputError` names every problem, at the end, as
    :func:`read_suite` does; a repeated ``(id, model)`` key is one of them, unless
    ``keys_unique`` says the file's keys are known to be unique (a run directory's copy, staged
    from a checked suite): finding repeats registers every key, ~200 bytes a case held until the
    file is read (~200 MB at a million cases, scattered among the heap's pages).

    Example:
        >>> import tempfile
        >>> path = Path(tempfile.mkdtemp()) / "s.jsonl"
        >>> _ = path.write_text('{"id": "a"}\\n{"id": "b"}\\n{"id": "c"}\\n')
        >>> [[case.id for case in chunk] for chunk in iter_suite(path, chunk_size=2)]
        [['a', 'b'], ['c']]
    """
    file = Path(path)
    if not file.is_file():
        raise InvalidInputError(f"{file}: no such file")
    fmt = fmt or detect_format(file)
    seen: dict[tuple[str, str], int] = {}
    chunk: list[TestCase] = []
    problems: list[str] = []
    read = 0
    for row, record in _READERS[fmt](file):
        read += 1
        try:
            case = _record_to_case(record, row, str(file), nan_is_empty=fmt in ("csv", "parquet"))
        except InvalidInputError as exc:
            problems.append(str(exc))
            continue
        first = row if keys_unique else seen.setdefault(case.key, row)
        if first != row:
            problems.append(_duplicate(case, row, first, str(file)))
        elif not problems:
            chunk.append(case)
            if len(chunk) >= chunk_size:
                yield chunk
                chunk = []
    if problems:
        shown = problems[:_MAX_REPORTED_ERRORS]
        more = len(problems) - len(shown)
        suffix = f"\n... and {more} more invalid rows" if more else ""
        raise InvalidInputError(
            f"{file}: {len(problems)} invalid rows:\n" + "\n".join(shown) + suffix
        )
    if not read:
        raise InvalidInputError(f"{file}: the file holds no test cases")
    if chunk:
        yield chunk


def _duplicate(case: TestCase, row: int, first: int, source: str | None) -> str:
    """The message of a repeated ``(id, model)`` key."""
    where = f"{source}: " if source else ""
    return (
        f"{where}row {row}, field 'id': duplicate case id {case.id!r} for model "
        f"{case.model!r} (first seen at row {first})"
    )


def write_suite(
    suite: TestSuite | Sequence[TestCase], path: str | os.PathLike[str], *, fmt: str | None = None
) -> Path:
    """Write a suite atomically in the format implied by the extension (or ``fmt``)."""
    cases = list(suite)
    target = Path(path)
    fmt = fmt or detect_format(target)
    with atomic_path(target) as tmp:
        if fmt == "jsonl":
            with tmp.open("w", encoding="utf-8") as handle:
                for case in cases:
                    handle.write(case.model_dump_json(exclude_none=True) + "\n")
        elif fmt == "json":
            records = [case.model_dump(exclude_none=True) for case in cases]
            tmp.write_text(json.dumps(records, indent=2, ensure_ascii=False), encoding="utf-8")
        elif fmt == "csv":
            with tmp.open("w", encoding="utf-8", newline="") as handle:
                writer = csv.DictWriter(handle, fieldnames=list(CASE_FIELDS))
                writer.writeheader()
                writer.writerows(flat_records(cases))
        else:
            with ParquetSuiteWriter(tmp) as parquet:
                parquet.write(cases)
    return target
