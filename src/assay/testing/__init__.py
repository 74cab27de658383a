"""Shipped test helpers: sample cases, fakes for model backends, an evaluator conformance check."""

from assay.testing.cases import sample_cases
from assay.testing.conformance import check_evaluator

__all__ = ["check_evaluator", "sample_cases"]
