"""Flattening evaluated batches into result rows (their storage: :mod:`assay.rundir.results`)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np

from assay.data.case import TestCase, model_key
from assay.evaluators.base import Evaluator
from assay.evaluators.batch import ABSENT, OK, STATUSES, ResultBatch, without_cyclic_gc
from assay.rundir.records import ResultRow

_TEXT = [status.value for status in STATUSES]


@without_cyclic_gc()
def result_rows(
    evaluator: Evaluator,
    cases: Sequence[TestCase],
    results: ResultBatch,
    thresholds: dict[str, float],
) -> list[ResultRow]:
    """Flatten one evaluated batch into result rows, case by case in metric order (details
    only on the primary metric row).

    Read from the batch's columns: each matrix is turned into Python values once (``tolist``)
    and pass/fail is compared one metric column at a time, so no per-case object is built; the
    cyclic collector is paused meanwhile (the rows hold no cycles).
    """
    primary = evaluator.primary_metric().name
    specs = evaluator.metrics
    values, status, reasons = (
        results.values.tolist(), results.status.tolist(), results.reasons.tolist())
    limits = [thresholds.get(spec.name, spec.threshold) for spec in specs]
    with np.errstate(invalid="ignore"):
        passed = [
            None if limit is None
            else (results.values[:, j] >= limit if spec.higher_is_better
                  else results.values[:, j] <= limit).tolist()
            for j, (spec, limit) in enumerate(zip(specs, limits, strict=True))
        ]
    columns = [(j, spec.name, spec.name == primary) for j, spec in enumerate(specs)]
    explanations, details = results.explanations, results.details
    name, text = evaluator.name, _TEXT
    rows: list[ResultRow] = []
    for i, case in enumerate(cases):
        codes, case_values, case_reasons = status[i], values[i], reasons[i]
        explanation = explanations[i]
        case_details = details[i]
        dumped = (json.dumps(case_details, ensure_ascii=False, default=str)
                  if case_details else None)
        case_id, model = case.id, model_key(case.model)
        for j, metric, is_primary in columns:
            code = codes[j]
            if code == ABSENT:
                continue
            ok = code == OK
            verdict = passed[j]
            rows.append(
                {
                    "case_id": case_id,
                    "model": model,
                    "evaluator": name,
                    "metric": metric,
                    "primary": is_primary,
                    "status": text[code],
                    "value": case_values[j] if ok else None,
                    "passed": verdict[i] if ok and verdict is not None else None,
                    "threshold": limits[j],
                    "reason": case_reasons[j],
                    "explanation": explanation,
                    "details": dumped if is_primary else None,
                    "topic": case.topic,
                    "query_type": case.query_type,
                    "perturbation": case.perturbation,
                    "parent_id": case.parent_id,
                    "sample_of": case.sample_of,
                    "sample": case.sample,
                }
            )
    return rows
