"""A reviewer's overrule of a rule verdict: recorded, attributed, applied and reported.

A rule-based check (leaks, toxicity, attack success: no human ``label``) decides each case by
thresholds, and one false positive fails a zero-tolerance check. A reviewer who has read the case
may overrule its verdict: ``assay review overrule ASSESSMENT --check NAME --case ID --model M
--verdict PASS|FAIL --by NAME --reason TEXT`` appends one record (who, when, why) to
``ASSESSMENT/overrules.jsonl``. Every later assessment applies the records as a transformation of
the check's per-case verdicts (:func:`apply_overrules`): the case takes the reviewer's verdict,
its source becomes ``reviewer`` and the rule verdict it replaced is kept beside it, so
``verdict_cases.csv``, ``verdict.json`` and the reports show both. The last record of a
(check, case, model) wins; the file is never rewritten, so the history stays.

A check decided by calibration to human labels is not overruled: a human label is the way to
settle one of its cases (it enters the calibration and the bounds with its design).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from assay.errors import InvalidInputError
from assay.rundir.layout import ASSESSMENT_RUN_DIR, OVERRULES_FILE, VERDICT_CASES_FILE
from assay.verdict.cases import FAIL, PASS, RULE, CaseVerdicts
from assay.verdict.plan import Check

#: ``source`` of a case whose verdict a reviewer overruled.
REVIEWER = "reviewer"
_VERDICTS = (PASS, FAIL)
_FIELDS = ("check", "case_id", "model", "verdict", "by", "reason", "at")
_LABELLED = (
    "is decided from human labels (calibrated): overrules apply to rule-based checks only; "
    "settle the case with a human label instead (assay label, or a labels file in the plan)"
)


@dataclass(frozen=True)
class Overrule:
    """One reviewer's decision on one case of a rule-based check."""

    check: str
    case_id: str
    model: str
    verdict: str
    by: str
    reason: str
    at: str

    def as_dict(self) -> dict[str, str]:
        """JSON-ready form (one line of ``overrules.jsonl``)."""
        return asdict(self)


def _text(value: Any, name: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{where}: field {name!r} must be a non-empty text; got {value!r}")
    return value.strip()


def make_overrule(
    check: str, case_id: str, model: str, verdict: str, by: str, reason: str,
    at: datetime | None = None,
) -> Overrule:  # fmt: skip
    """A validated overrule stamped with the time (UTC) it was made.

    Example:
        >>> o = make_overrule("no toxic answer", "q7", "m", "pass", "Ana", "a sentence about "
        ...                   "penguins", at=datetime(2026, 1, 2, tzinfo=UTC))
        >>> o.verdict, o.at
        ('PASS', '2026-01-02T00:00:00+00:00')
    """
    where = "overrule"
    up = str(verdict).strip().upper()
    if up not in _VERDICTS:
        raise InvalidInputError(f"{where}: field 'verdict' must be PASS or FAIL; got {verdict!r}")
    stamp = (at or datetime.now(UTC)).isoformat(timespec="seconds")
    texts = {"check": check, "case_id": case_id, "model": model, "by": by, "reason": reason}
    clean = {name: _text(value, name, where) for name, value in texts.items()}
    return Overrule(verdict=up, at=stamp, **clean)


def read_overrules(assessment: Path) -> list[Overrule]:
    """The overrules recorded in an assessment directory, in the order made (none: empty)."""
    path = assessment / OVERRULES_FILE
    if not path.is_file():
        return []
    out = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"{where}: not valid JSON: {exc}") from exc
        if not isinstance(row, dict):
            raise InvalidInputError(f"{where}: an overrule must be a JSON object")
        values = {name: _text(row.get(name), name, where) for name in _FIELDS}
        if values["verdict"] not in _VERDICTS:
            raise InvalidInputError(f"{where}: field 'verdict' must be PASS or FAIL")
        out.append(Overrule(**values))
    return out


