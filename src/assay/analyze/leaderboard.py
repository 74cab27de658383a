"""Streaming leaderboard: models × metrics with counts of ok / skipped / error outcomes."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from assay.evaluators.base import Evaluator, MetricSpec
from assay.rundir.records import LeaderboardRow, ResultRow

#: Largest share of errored cases (among those attempted: ok + error) with which a metric may
#: still pass: errors never pass. One rule for the leaderboard, the report verdict, the
#: six-dimension summary and the default gate.
MAX_ERROR_SHARE = 0.05


def mostly_errored(n_ok: int, n_error: int) -> bool:
    """Whether more than :data:`MAX_ERROR_SHARE` of the attempted cases errored.

    Example:
        >>> mostly_errored(4, 10), mostly_errored(100, 5), mostly_errored(0, 0)
        (True, False, False)
    """
    return n_error > 0 and n_error > MAX_ERROR_SHARE * (n_ok + n_error)


@dataclass
class _Cell:
    n_ok: int = 0
    n_skipped: int = 0
    n_error: int = 0
    total: float = 0.0
    total_sq: float = 0.0
    n_pass: int = 0
    n_fail: int = 0
    corpus_value: float | None = None


class LeaderboardBuilder:
    """Accumulates result rows batch by batch; memory grows with models × metrics only.

    Example:
        >>> from assay.evaluators import get_evaluator
        >>> builder = LeaderboardBuilder([get_evaluator("exact_match")], {})
        >>> builder.add([{"model": "m", "evaluator": "exact_match", "metric": "exact_match",
        ...               "status": "ok", "value": 1.0, "passed": True}])
        >>> builder.rows()[0]["value"], builder.rows()[0]["n_ok"]
        (1.0, 1)
    """

    def __init__(self, evaluators: Iterable[Evaluator], thresholds: dict[str, float]) -> None:
        self._specs: dict[str, tuple[str, MetricSpec]] = {}
        for evaluator in evaluators:
            for spec in evaluator.metrics:
                self._specs[spec.name] = (evaluator.name, spec)
        self._thresholds = thresholds
        self._cells: dict[tuple[str, str], _Cell] = {}

    def add(self, rows: Iterable[ResultRow]) -> None:
        """Account for result rows (dicts with model, metric, status, value, passed)."""
        for row in rows:
            cell = self._cells.setdefault((row["model"], row["metric"]), _Cell())
            status, value = row["status"], row["value"]
            if status == "ok" and value is not None:  # an ok outcome always has a value
                cell.n_ok += 1
                cell.total += value
                cell.total_sq += value**2
                if row["passed"] is True:
                    cell.n_pass += 1
                elif row["passed"] is False:
                    cell.n_fail += 1
            elif status == "skipped":
                cell.n_skipped += 1
            else:
                cell.n_error += 1

    def set_corpus(self, model: str, metric: str, value: float | None) -> None:
        """Record a corpus-level value for a ``corpus`` metric."""
        self._cells.setdefault((model, metric), _Cell()).corpus_value = value

    def rows(self) -> list[LeaderboardRow]:
        """One row per (model, metric), ordered by evaluator declaration and model name."""
        order = {name: i for i, name in enumerate(self._specs)}
        out: list[LeaderboardRow] = []
        for (model, metric), cell in sorted(
            self._cells.items(), key=lambda item: (order.get(item[0][1], 1 << 30), item[0][0])
        ):
            evaluator, spec = self._specs[metric]
            threshold = self._thresholds.get(metric, spec.threshold)
            if spec.aggregation == "corpus":
                value = cell.corpus_value
                mean = std = None
            else:
                mean = cell.total / cell.n_ok if cell.n_ok else None
                var = cell.total_sq / cell.n_ok - mean**2 if mean is not None else None
                std = math.sqrt(max(var, 0.0)) if var is not None else None
                value = mean
            judged = cell.n_pass + cell.n_fail
            out.append(
                {
                    "model": model,
                    "evaluator": evaluator,
                    "metric": metric,
                    "primary": spec.primary,
                    "aggregation": spec.aggregation,
                    "higher_is_better": spec.higher_is_better,
                    "threshold": threshold,
                    "value": value,
                    "std": std,
                    "n_ok": cell.n_ok,
                    "n_skipped": cell.n_skipped,
                    "n_error": cell.n_error,
                    "n_pass": cell.n_pass,
                    "n_fail": cell.n_fail,
                    "pass_rate": cell.n_pass / judged if judged else None,
                    "passed": _passed(spec, value, threshold, cell),
                }
            )
        return out


def _passed(spec: MetricSpec, value: float | None, threshold: float | None,
            cell: _Cell) -> bool | None:
    """The metric's verdict: never a pass when it is unmeasured or mostly in error."""
    if value is None:
        return None
    passed = spec.passes(value, threshold)
    if passed and mostly_errored(cell.n_ok, cell.n_error):
        return None  # measured on too few cases to be called fine
    return passed
