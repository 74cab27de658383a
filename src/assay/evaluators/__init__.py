"""Evaluators: the framework and the catalogue (one module per family)."""

from assay.evaluators.base import (
    CaseByCaseEvaluator,
    CaseResult,
    CorpusAccumulator,
    CorpusDetails,
    Evaluator,
    MetricSpec,
    Outcome,
    Status,
)
from assay.evaluators.registry import (
    catalogue,
    evaluator_class,
    evaluator_names,
    get_evaluator,
    metric_owner,
    register,
)

__all__ = [
    "CaseByCaseEvaluator",
    "CaseResult",
    "CorpusAccumulator",
    "CorpusDetails",
    "Evaluator",
    "MetricSpec",
    "Outcome",
    "Status",
    "catalogue",
    "evaluator_class",
    "evaluator_names",
    "get_evaluator",
    "metric_owner",
    "register",
]
