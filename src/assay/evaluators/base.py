"""The evaluator framework: metric specs, explicit outcomes and the batch evaluator base class.

One way to add an evaluator (DESIGN §1): subclass :class:`Evaluator`, declare its metrics and the
fields it needs, implement :meth:`Evaluator.score` over a batch, and decorate the class with
:func:`assay.evaluators.registry.register`. The base class owns everything generic: skipping
cases that lack a required field, turning exceptions into ``error`` outcomes, and checking that
every value is finite and inside its declared range.
"""

from __future__ import annotations

import logging
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Protocol, runtime_checkable

from assay.data.case import TestCase
from assay.params import constructor_params

logger = logging.getLogger(__name__)

#: Case fields an evaluator may require.
REQUIRABLE_FIELDS = (
    "question",
    "expected_answer",
    "retrieved_context",
    "context_ids",
    "relevant_ids",
    "relevant_context",
    "actual_answer",
    "condition",
)


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


class CorpusAccumulator(Protocol):
    """Collects a model's cases batch by batch for corpus-level metrics."""

    def add(self, cases: Sequence[TestCase], results: Sequence[CaseResult]) -> None:
        """Take one more batch."""

    def finish(self) -> dict[str, float | None]:
        """Return the corpus-level metric values (None where undefined)."""


@runtime_checkable
class CorpusDetails(Protocol):
    """A corpus accumulator that also gives corpus-level evidence (e.g. a confusion matrix).

    ``details()`` is called after ``finish()`` and returns a small JSON-serialisable dict (it may
    grow with a label set, never with the number of cases); the engine stores it per evaluator
    and model in the run's ``corpus_details.json``.
    """

    def details(self) -> dict[str, Any]:
        """The corpus-level evidence of one model."""
        ...  # pragma: no cover


def problem(kind: str, message: str) -> dict[str, str]:
    """An evaluator-specific problem for ``CaseResult.details["problems"]`` (it reaches the
    run's ``problems.json``; :mod:`assay.analyze.evaluator_problems`).

    Example:
        >>> problem("token_limit", "600 tokens, over the model's 512-token limit")
        {'kind': 'token_limit', 'message': "600 tokens, over the model's 512-token limit"}
    """
    return {"kind": kind, "message": message}


