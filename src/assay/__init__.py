"""assay: explainable, reproducible, human-calibrated testing of LLM and RAG systems.

Importing assay is cheap: heavy libraries (torch, transformers, ray, ...) load only when a
feature that needs them is used.
"""

from assay._version import __version__
from assay.data import TestCase, TestSuite, read_suite, write_suite
from assay.errors import (
    AssayError,
    BackendError,
    InvalidInputError,
    JudgeParseError,
    MissingDependencyError,
)
from assay.evaluators import (
    CaseResult,
    Evaluator,
    MetricSpec,
    Outcome,
    Status,
    catalogue,
    evaluator_names,
    get_evaluator,
    register,
)
from assay.pipeline import evaluate
from assay.rundir import EvaluationRun, load_run

__all__ = [
    "AssayError",
    "BackendError",
    "CaseResult",
    "EvaluationRun",
    "Evaluator",
    "InvalidInputError",
    "JudgeParseError",
    "MetricSpec",
    "MissingDependencyError",
    "Outcome",
    "Status",
    "TestCase",
    "TestSuite",
    "__version__",
    "catalogue",
    "evaluate",
    "evaluator_names",
    "get_evaluator",
    "load_run",
    "read_suite",
    "register",
    "write_suite",
]