def record_overrule(assessment: Path, overrule: Overrule) -> Path:
    """Append ``overrule`` to ``assessment/overrules.jsonl`` after checking it can apply.

    The assessment must have been decided (``verdict_cases.csv``), the check must be rule-based
    and the case (id, model) must be one of its cases.
    """
    cases_path = assessment / VERDICT_CASES_FILE
    if not cases_path.is_file():
        raise InvalidInputError(
            f"{assessment}: not an assessment directory ({VERDICT_CASES_FILE} missing); run "
            "`assay assess PLAN --out DIR` first"
        )
    table = pd.read_csv(cases_path, dtype={"case_id": str, "model": str})
    rows = table[table["check"] == overrule.check] if len(table) else table
    if not len(rows):
        known = sorted(set(table["check"])) if len(table) else []
        raise InvalidInputError(
            f"{cases_path}: no check named {overrule.check!r} has cases; checks: {known}"
        )
    if not rows["source"].isin([RULE, REVIEWER]).all():
        raise InvalidInputError(f"check {overrule.check!r} {_LABELLED}")
    mine = rows[(rows["case_id"] == overrule.case_id) & (rows["model"] == overrule.model)]
    if not len(mine):
        raise InvalidInputError(
            f"check {overrule.check!r} has no case {overrule.case_id!r} of system "
            f"{overrule.model!r} in {cases_path}"
        )
    path = assessment / OVERRULES_FILE
    with path.open("a", encoding="utf-8") as handle:  # appended: the history is kept
        handle.write(json.dumps(overrule.as_dict(), ensure_ascii=False) + "\n")
    return path


def assessment_of(run_path: Path | None) -> Path | None:
    """The assessment directory holding a run (``ASSESSMENT/run``), None for a bare run."""
    if run_path is None or Path(run_path).name != ASSESSMENT_RUN_DIR:
        return None
    return Path(run_path).parent


def apply_overrules(check: Check, verdicts: CaseVerdicts, run_path: Path | None) -> CaseVerdicts:
    """The check's per-case verdicts with the reviewer's overrules of its cases applied.

    Adds ``rule_verdict`` (the verdict replaced), ``overruled_by``, ``overruled_at`` and
    ``overrule_reason`` to the overruled rows and sets their ``source`` and ``state`` to
    ``reviewer``.

    Raises:
        InvalidInputError: an overrule names a labelled (calibrated) check.
    """
    assessment = assessment_of(run_path)
    if assessment is None:
        return verdicts
    latest = {(o.case_id, o.model): o for o in read_overrules(assessment) if o.check == check.name}
    if not latest:
        return verdicts
    if check.label:
        raise InvalidInputError(f"{assessment / OVERRULES_FILE}: check {check.name!r} {_LABELLED}")
    table = verdicts.table.copy()
    for column in ("rule_verdict", "overruled_by", "overruled_at", "overrule_reason"):
        table[column] = None
    for index, row in table.iterrows():
        overrule = latest.get((str(row["case_id"]), str(row["model"])))
        if overrule is None:
            continue
        table.loc[index, "rule_verdict"] = row["predicted"]
        table.loc[index, ["verdict", "source"]] = [overrule.verdict, REVIEWER]
        if "state" in table:
            table.loc[index, "state"] = REVIEWER
        table.loc[index, ["overruled_by", "overruled_at", "overrule_reason"]] = [
            overrule.by, overrule.at, overrule.reason,
        ]  # fmt: skip
    return replace(verdicts, table=table)


def overrule_records(verdicts: dict[str, CaseVerdicts]) -> list[dict[str, Any]]:
    """Every applied overrule, for the verdict: check, case, system, rule verdict, reviewer's
    verdict, who, when and why."""
    out = []
    for name, cv in verdicts.items():
        if "overruled_by" not in cv.table:
            continue
        for row in cv.table[cv.table["source"] == REVIEWER].itertuples():
            out.append(
                {
                    "check": name,
                    "case_id": str(row.case_id),
                    "model": str(row.model),
                    "rule_verdict": row.rule_verdict,
                    "verdict": row.verdict,
                    "by": row.overruled_by,
                    "at": row.overruled_at,
                    "reason": row.overrule_reason,
                }
            )
    return out
