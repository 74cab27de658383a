"""Shipped test helpers: sample cases, the evaluator conformance check, and evaluators wired to
the deterministic test backends (the fakes themselves live with their backend families)."""

from assay.testing.cases import sample_cases
from assay.testing.conformance import check_evaluator
from assay.testing.doubles import scripted_judge, with_test_doubles

__all__ = ["check_evaluator", "sample_cases", "scripted_judge", "with_test_doubles"]
