"""Cases in a check's scope that its n leaves out, and why (the verdict page explains them).

A case is in scope when the check's ``scope`` covers it (original questions, perturbed copies,
attacks, ...); it counts in the check's n only when it got a verdict. A case the deciding metric
skipped as not applicable (a terse answer with no claim to support) is out of the n, not a
failure and not unmeasured: the page says how many and the metric's own reason.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from assay.verdict.cases import CaseVerdicts
from assay.verdict.labels import Key

#: Most left-out cases whose reason text is read back from the run (counts are always exact).
MAX_REASONS_READ = 2000


@dataclass(frozen=True)
class LeftOut:
    """One system's cases in a check's scope without a verdict.

    Attributes:
        in_scope: cases of the system in the check's scope (samples of a case count once).
        left_out: how many of them have no verdict.
        reasons: reason → cases (the metric's own reason; read for up to
            :data:`MAX_REASONS_READ` cases, the rest counted under their status).
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


def _reason(rows: pd.DataFrame, metrics: list[str]) -> str:
    """Why one case has no verdict, from its result rows of the check's metrics."""
    mine = rows[rows["metric"].isin(metrics)]
    if mine.empty:
        return f"no {' / '.join(metrics)} result"
    first = mine.iloc[0]
    text = str(first.get("reason") or "").strip() or str(first["status"])
    return f"{first['metric']} {first['status']}: {text[:160]}"


def left_out(
    cv: CaseVerdicts,
    metrics: list[str],
    scope: pd.Index,
    sampled: dict[Key, str],
    run: Any,
) -> dict[str, LeftOut]:
    """Per system, the cases of ``scope`` that ``cv`` gave no verdict, with reasons.

    Args:
        cv: the check's per-case verdicts (samples of a repeated case already collapsed).
        metrics: the check's metrics (the deciding one first when there is one).
        scope: the ``(case_id, model)`` keys in the check's scope.
        sampled: ``(case_id, model)`` of each sample → the id of the case it samples.
        run: the :class:`~assay.rundir.EvaluationRun` (its ``results_for`` gives reasons).
    """
    in_scope = {(sampled.get((c, m), c), m) for c, m in scope}
    decided = set(zip(cv.table["case_id"], cv.table["model"].astype(str), strict=True)) \
        if len(cv.table) else set()
    missing = sorted(in_scope - decided)
    per_model = Counter(m for _, m in in_scope)
    if not missing:
        return {}
    read = set(missing[:MAX_REASONS_READ])
    results = run.results_for({k for k in scope if (sampled.get(k, k[0]), k[1]) in read})
    model_of = results["model"].astype(str)
    results = results.assign(
        model=model_of,
        of=[sampled.get((c, m), c) for c, m in zip(results["case_id"], model_of, strict=True)],
    )
    groups = {key: rows for key, rows in results.groupby(["of", "model"], sort=False)}
    reasons: dict[str, Counter[str]] = {}
    for key in missing:
        model = key[1]
        if key in read:
            why = _reason(groups.get(key, results.iloc[0:0]), metrics)
        else:
            why = f"reason not read (over {MAX_REASONS_READ:,} left out; see the run's results)"
        reasons.setdefault(model, Counter())[why] += 1
    return {
        model: LeftOut(per_model[model], sum(counts.values()), dict(counts.most_common()))
        for model, counts in reasons.items()
    }
