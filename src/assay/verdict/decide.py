"""Check and dimension decisions: a rate with a one-sided bound against the plan's risk appetite.

For each system (model) and check:

* **PASS** when the *lower* bound of the pass rate reaches the target;
* **FAIL** when the *upper* bound stays below the target;
* **INCONCLUSIVE** otherwise — with how many more labels would likely decide it — and whenever
  nothing was measured, or the deciding metric is unmeasured on more than the plan's tolerance.

A labelled check is bounded by the design-based bound of design note 0063
(:func:`~assay.verdict.estimate.design_bounds`): the labels drawn by a design rectify the
cross-fitted calibrated P(PASS), hand-picked labels count as known units, and the census of the
labels (unlabelled cases counted as FAIL / PASS) clamps it; when no metric can decide, the labels
decide alone (λ = 0). Rule-based checks bound the rate of their per-case verdicts by the exact
Clopper–Pearson bound, counting REVIEW and unmeasured cases as failures for the lower bound and as
passes for the upper. Every bound is one *look* (:mod:`assay.verdict.looks`): look k spends
``α · 6 / (π² k²)`` of the plan's error, so re-assessing until decided keeps the stated confidence.

Zero tolerance (``max_fail_rate = 0``) fails on the first failing case and passes only when every
case in scope was measured and passed.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from assay.verdict.bounds import LOWER, UPPER, RateBound, clopper_pearson, labels_to_decide
from assay.verdict.cases import FAIL, HUMAN, PASS, REVIEW, UNMEASURED, CaseVerdicts
from assay.verdict.design import row_keys
from assay.verdict.estimate import design_bounds, design_labels_to_decide
from assay.verdict.looks import LookLedger, fingerprint, look_level
from assay.verdict.plan import Check

DECIDED_PASS, DECIDED_FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"
#: Exit codes of ``assay assess`` and ``assay junit --check`` (2 is an error of use or input).
EXIT_CODES = {DECIDED_PASS: 0, DECIDED_FAIL: 1, INCONCLUSIVE: 3}
#: Most failing cases a decision lists (``n_failing`` counts them all).
MAX_FAILING_CASES = 20
#: The bound's method in a validator's words.
METHODS = {
    "census": "census of the labels (unlabelled cases counted as FAIL / PASS)",
    "design-normal": "prediction-powered design bound (normal approximation)",
    "design-hypergeometric": "exact hypergeometric bound on the random labels",
    "design-betting": "betting bound on the active labels (Waudby-Smith & Ramdas)",
    "clopper-pearson": "exact Clopper–Pearson bound",
}


@dataclass
class CheckDecision:
    """The decision of one check for one system, with everything needed to explain it.

    ``metric`` is the deciding metric (a rule check's metrics, comma-separated) and ``threshold``
    the threshold a rule check applied (None: the evaluators' own, or several). ``look`` and
    ``level`` are the look this bound is and the one-sided confidence it used. A rule check lists
    its first :data:`MAX_FAILING_CASES` failing cases in ``failing_cases`` (``case_id``,
    ``model``, ``metric``, ``value``, ``threshold``); ``n_failing`` counts them all.
    """

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
    n_out_of_scope: int = 0
    n_design: int = 0
    n_unknown_design: int = 0
    rounds: list[int] = field(default_factory=list)
    lam: float | None = None
    look: int = 1
    level: float | None = None
    labels_needed: int | None = None
    threshold: float | None = None
    failing_cases: list[dict[str, Any]] = field(default_factory=list)
    n_failing: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


def _bounds_rule(verdicts: pd.Series, confidence: float, look: int) -> tuple[RateBound, RateBound]:
    n = len(verdicts)
    k = int((verdicts == PASS).sum())
    unsure = int(verdicts.isin([REVIEW, UNMEASURED]).sum())
    level = look_level(confidence, look)
    low = clopper_pearson(k, n, level, LOWER)
    high = clopper_pearson(k + unsure, n, level, UPPER)
    return (
        RateBound(**{**low.as_dict(), "confidence": confidence, "look": look, "level": level}),
        RateBound(**{**high.as_dict(), "confidence": confidence, "look": look, "level": level}),
    )


def _bounds_labelled(
    check: Check, verdicts: CaseVerdicts, rows: pd.DataFrame, review: str, look: int
) -> tuple[RateBound, RateBound]:
    """The design bound (0063): cross-fitted calibrated predictions, or the labels alone."""
    undecided = (
        set(row_keys(rows[rows["predicted"] == REVIEW])) if review == "conservative" else set()
    )
    return design_bounds(
        list(row_keys(rows)),
        verdicts.records,
        verdicts.rounds,
        scope=check.scope,
        confidence=check.confidence,
        look=look,
        fit_predict=verdicts.fit_predict,
        undecided=undecided,
        seed=0,
    )


def _digest(check: Check, verdicts: CaseVerdicts, rows: pd.DataFrame, labelled: bool) -> str:
    """Fingerprint of a bound's inputs: a look is new when they change."""
    units = sorted(row_keys(rows))
    if not labelled:
        return fingerprint([check.model_dump(), units, rows["verdict"].tolist()])
    inside = set(units)
    records = sorted(
        (k, r.value, r.design, r.round, r.probability)
        for k, r in verdicts.records.items()
        if k in inside
    )
    rounds = [(r.number, r.design, r.scope, len(r.draws)) for r in verdicts.rounds]
    return fingerprint([check.model_dump(), units, records, rounds, verdicts.metric])


def _failing(rows: pd.DataFrame) -> list[dict[str, Any]]:
    failing = rows[rows["verdict"] == FAIL]
    if "failed_metric" not in failing:
        return []
    return [
        {
            "case_id": str(r.case_id),
            "model": str(r.model),
            "metric": r.failed_metric,
            "value": None if pd.isna(r.value) else float(r.value),
            "threshold": None if pd.isna(r.threshold) else float(r.threshold),
        }
        for r in failing.head(MAX_FAILING_CASES).itertuples()
    ]


def decide_check(
    check: Check,
    verdicts: CaseVerdicts,
    model: str,
    review: str = "conservative",
    ledger: LookLedger | None = None,
) -> CheckDecision:
    """Decide one check for one system from its per-case verdicts.

    Args:
        check: the plan's check.
        verdicts: its per-case verdicts (with the labels, rounds and calibrator of a labelled
            check).
        model: the system.
        review: how REVIEW cases enter calibrated rate bounds (see
            :class:`~assay.verdict.plan.CalibrationSection`).
        ledger: the assessment's ledger of looks (None: this is look 1).
    """
    rows = verdicts.table[verdicts.table["model"] == model]
    counts = rows["verdict"].value_counts()
    machine = rows[rows["source"] != HUMAN]
    excluded = verdicts.excluded
    labelled_check = bool(verdicts.records) or verdicts.calibrated
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
        n_out_of_scope=int((excluded["model"] == model).sum()) if len(excluded) else 0,
        threshold=verdicts.threshold,
        failing_cases=_failing(rows),
        n_failing=int(counts.get(FAIL, 0)) if not labelled_check else 0,
    )
    if not len(rows):
        decision.reason = "not measured: no case of this system is in the check's scope"
        return decision
    if not decision.n_pass + decision.n_fail:
        decision.reason = (
            f"nothing was measured: none of the {len(rows)} cases has a PASS or FAIL verdict"
            + (f" ({verdicts.reason})" if verdicts.reason else "")
        )
        return decision
    unmeasured_share = decision.n_unmeasured / len(machine) if len(machine) else 0.0
    if unmeasured_share > check.max_unmeasured:
        decision.reason = (
            f"the deciding metric is unmeasured on {decision.n_unmeasured} of {len(machine)} cases "
            f"({unmeasured_share:.0%}, above the plan's tolerance {check.max_unmeasured:.0%})"
        )
        return decision
    look = (
        ledger.look(check.name, model, _digest(check, verdicts, rows, labelled_check))
        if (ledger is not None)
        else 1
    )
    if check.zero_tolerance:
        return _zero_tolerance(decision, rows)
    if labelled_check:
        lower, upper = _bounds_labelled(check, verdicts, rows, review, look)
    else:
        lower, upper = _bounds_rule(rows["verdict"], check.confidence, look)
    _record(decision, lower, upper)
    _decide(decision, check, verdicts, lower, upper, labelled_check, len(rows))
    return decision


def _record(decision: CheckDecision, lower: RateBound, upper: RateBound) -> None:
    estimates = [b.estimate for b in (lower, upper) if math.isfinite(b.estimate)]
    decision.estimate = float(np.mean(estimates)) if estimates else None
    decision.lower, decision.upper = lower.bound, upper.bound
    decision.method = (
        lower.method if lower.method == upper.method else (f"{lower.method} / {upper.method}")
    )
    decision.n_design, decision.n_unknown_design = lower.n_design, lower.n_unknown_design
    decision.rounds, decision.lam = list(lower.rounds), lower.lam
    decision.look, decision.level = lower.look, lower.level


def _basis(decision: CheckDecision, lower: RateBound, upper: RateBound) -> str:
    """What the bound rests on, in words."""
    methods = dict.fromkeys(METHODS.get(b.method, b.method) for b in (lower, upper))
    parts = [" / ".join(methods)]
    if decision.n_design:
        lam = f", λ = {decision.lam:.2f}" if decision.lam else ""
        rounds = ", ".join(str(r) for r in decision.rounds)
        parts.append(f"{decision.n_design} design labels from round {rounds}{lam}")
    if decision.n_unknown_design:
        parts.append(f"{decision.n_unknown_design} hand-picked labels counted as known cases")
    level = f"look {decision.look}, one-sided level {decision.level:.2%}" if decision.level else ""
    return "; ".join(p for p in [*parts, level] if p)


def _decide(
    decision: CheckDecision,
    check: Check,
    verdicts: CaseVerdicts,
    lower: RateBound,
    upper: RateBound,
    labelled_check: bool,
    n: int,
) -> None:
    level = f"{check.confidence:.0%}"
    basis = f" [{_basis(decision, lower, upper)}]"
    if lower.bound >= check.target:
        decision.decision = DECIDED_PASS
        decision.reason = f"pass rate ≥ {lower.bound:.3f} at {level} (target {check.target:.3f})"
    elif upper.bound < check.target:
        decision.decision = DECIDED_FAIL
        decision.reason = f"pass rate ≤ {upper.bound:.3f} at {level} (target {check.target:.3f})"
    else:
        decision.reason = (
            f"pass rate between {lower.bound:.3f} and {upper.bound:.3f} at {level} straddles the "
            f"target {check.target:.3f}"
        )
        if labelled_check:
            decision.labels_needed = design_labels_to_decide(lower, upper, check.target)
            if decision.labels_needed:
                decision.reason += (
                    f"; about {decision.labels_needed} more labels drawn at random "
                    f"(`assay labels sample --budget {decision.labels_needed}`) would likely "
                    "decide it"
                )
            if not decision.n_design and decision.n_labelled:
                kind = "hand-picked" if decision.n_unknown_design else "labelled"
                decision.reason += (
                    f"; the {decision.n_labelled} {kind} cases settle their own verdicts but no "
                    "bound may treat them as a random sample"
                )
        else:
            k = round((decision.estimate or 0.0) * n)
            total = labels_to_decide(k, n, check.target, lower.level or check.confidence)
            decision.labels_needed = total - n if total else None
            if decision.labels_needed:
                decision.reason += (
                    f"; about {decision.labels_needed} more cases at the observed rate would "
                    "decide it"
                )
    decision.reason += basis
    if verdicts.reason and labelled_check:
        decision.reason += f" ({verdicts.reason})"
    if not verdicts.calibrated and not labelled_check:
        decision.reason += " (uncalibrated: thresholds from the plan or the evaluators' defaults)"


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
