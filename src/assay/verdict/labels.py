"""Human labels for the verdict, with their design: from the suite's ``labels`` field, a labels
file or the labeling app's store (:func:`label_evidence`)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.data.case import model_key
from assay.errors import InvalidInputError
from assay.verdict.design import RANDOM, UNKNOWN, DesignRound, Draw, LabelRecord

if TYPE_CHECKING:
    from assay.verdict.plan import ValidationPlan

_TRUE = {"1", "true", "yes", "pass", "correct", "grounded", "y"}
_FALSE = {"0", "false", "no", "fail", "incorrect", "n"}
#: Columns of a labels file that are not criteria.
_KEY_COLUMNS = {
    "id",
    "case_id",
    "model",
    "annotator",
    "notes",
    "comment",
    "n_annotators",
    "label",
    "design",
    "round",
    "probability",
}

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
        key = (case.id, model_key(case.model))  # one key of the case for every criterion
        for criterion in criteria:
            if criterion in case.labels:
                where = f"case {case.id!r} (model {case.model!r}), labels.{criterion}"
                value = to_pass(case.labels[criterion], where)
                if value is not None:
                    out[criterion][key] = value
    return out


def labels_from_file(path: Path, criteria: set[str]) -> dict[str, dict[Key, int]]:
    """Criterion → (case id, model) → PASS / FAIL, from a CSV or JSONL labels file.

    The file has ``id`` (or ``case_id``), ``model`` and one column per criterion; the last row of a
    (case, model) wins (a re-label replaces the earlier one).
    """
    if not path.is_file():
        raise InvalidInputError(f"{path}: labels file not found")
    out: dict[str, dict[Key, int]] = {c: {} for c in criteria}
    first = 2 if path.suffix.lower() not in (".jsonl", ".ndjson") else 1  # a CSV's header is row 1
    for number, row in enumerate(_label_rows(path), start=first):
        case_id = row.get("id", row.get("case_id"))
        if not case_id:
            raise InvalidInputError(f"{path}, row {number}: field 'id': missing")
        key = (str(case_id), model_key(row.get("model")))
        for criterion in criteria & set(row):
            where = f"{path}, row {number}, field {criterion!r}"
            value = to_pass(row[criterion], where)
            if value is not None:
                out[criterion][key] = value
    return out


def _label_rows(path: Path) -> Iterator[dict[str, Any]]:
    """A labels file's rows, read one at a time (a million cases' labels as one list of dicts
    were ~100 MB)."""
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            if path.suffix.lower() in (".jsonl", ".ndjson"):
                yield from (json.loads(line) for line in handle if line.strip())
            else:
                yield from csv.DictReader(handle)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{path}: cannot read the labels: {exc}") from exc


def labels_from_store(
    run_dir: Path, criteria: set[str], *, url: str | None = None
) -> dict[str, dict[Key, int]]:
    """Criterion → (case id, model) → majority PASS / FAIL of the labeling app's store of a run.

    Ties are left out. Only binary criteria are read (a graded criterion cannot be a PASS label).
    ``url`` names the store when it is not the run's SQLite file.
    """
    return _read_store(run_dir, criteria, url)[0]


def _read_store(
    run_dir: Path, criteria: set[str], url: str | None
) -> tuple[dict[str, dict[Key, int]], list[DesignRound]]:
    """The store's majority labels per criterion and its rounds for ``criteria``."""
    from assay.label.assessment import label_store_dir
    from assay.label.export import label_frame
    from assay.label.rounds import load_rounds
    from assay.label.store import DEFAULT_DB, Store, database_url

    out: dict[str, dict[Key, int]] = {c: {} for c in criteria}
    home = label_store_dir(run_dir) if url is None else run_dir
    if url is None and not (home / DEFAULT_DB).is_file():
        return out, []
    store = Store(url or database_url(home, None))
    try:
        store.migrate()  # an older store gains the round tables; its labels are kept
        known = {c.name for c in store.criteria()}
        wanted = sorted(criteria & known)
        judgments = store.judgments()
        rounds = load_rounds(store, wanted)
    finally:
        store.close()
    if not wanted or not judgments:
        return out, rounds
    frame, _ = label_frame(judgments, wanted)
    for row in frame.to_dict("records"):
        for criterion in wanted:
            where = f"{store.safe_url}, case {row['id']!r}, criterion {criterion!r}"
            value = (
                to_pass(row.get(criterion), where)
                if row.get(criterion) == row.get(criterion)
                else None
            )
            if value is not None:
                out[criterion][(str(row["id"]), str(row["model"]))] = value
    return out, rounds


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

    def merge(self, part: LabelEvidence) -> None:
        """Add ``part``'s labels (overriding these for the same case) and rounds."""
        for criterion, records in part.records.items():
            self.records.setdefault(criterion, {}).update(records)
        self.rounds.extend(part.rounds)

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


