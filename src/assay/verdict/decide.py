"""Check and dimension decisions: a rate with a one-sided bound against the plan's risk appetite.

For each system (model) and check:

* **PASS** when the *lower* bound of the pass rate, counting REVIEW and unmeasured cases as
  failures, reaches the target;
* **FAIL** when the *upper* bound, counting them as passes, stays below the target;
* **INCONCLUSIVE** otherwise — with how many labelled cases in all would decide it if the observed
  rate held — and whenever the deciding metric is unmeasured on more than the plan's tolerance or
  no metric passes the validity gate.

Zero tolerance (``max_fail_rate = 0``) fails on the first failing case and passes only when every
case in scope was measured and passed. Calibrated checks bound the rate by prediction-powered
inference (the labelled cases not used to fit the calibrator rectify the calibrated P(PASS) of
the unlabelled ones) when ``ppi-python`` is installed and at least :data:`MIN_PPI_LABELS` such
labels exist for the system;
otherwise, and for human labels alone, by the exact Clopper–Pearson bound on the labelled cases.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from assay.verdict.bounds import (
    LOWER,
    UPPER,
    RateBound,
    clopper_pearson,
    labels_to_decide,
    ppi_available,
    ppi_bound,
)
from assay.verdict.cases import CALIBRATED, FAIL, HUMAN, PASS, REVIEW, UNMEASURED, CaseVerdicts
from assay.verdict.plan import Check

DECIDED_PASS, DECIDED_FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
#: Exit codes of ``assay assess`` and ``assay junit --check`` (2 is an error of use or input).
EXIT_CODES = {DECIDED_PASS: 0, DECIDED_FAIL: 1, INCONCLUSIVE: 3}
#: Fewest labelled test cases of a system for the prediction-powered bound.
MIN_PPI_LABELS = 10


@dataclass
class CheckDecision:
    """The decision of one check for one system, with everything needed to explain it."""

    dimension: str
    check: str
    model: str
    appetite: str
    target: float
    confidence: float
    decision: str
    reason: str
    calibrated: bool
    metric: str | None
    method: str | None = None
    estimate: float | None = None
    lower: float | None = None
    upper: float | None = None
    n_cases: int = 0
    n_labelled: int = 0
    n_pass: int = 0
    n_fail: int = 0
    n_review: int = 0
    n_unmeasured: int = 0
    labels_needed: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def _bounds_rule(verdicts: pd.Series, confidence: float) -> tuple[RateBound, RateBound]:
    n = len(verdicts)
    k = int((verdicts == PASS).sum())
    unsure = int(verdicts.isin([REVIEW, UNMEASURED]).sum())
    return clopper_pearson(k, n, confidence, LOWER), clopper_pearson(
        k + unsure, n, confidence, UPPER
    )


def _predictions(rows: pd.DataFrame, column: str, review: str, side: str) -> np.ndarray:
    """P(PASS) of each case for the PPI bound on ``side``; undecided cases per the plan.

    Unmeasured cases have no prediction: FAIL (0) for the lower bound, PASS (1) for the upper.
    REVIEW cases are counted the same way (``conservative``) or keep their P(PASS)
    (``calibrated``).
    """
    extreme = 0.0 if side == LOWER else 1.0
    p = rows["p_pass"].to_numpy(dtype=float)
    verdict = rows[column].to_numpy(dtype=object)
    undecided = verdict == UNMEASURED
    if review == "conservative":
        undecided |= verdict == REVIEW
    return np.where(undecided | np.isnan(p), extreme, p)


def _bounds_calibrated(
    rows: pd.DataFrame, confidence: float, review: str
) -> tuple[RateBound, RateBound]:
    """PPI: labels not used to fit the calibrator rectify the calibrated P(PASS) of the
    unlabelled cases; else exact bounds on the human labels alone."""
    human = rows[rows["source"] == HUMAN]
    rectifier = human[human["split"].isin(["test", "conformal"]) & human["predicted"].notna()]
    unlabelled = rows[rows["source"] == CALIBRATED]
    y = rectifier["label"].to_numpy(dtype=float)
    # The PPI interval is a normal approximation: when the labels do not vary at all its variance
    # estimate collapses and the bound with it; the exact labels-only bound is used then.
    if ppi_available() and len(rectifier) >= MIN_PPI_LABELS and len(unlabelled) and _varies(y):
        bounds = []
        for side in (LOWER, UPPER):
            labelled = _predictions(rectifier, "predicted", review, side)
            others = _predictions(unlabelled, "verdict", review, side)
            bounds.append(ppi_bound(y, labelled, others, confidence, side))
        return bounds[0], bounds[1]
    k, n = int((human["label"] == 1).sum()), len(human)
    return clopper_pearson(k, n, confidence, LOWER), clopper_pearson(k, n, confidence, UPPER)


def _varies(values: np.ndarray) -> bool:
    return bool(np.ptp(values) > 0)


def decide_check(
    check: Check, verdicts: CaseVerdicts, model: str, review: str = "conservative"
) -> CheckDecision:
    """Decide one check for one system from its per-case verdicts (``review``: how REVIEW cases
    enter calibrated rate bounds, see :class:`~assay.verdict.plan.CalibrationSection`)."""
    rows = verdicts.table[verdicts.table["model"] == model]
    counts = rows["verdict"].value_counts()
    machine = rows[rows["source"] != HUMAN]
    decision = CheckDecision(
        dimension=check.dimension,
        check=check.name,
        model=model,
        appetite=check.appetite(),
        target=check.target,
        confidence=check.confidence,
        decision=INCONCLUSIVE,
        reason="",
        calibrated=verdicts.calibrated,
        metric=verdicts.metric,
        n_cases=len(rows),
        n_labelled=int((rows["source"] == HUMAN).sum()),
        n_pass=int(counts.get(PASS, 0)),
        n_fail=int(counts.get(FAIL, 0)),
        n_review=int(counts.get(REVIEW, 0)),
        n_unmeasured=int(counts.get(UNMEASURED, 0)),
    )
    if not len(rows):
        decision.reason = "not measured: no case of this system is in the check's scope"
        return decision
    if verdicts.metric is None and verdicts.reason:
        decision.reason = verdicts.reason
        return decision
    unmeasured_share = decision.n_unmeasured / len(machine) if len(machine) else 0.0
    if unmeasured_share > check.max_unmeasured:
        decision.reason = (
            f"the deciding metric is unmeasured on {decision.n_unmeasured} of {len(machine)} cases "
            f"({unmeasured_share:.0%}, above the plan's tolerance {check.max_unmeasured:.0%})"
        )
        return decision
    if check.zero_tolerance:
        return _zero_tolerance(decision, rows)
    if verdicts.calibrated:
        lower, upper = _bounds_calibrated(rows, check.confidence, review)
    else:
        lower, upper = _bounds_rule(rows["verdict"], check.confidence)
    decision.method = lower.method
    decision.estimate = lower.estimate if np.isfinite(lower.estimate) else None
    decision.lower, decision.upper = lower.bound, upper.bound
    level = f"{check.confidence:.0%}"
    if lower.bound >= check.target:
        decision.decision = DECIDED_PASS
        decision.reason = f"pass rate ≥ {lower.bound:.3f} at {level} (target {check.target:.3f})"
    elif upper.bound < check.target:
        decision.decision = DECIDED_FAIL
        decision.reason = f"pass rate ≤ {upper.bound:.3f} at {level} (target {check.target:.3f})"
    else:
        n = decision.n_labelled if verdicts.calibrated else len(rows)
        k = round((decision.estimate or 0.0) * n)
        decision.labels_needed = labels_to_decide(k, n, check.target, check.confidence)
        kind = "labelled cases" if verdicts.calibrated else "cases"
        more = (
            f"; about {decision.labels_needed - n} more {kind} at the observed rate would decide it"
            if decision.labels_needed
            else ""
        )
        decision.reason = (
            f"pass rate between {lower.bound:.3f} and {upper.bound:.3f} at {level} straddles the "
            f"target {check.target:.3f}{more}"
        )
    if not verdicts.calibrated:
        decision.reason += " (uncalibrated: thresholds from the plan or the evaluators' defaults)"
    return decision


def _zero_tolerance(decision: CheckDecision, rows: pd.DataFrame) -> CheckDecision:
    n = len(rows)
    upper = clopper_pearson(n - decision.n_pass, n, decision.confidence, UPPER)
    decision.method, decision.estimate = "zero tolerance", decision.n_pass / n
    decision.lower, decision.upper = 1.0 - upper.bound, decision.n_pass / n
    if decision.n_fail:
        decision.decision = DECIDED_FAIL
        decision.reason = f"{decision.n_fail} of {n} cases fail (zero tolerance)"
    elif decision.n_review or decision.n_unmeasured:
        decision.reason = (
            f"no failing case, but {decision.n_review + decision.n_unmeasured} of {n} are "
            "undecided (review or unmeasured) under zero tolerance"
        )
    else:
        decision.decision = DECIDED_PASS
        decision.reason = (
            f"all {n} cases pass; fail rate ≤ {upper.bound:.3f} at {decision.confidence:.0%}"
        )
    if not decision.calibrated:
        decision.reason += " (uncalibrated)"
    return decision


def combine(decisions: list[str]) -> str:
    """A dimension's (or a system's) decision from its checks': any FAIL fails, then INCONCLUSIVE.

    Example:
        >>> combine(["PASS", "INCONCLUSIVE"]), combine(["PASS", "FAIL", "INCONCLUSIVE"])
        ('INCONCLUSIVE', 'FAIL')
    """
    if DECIDED_FAIL in decisions:
        return DECIDED_FAIL
    if not decisions or INCONCLUSIVE in decisions:
        return INCONCLUSIVE
    return DECIDED_PASS
