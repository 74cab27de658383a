"""An assessment's labels: one store whichever path a command is given, and the units its
labelled checks read (the labeling queue and ``assay labels sample`` spend labels only there).

An assessment directory (``assay assess --out ASSESSMENT``) holds its run in ``ASSESSMENT/run``
and its labels in ``ASSESSMENT/labels.sqlite`` (unless ``--db`` names another store): beside the
run, not in it, because a plan whose evaluators change makes ``assess`` replace the whole run
directory. A store left in ``ASSESSMENT/run`` by an older assay is still used (with a warning).
``ASSESSMENT/plan.json`` says which check reads which label criterion and
``ASSESSMENT/verdict_cases.csv`` lists every in-scope unit of each check with its calibrated P(PASS)
from the last assessment.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from assay.errors import InvalidInputError
from assay.label.store import DEFAULT_DB
from assay.rundir.layout import (
    ASSESSMENT_RUN_DIR,
    MANIFEST_FILE,
    PLAN_FILE,
    VERDICT_CASES_FILE,
    VERDICT_FILE,
)
from assay.verdict.plan import Check, ValidationPlan, read_plan_record

logger = logging.getLogger(__name__)
Key = tuple[str, str]
#: Per-case states of ``verdict_cases.csv`` that are not in a check's scope.
_OUT_OF_SCOPE = {"out of scope", "out_of_scope", "OUT_OF_SCOPE"}


def is_assessment(path: Path) -> bool:
    """Whether ``path`` is an assessment directory (its verdict, plan or run is there)."""
    return (
        (path / VERDICT_FILE).is_file()
        or (path / PLAN_FILE).is_file()
        or (path / ASSESSMENT_RUN_DIR / MANIFEST_FILE).is_file()
    )


def label_run_dir(path: str | Path) -> Path:
    """The run directory whose label store a command uses: ``ASSESSMENT/run`` when given an
    assessment or its run, else the run directory itself (one store per assessment).

    Example:
        >>> import tempfile
        >>> home = Path(tempfile.mkdtemp())
        >>> (home / "verdict.json").write_text("{}")
        2
        >>> label_run_dir(home) == label_run_dir(home / "run") == home / "run"
        True
    """
    p = Path(path)
    if p.name == ASSESSMENT_RUN_DIR and is_assessment(p.parent):
        return p
    return p / ASSESSMENT_RUN_DIR if is_assessment(p) else p


def label_store_dir(path: str | Path) -> Path:
    """The directory whose ``labels.sqlite`` is the label store: the assessment directory for an
    assessment (given as itself or its run), else the run directory.

    Raises:
        InvalidInputError: the assessment holds two stores (one beside the run, one left in it).

    Example:
        >>> import tempfile
        >>> home = Path(tempfile.mkdtemp())
        >>> (home / "verdict.json").write_text("{}")
        2
        >>> label_store_dir(home / "run") == label_store_dir(home) == home
        True
    """
    home = assessment_of(Path(path))
    if home is None:
        return Path(path)
    legacy = home / ASSESSMENT_RUN_DIR / DEFAULT_DB
    if legacy.is_file():
        if (home / DEFAULT_DB).is_file():
            raise InvalidInputError(
                f"{home} holds two label stores, {home / DEFAULT_DB} and {legacy} (an older "
                "assay kept the app's labels in the run): keep the one with the labels and move "
                f"it to {home / DEFAULT_DB}, with the labeling server stopped"
            )
        logger.warning(
            "using the label store %s left by an older assay: stop the labeling server and move "
            "it (with any %s-wal file) to %s, where re-assessing cannot replace it",
            legacy,
            DEFAULT_DB,
            home / DEFAULT_DB,
        )
        return legacy.parent
    return home


def assessment_of(run_dir: Path) -> Path | None:
    """The assessment directory a run belongs to, or None for a plain run directory."""
    run_dir = label_run_dir(run_dir)
    if run_dir.name == ASSESSMENT_RUN_DIR and is_assessment(run_dir.parent):
        return run_dir.parent
    return None


@dataclass(frozen=True)
class LabelScope:
    """The labelled checks of an assessment and their in-scope units.

    Attributes:
        plan: the plan the assessment was made from.
        table: ``verdict_cases.csv`` of the last assessment (one row per check and unit).
    """

    plan: ValidationPlan
    table: pd.DataFrame

    def checks(
        self, criteria: Iterable[str] | None = None, names: Sequence[str] = ()
    ) -> list[Check]:
        """The labelled checks (reading one of ``criteria`` when given; only ``names`` when
        given), in plan order."""
        labelled = [c for c in self.plan.check if c.label]
        unknown = sorted(set(names) - {c.name for c in self.plan.check})
        if unknown:
            raise InvalidInputError(
                f"no check named {', '.join(map(repr, unknown))} in the assessment's plan; its "
                f"checks: {', '.join(repr(c.name) for c in self.plan.check)}"
            )
        unlabelled = sorted(set(names) - {c.name for c in labelled})
        if unlabelled:
            raise InvalidInputError(
                f"check {', '.join(map(repr, unlabelled))} reads no human label (no 'label' in "
                "the plan): labels cannot change its verdict"
            )
        wanted = None if criteria is None else set(criteria)
        return [
            c
            for c in labelled
            if (not names or c.name in names) and (wanted is None or c.label in wanted)
        ]

    def rows(self, checks: Sequence[Check]) -> pd.DataFrame:
        """The in-scope rows of ``checks`` (out-of-scope states left out)."""
        if self.table.empty or "check" not in self.table:
            return self.table.iloc[0:0]
        rows = self.table[self.table["check"].isin([c.name for c in checks])]
        if "verdict" in rows:
            rows = rows[rows["verdict"].notna()]
        for column in ("state", "verdict"):
            if column in rows:
                rows = rows[~rows[column].astype(str).isin(_OUT_OF_SCOPE)]
        return rows

    def units(self, checks: Sequence[Check]) -> list[Key]:
        """Every in-scope unit (case id, system) of ``checks``, sorted."""
        rows = self.rows(checks)
        return sorted({(str(r.case_id), str(r.model)) for r in rows.itertuples(index=False)})

    def p_pass(self, checks: Sequence[Check]) -> dict[Key, float]:
        """The calibrated P(PASS) of each unit from the last assessment (the first check in plan
        order that has one); units without one are left out."""
        rows = self.rows(checks)
        out: dict[Key, float] = {}
        if "p_pass" not in rows:
            return out
        order = {c.name: i for i, c in enumerate(checks)}
        rows = rows.assign(_order=rows["check"].map(order)).sort_values("_order", kind="stable")
        for r in rows.itertuples(index=False):
            value = float(r.p_pass) if r.p_pass == r.p_pass else math.nan
            key = (str(r.case_id), str(r.model))
            if not math.isnan(value) and key not in out:
                out[key] = value
        return out


def load_scope(path: str | Path) -> LabelScope | None:
    """The label scope of the assessment ``path`` is, or whose run it is; None for a plain run
    or an assessment made before assessments kept their plan."""
    home = assessment_of(Path(path))
    if home is None:
        return None
    if not (home / PLAN_FILE).is_file():
        logger.warning(
            "%s keeps no %s (assessed by an older assay): re-run 'assay assess' so labels go "
            "only to cases a labelled check reads",
            home,
            PLAN_FILE,
        )
        return None
    plan = read_plan_record(home / PLAN_FILE)
    cases = home / VERDICT_CASES_FILE
    table = pd.DataFrame()
    if cases.is_file() and cases.stat().st_size > 1:
        try:
            table = pd.read_csv(cases, dtype={"case_id": str, "model": str, "check": str})
        except (OSError, ValueError) as exc:
            raise InvalidInputError(f"{cases}: cannot read the per-case verdicts: {exc}") from exc
    return LabelScope(plan, table)
