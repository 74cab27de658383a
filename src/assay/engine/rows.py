"""The long results table: one row per case × metric, its schema and its streaming writer."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, Status

RESULT_SCHEMA = pa.schema(
    [
        ("case_id", pa.string()),
        ("model", pa.string()),
        ("evaluator", pa.string()),
        ("metric", pa.string()),
        ("primary", pa.bool_()),
        ("status", pa.string()),
        ("value", pa.float64()),
        ("passed", pa.bool_()),
        ("threshold", pa.float64()),
        ("reason", pa.string()),
        ("explanation", pa.string()),
        ("details", pa.string()),
        ("topic", pa.string()),
        ("query_type", pa.string()),
        ("perturbation", pa.string()),
        ("parent_id", pa.string()),
    ]
)
COLUMNS = RESULT_SCHEMA.names


def result_rows(
    evaluator: Evaluator,
    cases: Sequence[TestCase],
    results: Sequence[CaseResult],
    thresholds: dict[str, float],
) -> list[dict[str, Any]]:
    """Flatten one evaluated batch into result rows (details only on the primary metric row)."""
    primary = evaluator.primary_metric().name
    rows = []
    for case, result in zip(cases, results, strict=True):
        for spec in evaluator.metrics:
            outcome = result.outcomes.get(spec.name)
            if outcome is None:
                continue
            threshold = thresholds.get(spec.name, spec.threshold)
            ok = outcome.status is Status.OK and outcome.value is not None
            rows.append(
                {
                    "case_id": case.id,
                    "model": case.model or "",
                    "evaluator": evaluator.name,
                    "metric": spec.name,
                    "primary": spec.name == primary,
                    "status": outcome.status.value,
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
                }
            )
    return rows


@dataclass
class ResultWriter:
    """Streams result rows to Parquet and CSV so memory does not grow with the suite."""

    parquet_path: Path
    csv_path: Path
    _parquet: pq.ParquetWriter | None = None
    _csv_handle: Any = None
    _csv: Any = None
    n_rows: int = 0
    _closed: bool = field(default=False)

    def write(self, rows: list[dict[str, Any]]) -> None:
        """Append rows to both files."""
        if not rows:
            return
        table = pa.Table.from_pylist(rows, schema=RESULT_SCHEMA)
        if self._parquet is None:
            self._parquet = pq.ParquetWriter(self.parquet_path, RESULT_SCHEMA)
            self._csv_handle = self.csv_path.open("w", encoding="utf-8", newline="")
            self._csv = csv.DictWriter(self._csv_handle, fieldnames=COLUMNS)
            self._csv.writeheader()
        self._parquet.write_table(table)
        self._csv.writerows(rows)
        self.n_rows += len(rows)

    def close(self) -> None:
        """Finish both files (writing empty ones when no row came)."""
        if self._closed:
            return
        self._closed = True
        if self._parquet is None:
            pq.write_table(RESULT_SCHEMA.empty_table(), self.parquet_path)
            with self.csv_path.open("w", encoding="utf-8", newline="") as handle:
                csv.DictWriter(handle, fieldnames=COLUMNS).writeheader()
            return
        self._parquet.close()
        self._csv_handle.close()