def _records(
    values: dict[Key, int], criterion: str, design: str, source: str, number: int | None
) -> dict[Key, LabelRecord]:
    """The records of one source's labels of ``criterion``: one shared record per value."""
    shared = {value: LabelRecord(criterion, value, design, source, number) for value in (0, 1)}
    return {key: shared[value] for key, value in values.items()}


def label_evidence(
    plan: ValidationPlan, cases: Iterable[Any], run_dir: Path | None
) -> LabelEvidence:
    """Labels per criterion from the plan's sources, each with its design (design note 0063).

    The store's rounds keep the numbers the store gave them (those ``assay labels sample``
    printed); an outside source declared ``random`` becomes one implicit round per criterion,
    numbered after the store's.
    """
    criteria = {c.label for c in plan.check if c.label}
    evidence = LabelEvidence({c: {} for c in criteria})
    sources = plan.labels.sources if criteria else []
    stored = (
        evidence_from_store(run_dir, criteria)
        if "store" in sources and run_dir is not None
        else LabelEvidence()
    )
    numbers = iter(range(max((r.number for r in stored.rounds), default=0) + 1, 10**9))
    for source in sources:
        if source == "store":
            evidence.merge(stored)
            continue
        if source == "suite":
            found = labels_from_cases(cases, criteria)
        else:
            found = labels_from_file(plan.resolve(source), criteria)
        design = plan.labels.design_of(source)
        # a random source's round per criterion, numbered in the criteria's name order: a set's
        # order changes with the process's hash seed, and so did each round's number
        numbered = {}
        if design == RANDOM:
            numbered = {c: next(numbers) for c, values in sorted(found.items()) if values}
        part = LabelEvidence(
            {
                criterion: _records(values, criterion, design, source, numbered.get(criterion))
                for criterion, values in found.items()
            },
            [_source_round(number, c, found[c], source) for c, number in numbered.items()],
        )
        evidence.merge(part)
    return evidence


def evidence_from_store(
    run_dir: Path, criteria: set[str], *, url: str | None = None
) -> LabelEvidence:
    """The store's labels with their design, and its rounds (design note 0063).

    A label of a unit that a round drew while the unit was unlabelled (not in the round's
    ``known``) carries that round's design, number and the draw's selection probability (the first
    such round when several drew it); every other label — hand-picked, REVIEW cases settled in
    the app, labels given before any round — is ``unknown``. ``url`` names the store when it is
    not the run's SQLite file (``RUN_DIR/labels.sqlite``, or ``ASSESSMENT/labels.sqlite`` for the
    run of an assessment).

    Example:
        >>> import tempfile
        >>> evidence_from_store(Path(tempfile.mkdtemp()), {"ok"}).records
        {'ok': {}}
    """
    from assay.label.rounds import round_of_units

    found, rounds = _read_store(run_dir, criteria, url)
    drawn = round_of_units(rounds)
    records: dict[str, dict[Key, LabelRecord]] = {}
    for criterion, values in found.items():
        records[criterion] = {}
        for key, value in values.items():
            hit = drawn.get((criterion, key))
            records[criterion][key] = (
                LabelRecord(criterion, value, UNKNOWN, "store")
                if hit is None
                else LabelRecord(
                    criterion,
                    value,
                    hit[0].design,
                    "store",
                    hit[0].number,
                    hit[1].probability,
                )
            )
    return LabelEvidence(records, rounds)
