"""Human labels for the verdict, with their design: from the suite's ``labels`` field, a labels
file or the labeling app's store (:func:`label_evidence`)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import InvalidInputError
from assay.verdict.design import RANDOM, UNKNOWN, DesignRound, Draw, LabelRecord

if TYPE_CHECKING:
    from assay.verdict.plan import ValidationPlan

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


@dataclass
class LabelEvidence:
    """Every label the plan's sources give, per criterion, and the design rounds that drew them.

    Attributes:
        records: criterion → (case id, system) → the label and its design (later sources override
            earlier ones for the same case).
        rounds: the design rounds (``random`` outside sources first, then the store's rounds), in
            the order drawn.
    """

    records: dict[str, dict[Key, LabelRecord]] = field(default_factory=dict)
    rounds: list[DesignRound] = field(default_factory=list)

    def values(self, criterion: str) -> dict[Key, int]:
        """(case id, system) → 1 PASS / 0 FAIL for one criterion."""
        return {key: record.value for key, record in self.records.get(criterion, {}).items()}

    def rounds_for(self, criterion: str) -> list[DesignRound]:
        """The design rounds drawn for one criterion, in order."""
        return [r for r in self.rounds if r.criterion == criterion]


def _source_round(number: int, criterion: str, keys: Iterable[Key], source: str) -> DesignRound:
    """The implicit round of an outside source declared a uniform random sample of the suite:
    nothing known before it; each draw's probability is set by the pool a check reads."""
    draws = tuple(Draw(case_id, model, float("nan")) for case_id, model in sorted(keys))
    return DesignRound(
        number, criterion, "all", RANDOM, "", frozenset(), {}, draws, extra={"source": source}
    )


def label_evidence(plan: ValidationPlan, cases: list[Any], run_dir: Path | None) -> LabelEvidence:
    """Labels per criterion from the plan's sources, each with its design (design note 0063)."""
    criteria = {c.label for c in plan.check if c.label}
    evidence = LabelEvidence({c: {} for c in criteria})
    for source in plan.labels.sources if criteria else []:
        if source == "store":
            if run_dir is not None:
                _merge(evidence, evidence_from_store(run_dir, criteria))
            continue
        if source == "suite":
            found = labels_from_cases(cases, criteria)
        else:
            found = labels_from_file(plan.resolve(source), criteria)
        design = plan.labels.design_of(source)
        part = LabelEvidence(
            {
                criterion: {
                    key: LabelRecord(key[0], key[1], criterion, value, design, source)
                    for key, value in values.items()
                }
                for criterion, values in found.items()
            }
        )
        if design == RANDOM:
            for criterion, values in found.items():
                if values:
                    number = len(evidence.rounds) + len(part.rounds) + 1
                    part.rounds.append(_source_round(number, criterion, values, source))
                    for key, record in part.records[criterion].items():
                        part.records[criterion][key] = LabelRecord(
                            *key, criterion, record.value, RANDOM, source, number
                        )
        _merge(evidence, part)
    return evidence


def _merge(evidence: LabelEvidence, part: LabelEvidence) -> None:
    for criterion, records in part.records.items():
        evidence.records.setdefault(criterion, {}).update(records)
    evidence.rounds.extend(part.rounds)


def evidence_from_store(run_dir: Path, criteria: set[str]) -> LabelEvidence:
    """The store's labels; labels given outside a design round are ``unknown``."""
    found = labels_from_store(run_dir, criteria)
    return LabelEvidence(
        {
            criterion: {
                key: LabelRecord(key[0], key[1], criterion, value, UNKNOWN, "store")
                for key, value in values.items()
            }
            for criterion, values in found.items()
        }
    )
