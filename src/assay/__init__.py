"""assay: explainable, reproducible, human-calibrated testing of LLM and RAG systems.

Importing assay is cheap: the public names below load on first access, and heavy libraries
(numpy, pandas, pyarrow, torch, transformers, ray, ...) only when a feature that needs them is
used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay._lazy import lazy_attributes
from assay._version import __version__
from assay.errors import (
    AssayError,
    BackendError,
    InvalidInputError,
    JudgeParseError,
    MissingDependencyError,
)

if TYPE_CHECKING:
    from assay.data import TestCase, TestSuite, read_suite, write_suite
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

#: Public names imported on first access (PEP 562), so ``import assay`` loads neither numpy,
#: pandas, pyarrow nor pydantic; ``tests/test_lazy_imports.py`` guards it.
_LAZY = {
    **dict.fromkeys(("TestCase", "TestSuite", "read_suite", "write_suite"), "assay.data"),
    **dict.fromkeys(("CaseResult", "Evaluator", "MetricSpec", "Outcome", "Status", "catalogue",
                     "evaluator_names", "get_evaluator", "register"), "assay.evaluators"),
    "evaluate": "assay.pipeline",
    **dict.fromkeys(("EvaluationRun", "load_run"), "assay.rundir"),
}

__getattr__ = lazy_attributes(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


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
