"""The verdict: per-case PASS / FAIL / REVIEW from human-calibrated scores, per dimension a rate
with a one-sided confidence bound decided against the validation plan's risk appetite.

Importing this package is light; calibration and statistics load when :func:`assess` runs.
"""

from assay.verdict.assess import Assessment, assess
from assay.verdict.decide import EXIT_CODES, CheckDecision
from assay.verdict.plan import DIMENSIONS, Check, ValidationPlan, load_plan, parse_plan

__all__ = [
    "DIMENSIONS",
    "EXIT_CODES",
    "Assessment",
    "Check",
    "CheckDecision",
    "ValidationPlan",
    "assess",
    "load_plan",
    "parse_plan",
]
