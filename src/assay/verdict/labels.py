"""Human labels for the verdict: read from the suite's ``labels`` field or from a labels file."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError

_TRUE = {"1", "true", "yes", "pass", "correct", "grounded", "y"}
_FALSE = {"0", "false", "no", "fail", "incorrect", "n"}
#: Columns of a labels file that are not criteria.
_KEY_COLUMNS = {"id", "case_id", "model", "annotator", "notes", "comment"}

Key = tuple[str, str]


def to_pass(value: Any, where: str) -> int | None:
    """A label value as 1 (PASS) / 0 (FAIL); None when empty. Graded labels are not accepted here.

    Example:
        >>> to_pass("pass", "x"), to_pass(0, "x"), to_pass("", "x")
        (1, 0, None)
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int | float) and value in (0, 1):
        return int(value)
    text = str(value).strip().lower()
    if text in _TRUE:
        return 1
    if text in _FALSE:
        return 0
    raise InvalidInputError(f"{where}: a label must be 1/0, true/false or pass/fail; got {value!r}")


def labels_from_cases(cases: Iterable[Any], criteria: set[str]) -> dict[str, dict[Key, int]]:
    """Criterion → (case id, model) → PASS (1) / FAIL (0), from the cases' ``labels`` field."""
    out: dict[str, dict[Key, int]] = {c: {} for c in criteria}
    for case in cases:
        for criterion in criteria:
            if criterion in case.labels:
                where = f"case {case.id!r} (model {case.model!r}), labels.{criterion}"
                value = to_pass(case.labels[criterion], where)
                if value is not None:
                    out[criterion][(case.id, str(case.model))] = value
    return out


def labels_from_file(path: Path, criteria: set[str]) -> dict[str, dict[Key, int]]:
    """Criterion → (case id, model) → PASS / FAIL, from a CSV or JSONL labels file.

    The file has ``id`` (or ``case_id``), ``model`` and one column per criterion; the last row of a
    (case, model) wins (a re-label replaces the earlier one).
    """
    if not path.is_file():
        raise InvalidInputError(f"{path}: labels file not found")
    rows: list[dict[str, Any]]
    try:
        if path.suffix.lower() in (".jsonl", ".ndjson"):
            with path.open(encoding="utf-8") as handle:
                rows = [json.loads(line) for line in handle if line.strip()]
        else:
            with path.open(encoding="utf-8", newline="") as handle:
                rows = list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{path}: cannot read the labels: {exc}") from exc
    out: dict[str, dict[Key, int]] = {c: {} for c in criteria}
    for number, row in enumerate(rows, start=2 if path.suffix.lower() == ".csv" else 1):
        case_id = row.get("id", row.get("case_id"))
        if not case_id:
            raise InvalidInputError(f"{path}, row {number}: field 'id': missing")
        for criterion in criteria & set(row):
            where = f"{path}, row {number}, field {criterion!r}"
            value = to_pass(row[criterion], where)
            if value is not None:
                out[criterion][(str(case_id), str(row.get("model") or "None"))] = value
    return out


def labels_from_store(run_dir: Path, criteria: set[str]) -> dict[str, dict[Key, int]]:
    """Criterion → (case id, model) → majority PASS / FAIL of the labeling app's store of a run.

    Ties are left out. Only binary criteria are read (a graded criterion cannot be a PASS label).
    """
    from assay.label.export import label_frame
    from assay.label.store import Store, database_url

    out: dict[str, dict[Key, int]] = {c: {} for c in criteria}
    if not (run_dir / "labels.sqlite").is_file():
        return out
    store = Store(database_url(run_dir, None))
    try:
        known = {c.name for c in store.criteria()}
        wanted = sorted(criteria & known)
        judgments = store.judgments()
    finally:
        store.close()
    if not wanted or not judgments:
        return out
    frame, _ = label_frame(judgments, wanted)
    for row in frame.to_dict("records"):
        for criterion in wanted:
            where = f"{run_dir}/labels.sqlite, case {row['id']!r}, criterion {criterion!r}"
            value = (
                to_pass(row.get(criterion), where)
                if row.get(criterion) == row.get(criterion)
                else None
            )
            if value is not None:
                out[criterion][(str(row["id"]), str(row["model"]))] = value
    return out


def label_columns(path: Path) -> set[str]:
    """The criterion columns of a labels file (for messages)."""
    if path.suffix.lower() == ".csv" and path.is_file():
        with path.open(encoding="utf-8", newline="") as handle:
            return set(next(csv.reader(handle), [])) - _KEY_COLUMNS
    return set()