class PrefetchFunction(Protocol):
    """Does shared work for a group of evaluators over a whole run; returns the items done."""

    def __call__(
        self,
        evaluators: Sequence[Evaluator],
        cases: Sequence[TestCase],
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Prefetch for ``evaluators`` over ``cases``; ``progress(done, total)`` between steps."""
        ...  # pragma: no cover


@dataclass(frozen=True)
class Prefetch:
    """A run-level step an evaluator declares (:meth:`Evaluator.prefetch`): the engine calls
    ``run`` once, before scoring, with every evaluator of the run that declares the same step
    (e.g. the embedding evaluators share one length-sorted encoding pass, design note 0004).

    It is only an optimisation: when it fails, evaluators do the work batch by batch.
    """

    #: Step name, shown in progress and recorded in the manifest's timings.
    name: str
    run: PrefetchFunction


def field_present(case: TestCase, name: str) -> bool:
    """Whether ``case`` has a usable value for the requirable field ``name``."""
    value = getattr(case, name)
    if value is None:
        return False
    return not (name in ("question", "condition") and isinstance(value, str) and not value.strip())


class Evaluator(ABC):
    """Base class of every evaluator: batch in, one :class:`CaseResult` per case out.

    Subclasses set the class attributes and implement :meth:`score`. Constructor parameters must
    be stored under attributes of the same name (the scikit-learn convention), which makes
    :meth:`get_params`, the run manifest and pickling work without further code.
    """

    name: ClassVar[str]
    family: ClassVar[str]
    description: ClassVar[str]
    metrics: ClassVar[tuple[MetricSpec, ...]]
    requires: ClassVar[tuple[str, ...]] = ()
    reproducible: ClassVar[bool] = True
    extra: ClassVar[str | None] = None
    #: When set, batches never split a group of cases with the same :meth:`group_key`.
    grouped: ClassVar[bool] = False

    # -- declared interface -------------------------------------------------------------
    @abstractmethod
    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        """Score cases that all have the required fields; return one result per case."""

    def group_key(self, case: TestCase) -> Any:
        """Key of the group a case belongs to (only used when ``grouped``)."""
        return None

    def corpus_accumulator(self) -> CorpusAccumulator | None:
        """A fresh accumulator for this evaluator's ``corpus`` metrics, or None."""
        return None

    def prefetch(self) -> Prefetch | None:
        """The run-level step this evaluator shares with others before scoring, or None."""
        return None

    # -- generic machinery --------------------------------------------------------------
    @classmethod
    def metric_names(cls) -> list[str]:
        """Names of the declared metrics, in order."""
        return [m.name for m in cls.metrics]

    @classmethod
    def metric(cls, name: str) -> MetricSpec:
        """The spec of metric ``name``."""
        for spec in cls.metrics:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @classmethod
    def primary_metric(cls) -> MetricSpec:
        """The primary metric (the first declared when none is flagged)."""
        return next((m for m in cls.metrics if m.primary), cls.metrics[0])

    def get_params(self) -> dict[str, Any]:
        """Constructor parameters and their current values."""
        return constructor_params(self)

    def spec(self) -> dict[str, Any]:
        """A JSON-serialisable description of this configured evaluator (for manifests)."""
        return {
            "name": self.name,
            "family": self.family,
            "class": f"{type(self).__module__}.{type(self).__qualname__}",
            "description": self.description,
            "params": _jsonable(self.get_params()),
            "requires": list(self.requires),
            "reproducible": self.reproducible,
            "extra": self.extra,
            "metrics": [m.to_dict() for m in self.metrics],
        }

    def __repr__(self) -> str:
        params = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({params})"

    def missing_fields(self, case: TestCase) -> list[str]:
        """Required fields that ``case`` lacks."""
        return [f for f in self.requires if not field_present(case, f)]

    def evaluate(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        """Evaluate a batch: skip cases lacking fields, score the rest, validate every value.

        Never raises for a problem with one case or the scoring itself: such problems become
        ``skipped`` or ``error`` outcomes with a reason.
        """
        names = self.metric_names()
        results: list[CaseResult | None] = [None] * len(cases)
        eligible: list[int] = []
        for index, case in enumerate(cases):
            missing = self.missing_fields(case)
            if missing:
                results[index] = CaseResult.skipped(
                    names, f"missing required field(s): {', '.join(missing)}"
                )
            else:
                eligible.append(index)
        if eligible:
            batch = [cases[i] for i in eligible]
            try:
                scored = self.score(batch)
                if len(scored) != len(batch):
                    raise RuntimeError(
                        f"{self.name} returned {len(scored)} results for {len(batch)} cases"
                    )
            except Exception as exc:  # one failing batch must not end the run
                logger.exception("evaluator %s failed on a batch", self.name)
                scored = [CaseResult.error(names, f"{type(exc).__name__}: {exc}")] * len(batch)
            for index, result in zip(eligible, scored, strict=True):
                results[index] = self._checked(result)
        return [r for r in results if r is not None]

    def _checked(self, result: CaseResult) -> CaseResult:
        """Fill undeclared gaps and turn non-finite or out-of-range values into errors."""
        outcomes: dict[str, Outcome] = {}
        for spec in self.metrics:
            outcome = result.outcomes.get(spec.name)
            if outcome is None:
                if spec.aggregation == "corpus":
                    continue
                outcome = Outcome(Status.ERROR, None, f"{self.name} did not report {spec.name}")
            elif outcome.status is Status.OK:
                value = outcome.value
                low, high = spec.range
                assert value is not None
                if not math.isfinite(value):
                    outcome = Outcome(Status.ERROR, None, f"non-finite value {value}")
                elif low <= value <= high:
                    pass
                elif low - _slack(low) <= value <= high + _slack(high):
                    # float rounding (e.g. a float32 cosine of 1.0000000271): clipped
                    outcome = Outcome(Status.OK, min(max(value, low), high))
                else:
                    outcome = Outcome(
                        Status.ERROR, None, f"value {value} outside declared range [{low}, {high}]"
                    )
            outcomes[spec.name] = outcome
        return CaseResult(outcomes, result.explanation, result.details)


#: Relative tolerance of the range check: float32 arithmetic (embedding models) rounds to about
#: 6e-8, so a cosine of 1.0000000271 is a rounding of 1, not an out-of-range value.
RANGE_TOLERANCE = 1e-6


class CaseByCaseEvaluator(Evaluator):
    """An evaluator that scores each case on its own (nothing to batch): implement
    :meth:`score_case`."""

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return [self.score_case(case) for case in cases]

    @abstractmethod
    def score_case(self, case: TestCase) -> CaseResult:
        """The result of one case that has the required fields."""


def _slack(bound: float) -> float:
    """How far past ``bound`` a value may lie and still count as float rounding (then clipped)."""
    return 0.0 if math.isinf(bound) else RANGE_TOLERANCE * max(1.0, abs(bound))


def _jsonable(value: Any) -> Any:
    """Best-effort conversion of parameter values to JSON-compatible data."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)
