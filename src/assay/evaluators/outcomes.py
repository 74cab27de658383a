"""What an evaluator reports: metric specs and explicit outcomes (DESIGN §3: "could not score"
is explicit). The per-case form, :class:`CaseResult`; the columnar form of a batch is
:class:`assay.evaluators.batch.ResultBatch`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """Whether a metric could be computed for a case."""

    OK = "ok"
    SKIPPED = "skipped"
    ERROR = "error"


@dataclass(frozen=True)
class MetricSpec:
    """What a metric means: direction, range, default threshold and how it aggregates.

    ``aggregation`` is ``"mean"`` (the mean of per-case values) or ``"corpus"`` (computed over all
    of a model's cases by :meth:`Evaluator.corpus_metrics`, e.g. corpus BLEU or macro F1).
    """

    name: str
    description: str
    higher_is_better: bool = True
    range: tuple[float, float] = (0.0, 1.0)
    threshold: float | None = None
    primary: bool = False
    aggregation: str = "mean"

    @classmethod
    def count(cls, name: str, description: str, *, threshold: float | None = None,
              primary: bool = False) -> MetricSpec:
        """A metric that counts unwanted things: lower is better, in ``[0, inf)``.

        Example:
            >>> MetricSpec.count("edits", "number of edits").range
            (0.0, inf)
        """
        return cls(name, description, higher_is_better=False, range=(0.0, math.inf),
                   threshold=threshold, primary=primary)

    def passes(self, value: float, threshold: float | None = None) -> bool | None:
        """Return whether ``value`` is on the good side of the threshold (None without one)."""
        limit = self.threshold if threshold is None else threshold
        if limit is None:
            return None
        return value >= limit if self.higher_is_better else value <= limit

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable description (infinite bounds become ``None``)."""
        data = asdict(self)
        data["range"] = [None if math.isinf(b) else b for b in self.range]
        return data


@dataclass(frozen=True)
class Outcome:
    """The outcome of one metric on one case: a value only when ``status`` is ``ok``."""

    status: Status
    value: float | None = None
    reason: str | None = None

    def __post_init__(self) -> None:
        if (self.status is Status.OK) != (self.value is not None):
            raise ValueError("an Outcome has a value exactly when its status is 'ok'")
        if self.status is not Status.OK and not self.reason:
            raise ValueError("a skipped or error Outcome needs a reason")

    @classmethod
    def ok_or_skipped(cls, value: float | None, reason: str) -> Outcome:
        """``ok`` with ``value``, or ``skipped`` with ``reason`` when ``value`` is None.

        Example:
            >>> Outcome.ok_or_skipped(None, "no turn to score").status.value
            'skipped'
        """
        if value is None:
            return cls(Status.SKIPPED, None, reason)
        return cls(Status.OK, value)


@dataclass
class CaseResult:
    """All metric outcomes of one evaluator on one case, with a human-readable explanation.

    ``details`` holds JSON-serialisable evidence for drill-down (e.g. per-sentence scores).
    """

    outcomes: dict[str, Outcome]
    explanation: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def ok(
        cls,
        values: dict[str, float],
        explanation: str | None = None,
        details: dict[str, Any] | None = None,
    ) -> CaseResult:
        """Every metric in ``values`` computed."""
        outcomes = {name: Outcome(Status.OK, float(v)) for name, v in values.items()}
        return cls(outcomes, explanation, details or {})

    @classmethod
    def skipped(cls, metrics: Sequence[str], reason: str) -> CaseResult:
        """No metric applies to this case, for ``reason``."""
        return cls({m: Outcome(Status.SKIPPED, None, reason) for m in metrics})

    @classmethod
    def error(cls, metrics: Sequence[str], reason: str) -> CaseResult:
        """Computing failed for this case, for ``reason``."""
        return cls({m: Outcome(Status.ERROR, None, reason) for m in metrics})
