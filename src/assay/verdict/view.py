"""What the verdict page and ``verdict.md`` show, computed once for both (compute apart from
render): per system a summary line, its checks in their risk appetite's own terms (a fail-rate
appetite is shown as a fail rate), the cases each check's n leaves out, the failing cases of rule
checks, and reviewer overrules.

Everything that comes from the suite, the plan or the models (names, reasons, case ids) goes
through the report's one redaction pass (:func:`assay.safety.redact`) here; the renderers escape.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from assay.rundir.layout import VERDICT_CASES_FILE
from assay.safety.masking import redact
from assay.verdict.overrules import overrule_records
from assay.verdict.plan import DIMENSIONS

if TYPE_CHECKING:
    from assay.verdict.assess import Assessment
    from assay.verdict.decide import CheckDecision
    from assay.verdict.plan import Check

#: Failing cases of a rule check listed on the page (the rest are in verdict_cases.csv).
MAX_FAILING_SHOWN = 10
#: Column headings of the reviewer-overrule table (other keys are shown as they are).
OVERRULE_HEADINGS = {
    "case_id": "case",
    "model": "system",
    "rule_verdict": "rule verdict",
    "verdict": "reviewer's verdict",
    "at": "when",
    "reason": "why",
}


def fmt(value: float | None, digits: int = 3) -> str:
    """A rate for the page.

    Example:
        >>> fmt(0.79312), fmt(None)
        ('0.793', 'n/a')
    """
    return "n/a" if value is None else f"{value:.{digits}f}"


def _kind(check: Check | None) -> str:
    """``fail`` when the appetite is a fail rate (``max_fail_rate``, zero tolerance included)."""
    return "fail" if check is not None and check.max_fail_rate is not None else "pass"


def in_terms(d: CheckDecision, kind: str) -> tuple[float | None, float | None, float | None]:
    """Estimate, lower and upper bound of the rate the appetite names (pass or fail rate).

    Example:
        >>> from types import SimpleNamespace as D
        >>> in_terms(D(estimate=0.25, lower=0.1, upper=0.4), "fail")
        (0.75, 0.6, 0.9)
    """
    if kind == "pass":
        return d.estimate, d.lower, d.upper
    flip = [None if v is None else round(1.0 - v, 12) for v in (d.estimate, d.upper, d.lower)]
    return flip[0], flip[1], flip[2]


_NUMBER = r"(\d+(?:\.\d+)?)"
_PASS_PHRASES = (
    (re.compile(rf"pass rate ≥ {_NUMBER}"), "fail rate ≤ {0}"),
    (re.compile(rf"pass rate ≤ {_NUMBER}"), "fail rate ≥ {0}"),
    (re.compile(rf"pass rate between {_NUMBER} and {_NUMBER}"), "fail rate between {1} and {0}"),
    (re.compile(rf"\(target {_NUMBER}\)"), "(target {0})"),
    (re.compile(rf"the target {_NUMBER}"), "the target {0}"),
)


def as_fail_rate(reason: str) -> str:
    """A decision's reason in fail-rate terms, for a fail-rate appetite (the decision states pass
    rates; each number is read as 1 − it). Phrases it does not know are left as they are.

    Example:
        >>> as_fail_rate("pass rate ≤ 0.347 at 95% (target 0.900)")
        'fail rate ≥ 0.653 at 95% (target 0.100)'
        >>> as_fail_rate("pass rate between 0.861 and 1.000 at 95% straddles the target 0.900")
        'fail rate between 0.000 and 0.139 at 95% straddles the target 0.100'
    """
    def flip(text: str) -> str:
        return f"{1.0 - float(text):.{max(len(text.partition('.')[2]), 1)}f}"

    for pattern, template in _PASS_PHRASES:
        reason = pattern.sub(
            lambda m, t=template: t.format(*(flip(g) for g in m.groups())), reason  # type: ignore[misc]
        )
    return reason


def _bounds_text(kind: str, lower: float | None, upper: float | None, confidence: float) -> str:
    if lower is None or upper is None:
        return "no bound"
    return f"{kind} rate in [{fmt(lower)}, {fmt(upper)}] at {confidence:.0%} (one-sided bounds)"


def _check_view(d: CheckDecision, check: Check | None, assessment: Assessment) -> dict[str, Any]:
    kind = _kind(check)
    target = d.target if kind == "pass" else round(1.0 - d.target, 12)
    estimate, lower, upper = in_terms(d, kind)
    left = assessment.left_out.get((d.check, d.model))
    failing, n_failing = list(d.failing_cases), d.n_failing
    counts = f"n {d.n_cases} · {d.n_labelled} labelled · {d.n_review} REVIEW"
    if d.n_unmeasured:
        counts += f" · {d.n_unmeasured} unmeasured"
    return {
        "model": d.model,
        "check": d.check,
        "dimension": DIMENSIONS.get(d.dimension, d.dimension),
        "appetite": d.appetite,
        "kind": kind,
        "target": target,
        "decision": d.decision,
        "estimate": estimate,
        "lower": lower,
        "upper": upper,
        "rate": f"{kind} rate {fmt(estimate)}",
        "bounds": _bounds_text(kind, lower, upper, d.confidence),
        "counts": counts,
        "n_cases": d.n_cases,
        "n_labelled": d.n_labelled,
        "n_review": d.n_review,
        "n_unmeasured": d.n_unmeasured,
        "method": d.method or "",
        "reason": as_fail_rate(d.reason) if kind == "fail" else d.reason,
        "left_out": left.text() if left is not None else "",
        "failing": failing[:MAX_FAILING_SHOWN],
        "n_failing": n_failing,
        "failing_more": max(0, n_failing - min(len(failing), MAX_FAILING_SHOWN)),
    }


def _summary(model: str, decision: str, checks: list[dict[str, Any]]) -> str:
    """One line per system, e.g. ``terse: FAIL — 7 checks: 3 PASS, 2 FAIL, 2 INCONCLUSIVE``."""
    tally = {k: sum(c["decision"] == k for c in checks) for k in ("PASS", "FAIL", "INCONCLUSIVE")}
    parts = ", ".join(f"{n} {k}" for k, n in tally.items() if n)
    review = sum(c["n_review"] for c in checks)
    labelled = sum(c["n_labelled"] for c in checks)
    return (
        f"{model}: {decision} — {len(checks)} checks: {parts}; {labelled} labelled cases and "
        f"{review} in REVIEW across them"
    )


def verdict_view(assessment: Assessment) -> dict[str, Any]:
    """The page's content, redacted, for :mod:`assay.verdict.render`."""
    plan = assessment.plan
    by_name = {c.name: c for c in plan.check}
    dims = [d for d in DIMENSIONS if any(c.dimension == d for c in plan.check)]
    systems = []
    for model in assessment.models:
        checks = [
            _check_view(d, by_name.get(d.check), assessment)
            for d in assessment.decisions
            if d.model == model
        ]
        decision = assessment.model_decision(model)
        systems.append(
            {
                "name": model,
                "decision": decision,
                "summary": _summary(model, decision, checks),
                "dimensions": assessment.dimension_decisions(model),
                "checks": checks,
            }
        )
    prov = assessment.provenance
    view: dict[str, Any] = redact(
        {
            "title": plan.title,
            "decision": assessment.decision,
            "exit_code": assessment.exit_code,
            "dimensions": [{"key": d, "title": DIMENSIONS[d]} for d in dims],
            "systems": systems,
            "overrules": overrule_records(assessment.verdicts),
            "overrule_headings": OVERRULE_HEADINGS,
            "cases_file": VERDICT_CASES_FILE,
        }
    )
    # assay's own record (version, hashes, date, design counts): not redacted, a sha256 would
    # be masked as a secret
    view["provenance"] = (
        None if prov is None else {**prov.as_dict(), "designs_text": prov.designs_text()}
    )
    return view
