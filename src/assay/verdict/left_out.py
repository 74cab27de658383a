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
from assay.verdict.design import row_keys
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


def _reason(first: pd.Series) -> str:
    """Why one case has no verdict, from its first result row of the check's metrics."""
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
    keys = [(sampled.get(key, key[0]), key[1]) for key in row_keys(excluded)]
    in_scope = _decided(keys, cv.table)  # a sampled case with a sample in scope counts in n
    fallback: dict[Key, str] = {}
    for key, why, counted in zip(keys, excluded["reason"], in_scope, strict=True):
        if not counted:
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
    # each case's first row of the check's metrics, found once (a filter per case took seconds)
    firsts = results[results["metric"].isin(metrics)].drop_duplicates(["of", "model"])
    first_row = {key: i for i, key in enumerate(zip(firsts["of"], firsts["model"], strict=True))}
    reasons: dict[str, Counter[str]] = {}
    for key, why in fallback.items():
        if key in read and key in first_row:
            why = _reason(firsts.iloc[first_row[key]])
        reasons.setdefault(key[1], Counter())[why] += 1
    in_n: dict[str, int] = cv.table["model"].astype(str).value_counts().to_dict()
    return {
        model: LeftOut(
            in_n.get(model, 0) + sum(c.values()), sum(c.values()), dict(c.most_common())
        )
        for model, c in reasons.items()
    }


def _decided(keys: list[Key], table: pd.DataFrame) -> list[bool]:
    """Whether each key has a row in ``table`` (the check's per-case verdicts).

    Only the rows of the keys' case ids are paired (the table has one row per case and system):
    an index of every decided case, with its hash table, was a +193 MiB transient at a million
    cases (+56 MiB this way, with 40 % of the scope left out).
    """
    if not keys or not len(table):
        return [False] * len(keys)
    rows = table[table["case_id"].isin({case_id for case_id, _ in keys})]
    decided = set(row_keys(rows))
    return [key in decided for key in keys]
