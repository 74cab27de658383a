"""Flattening evaluated batches into result rows (their storage: :mod:`assay.rundir.results`)."""

from __future__ import annotations

import json
from collections.abc import Sequence

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, Status
from assay.rundir.records import ResultRow


def result_rows(
    evaluator: Evaluator,
    cases: Sequence[TestCase],
    results: Sequence[CaseResult],
    thresholds: dict[str, float],
) -> list[ResultRow]:
    """Flatten one evaluated batch into result rows (details only on the primary metric row)."""
    primary = evaluator.primary_metric().name
    # Enum members and .value are descriptor look-ups in Python 3.11 (a visible cost at one per
    # row, issue 23): resolved once per batch.
    ok_status, text = Status.OK, {status: status.value for status in Status}
    rows: list[ResultRow] = []
    for case, result in zip(cases, results, strict=True):
        for spec in evaluator.metrics:
            outcome = result.outcomes.get(spec.name)
            if outcome is None:
                continue
            threshold = thresholds.get(spec.name, spec.threshold)
            ok = outcome.status is ok_status and outcome.value is not None
            rows.append(
                {
                    "case_id": case.id,
                    "model": case.model or "",
                    "evaluator": evaluator.name,
                    "metric": spec.name,
                    "primary": spec.name == primary,
                    "status": text[outcome.status],
                    "value": outcome.value,
                    "passed": spec.passes(outcome.value, threshold) if ok else None,  # type: ignore[arg-type]
                    "threshold": threshold,
                    "reason": outcome.reason,
                    "explanation": result.explanation,
                    "details": json.dumps(result.details, ensure_ascii=False, default=str)
                    if result.details and spec.name == primary
                    else None,
                    "topic": case.topic,
                    "query_type": case.query_type,
                    "perturbation": case.perturbation,
                    "parent_id": case.parent_id,
                    "sample_of": case.sample_of,
                    "sample": case.sample,
                }
            )
    return rows
