"""Scoring a suite with evaluators, batch by batch (the pipeline around it: :mod:`assay.pipeline`)."""

from assay.engine.score import Scored, resolve_evaluators, score

__all__ = ["Scored", "resolve_evaluators", "score"]
