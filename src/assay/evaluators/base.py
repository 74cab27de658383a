"""The evaluator framework: the batch evaluator base class (metric specs and outcomes:
:mod:`assay.evaluators.outcomes`; their columnar form: :mod:`assay.evaluators.batch`).

One way to add an evaluator (DESIGN §1): subclass :class:`Evaluator`, declare its metrics and the
fields it needs, implement :meth:`Evaluator.score` over a batch, and decorate the class with
:func:`assay.evaluators.registry.register`. The base class owns everything generic: skipping
cases that lack a required field, turning exceptions into ``error`` outcomes, and checking that
every value is finite and inside its declared range.
"""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from assay.data.case import TestCase
from assay.evaluators.batch import ResultBatch
from assay.evaluators.outcomes import CaseResult, MetricSpec, Outcome, Status
from assay.params import constructor_params
from assay.safety.credentials import redact_settings, redact_text

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
    #: Set when every explanation this evaluator writes holds only numbers, its own words and
    #: case texts it passed through :func:`assay.safety.scrub`: the report then shows them
    #: without scanning them again (a 10,000-case report scanned ~7,000 such texts, issue 23).
    #: ``tests/evaluators/test_masked_explanations.py`` checks the claim on PII-laden cases.
    explanations_masked: ClassVar[bool] = False

    # -- declared interface -------------------------------------------------------------
    @abstractmethod
    def score(self, cases: Sequence[TestCase]) -> Sequence[CaseResult]:
        """Score cases that all have the required fields; return one result per case: a list of
        :class:`CaseResult`, or a :class:`~assay.evaluators.batch.ResultBatch` built column by
        column (design note 0036)."""

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
            "params": redact_settings(_jsonable(self.get_params())),
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

    def evaluate(self, cases: Sequence[TestCase]) -> ResultBatch:
        """Evaluate a batch: skip cases lacking fields, score the rest, validate every value.

        Never raises for a problem with one case or the scoring itself: such problems become
        ``skipped`` or ``error`` outcomes with a reason. The result is columnar (one value,
        status and reason column per metric) and reads as one :class:`CaseResult` per case.
        """
        names = self.metric_names()
        parts: list[tuple[list[int], ResultBatch]] = []
        eligible: list[int] = []
        missing: dict[str, list[int]] = {}
        truncated: list[int] = []
        reads_answer = not self.requires or not set(self.requires) <= _ANSWER_FREE
        for index, case in enumerate(cases):
            fields = self.missing_fields(case)
            if fields:
                missing.setdefault(", ".join(fields), []).append(index)
            elif reads_answer and case.truncated is not None:
                truncated.append(index)
            else:
                eligible.append(index)
        for lacking, positions in missing.items():
            reason = f"missing required field(s): {lacking}"
            parts.append((positions, ResultBatch.uniform(names, len(positions), Status.SKIPPED,
                                                         reason)))
        if truncated:  # an incomplete answer is unmeasured, and said so in problems.json
            parts.append((truncated, ResultBatch.of(names, [
                _truncated(names, cases[i].truncated or "") for i in truncated])))
        if eligible:
            batch = cases if len(eligible) == len(cases) else [cases[i] for i in eligible]
            try:
                scored = ResultBatch.of(names, self.score(batch))
                if len(scored) != len(batch):
                    raise RuntimeError(
                        f"{self.name} returned {len(scored)} results for {len(batch)} cases"
                    )
            except Exception as exc:  # one failing batch must not end the run
                logger.exception("evaluator %s failed on a batch", self.name)
                scored = ResultBatch.uniform(names, len(batch), Status.ERROR,
                                             redact_text(f"{type(exc).__name__}: {exc}"))
            parts.append((eligible, scored))
        if not parts:
            return ResultBatch.scored(names, np.empty((0, len(names))), [], [])
        whole = parts[0][1] if len(parts) == 1 else ResultBatch.stack(len(cases), parts)
        return whole.checked(self.metrics, self.name)


#: Fields that do not hold what the system answered: an evaluator requiring only these (the
#: retrieval and question evaluators) still scores a truncated answer's case; any other (those
#: reading the answer, the turns or the trajectory) counts it as unmeasured.
_ANSWER_FREE = frozenset(
    {"question", "expected_answer", "retrieved_context", "context_ids", "relevant_ids",
     "relevant_context"}
)


def _truncated(names: Sequence[str], reason: str) -> CaseResult:
    """Every metric skipped for an answer cut at the system's token limit."""
    return CaseResult(
        {m: Outcome(Status.SKIPPED, None, reason) for m in names},
        reason,
        {"problems": [problem("truncated_answer", reason)]},
    )


class CaseByCaseEvaluator(Evaluator):
    """An evaluator that scores each case on its own (nothing to batch): implement
    :meth:`score_case`."""

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return [self.score_case(case) for case in cases]

    @abstractmethod
    def score_case(self, case: TestCase) -> CaseResult:
        """The result of one case that has the required fields."""


def _jsonable(value: Any) -> Any:
    """Best-effort conversion of parameter values to JSON-compatible data."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_jsonable(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


__all__ = [
    "REQUIRABLE_FIELDS",
    "CaseByCaseEvaluator",
    "CaseResult",
    "CorpusAccumulator",
    "CorpusDetails",
    "Evaluator",
    "MetricSpec",
    "Outcome",
    "Prefetch",
    "PrefetchFunction",
    "ResultBatch",
    "Status",
    "field_present",
    "problem",
]
