"""Running evaluators over a suite and writing the run directory."""

from assay.engine.evaluate import evaluate, resolve_evaluators
from assay.engine.run import EvaluationRun, load_run

__all__ = ["EvaluationRun", "evaluate", "load_run", "resolve_evaluators"]
