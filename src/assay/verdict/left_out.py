"""Cases in a check's scope that its n leaves out, and why, in the metric's own words (the verdict
page explains them).

A case is in scope when the check's ``scope`` covers it (original questions, perturbed copies,
attacks, ...); the verdict step lists those it left out in :attr:`CaseVerdicts.excluded` (a case
the deciding metric skipped as not applicable: a terse answer with no claim to support, a
conversation for an answer metric). This module counts them per system and reads, from the run,
the metric's own reason for skipping each ("missing required field(s): retrieved_context", "the
answer states no checkable facts"), which says what to fix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from assay.verdict.cases import CaseVerdicts
from assay.verdict.labels import Key

#: Most left-out cases whose reason is read back from the run (counts are always exact).
MAX_REASONS_READ = 2000


@dataclass(frozen=True)
class LeftOut:
    """One system's cases in a check's scope without a verdict.

    Attributes:
        in_scope: cases of the system in the check's scope (samples of a case count once).
        left_out: how many of them have no verdict.
        reasons: reason → cases (the metric's own reason for up to :data:`MAX_REASONS_READ`
            cases, the verdict step's for the rest).
    """

    in_scope: int
    left_out: int
    reasons: dict[str, int] = field(default_factory=dict)

    def text(self) -> str:
        """One sentence for the page.

        Example:
            >>> LeftOut(70, 2, {"facts_support skipped: no claim": 2}).text()
            '2 of 70 cases in scope are not in n: facts_support skipped: no claim (2)'
        """
        why = "; ".join(f"{reason} ({n})" for reason, n in self.reasons.items())
        return f"{self.left_out} of {self.in_scope} cases in scope are not in n: {why}"


def _reason(rows: pd.DataFrame, metrics: list[str], fallback: str) -> str:
    """Why one case has no verdict, from its result rows of the check's metrics."""
    mine = rows[rows["metric"].isin(metrics)] if len(rows) else rows
    if mine.empty:
        return fallback
    first = mine.iloc[0]
    text = str(first.get("reason") or "").strip() or str(first["status"])
    return f"{first['metric']} {first['status']}: {text[:160]}"


def left_out(
    cv: CaseVerdicts, metrics: list[str], sampled: Mapping[Key, str], run: Any
) -> dict[str, LeftOut]:
    """Per system, the cases of the check's scope that ``cv`` left out, with reasons.

    Args:
        cv: the check's per-case verdicts (samples of a repeated case already collapsed in its
            table; ``excluded`` lists the left-out cases).
        metrics: the check's metrics (the deciding one first when there is one).
        sampled: ``(case_id, model)`` of each sample → the id of the case it samples.
        run: the :class:`~assay.rundir.EvaluationRun` (its ``results_for`` gives reasons).
    """
    excluded = cv.excluded
    if not len(excluded):
        return {}
    decided = set(zip(cv.table["case_id"].astype(str), cv.table["model"].astype(str),
                      strict=True)) if len(cv.table) else set()  # fmt: skip
    fallback: dict[Key, str] = {}
    for case_id, model, why in zip(excluded["case_id"].astype(str),
                                   excluded["model"].astype(str), excluded["reason"], strict=True):
        key = (sampled.get((case_id, model), case_id), model)
        if key not in decided:  # a sampled case with a sample in scope counts in n
            fallback.setdefault(key, str(why))
    if not fallback:
        return {}
    read = set(sorted(fallback)[:MAX_REASONS_READ])
    wanted = {(c, m) for c, m in excluded[["case_id", "model"]].astype(str).itertuples(
        index=False) if (sampled.get((c, m), c), m) in read}  # fmt: skip
    results = run.results_for(wanted)
    model_of = results["model"].astype(str)
    results = results.assign(
        model=model_of,
        of=[sampled.get((c, m), c) for c, m in zip(results["case_id"], model_of, strict=True)],
    )
    groups = {key: rows for key, rows in results.groupby(["of", "model"], sort=False)}
    reasons: dict[str, Counter[str]] = {}
    for key, why in fallback.items():
        if key in read:
            why = _reason(groups.get(key, results.iloc[0:0]), metrics, why)
        reasons.setdefault(key[1], Counter())[why] += 1
    in_n = Counter(m for _, m in decided)
    return {
        model: LeftOut(in_n[model] + sum(c.values()), sum(c.values()), dict(c.most_common()))
        for model, c in reasons.items()
    }
