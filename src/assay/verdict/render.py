"""Render an :class:`~assay.verdict.assess.Assessment` as Markdown and as a self-contained page.

The verdict leads: per system and dimension the decision, then per check the rate, its one-sided
bound, n and why; then the measurement-validity table and (HTML) the calibration drawings.
Everything that comes from the suite or the models (names, check names) is escaped, after the
report's one redaction pass (:func:`assay.safety.redact`) has masked PII and secrets in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.markdown import md_escape, table
from assay.safety.masking import redact
from assay.verdict.overrules import overrule_records
from assay.verdict.plan import DIMENSIONS

if TYPE_CHECKING:
    from assay.verdict.assess import Assessment
    from assay.verdict.decide import CheckDecision


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _bound(d: CheckDecision) -> str:
    if d.lower is None:
        return "n/a"
    return f"[{_fmt(d.lower)}, {_fmt(d.upper)}]"


def _validity_rows(assessment: Assessment) -> list[dict[str, str]]:
    rows = []
    for name, cv in assessment.verdicts.items():
        for v in cv.validity:
            rows.append(
                {
                    "check": name,
                    "metric": v["metric"],
                    "auroc": _fmt(v.get("auroc")),
                    "interval": (
                        f"[{_fmt(v.get('ci_low'))}, {_fmt(v.get('ci_high'))}]"
                        if v.get("ci_low") is not None
                        else v.get("problem", "n/a")
                    ),
                    "n_labelled": str(v.get("n_labelled", "")),
                    "decides": "yes"
                    if v["metric"] == cv.metric
                    else ("valid" if v["valid"] else "no"),
                    "ece": _fmt(v.get("ece_test")),
                    "coverage": _fmt(v.get("coverage_test")),
                    "nominal": _fmt(v.get("conformal_confidence"), 2),
                    "review": f"{v['review_share']:.1%}" if "review_share" in v else "",
                }
            )
    return rows


def verdict_markdown(assessment: Assessment) -> str:
    """The verdict as Markdown (``verdict.md``); every cell escaped by the report's table()."""
    dims = [d for d in DIMENSIONS if any(c.dimension == d for c in assessment.plan.check)]
    summary = redact([
        [
            model,
            assessment.model_decision(model),
            *[assessment.dimension_decisions(model).get(d, "not assessed") for d in dims],
        ]
        for model in assessment.models
    ])
    checks = redact([
        [
            d.model,
            DIMENSIONS[d.dimension],
            d.check,
            d.appetite,
            d.decision,
            _fmt(d.estimate),
            _bound(d),
            d.n_cases,
            d.n_labelled,
            d.n_review,
            d.n_unmeasured,
            d.method or "",
            d.reason,
        ]
        for d in assessment.decisions
    ])
    lines = [
        f"# {md_escape(assessment.plan.title)}: {assessment.decision}",
        "",
        f"Exit code {assessment.exit_code} (0 PASS, 1 FAIL, 3 INCONCLUSIVE).",
        "",
        table(["system", "overall", *[DIMENSIONS[d] for d in dims]], summary),
        "",
        "## Checks",
        "",
        table(
            ["system", "dimension", "check", "risk appetite", "decision", "rate", "bound", "n",
             "labelled", "review", "unmeasured", "method", "why"],
            checks,
        ),
    ]  # fmt: skip
    overrules = redact(overrule_records(assessment.verdicts))
    if overrules:
        columns = ["check", "case_id", "model", "rule_verdict", "verdict", "by", "at", "reason"]
        lines += [
            "",
            "## Overrules",
            "",
            "Rule verdicts a reviewer overruled (recorded in `overrules.jsonl` of the assessment).",
            "",
            table(
                ["check", "case", "system", "rule verdict", "reviewer's verdict", "by", "when",
                 "why"],
                [[o[c] for c in columns] for o in overrules],
            ),
        ]  # fmt: skip
    validity = _validity_rows(assessment)
    if validity:
        columns = ["check", "metric", "auroc", "interval", "n_labelled", "decides", "ece",
                   "coverage", "nominal", "review"]  # fmt: skip
        lines += [
            "",
            "## Measurement validity",
            "",
            table(
                ["check", "metric", "AUROC", "interval", "labels", "decides", "ECE (test)",
                 "coverage (test)", "nominal", "routed to REVIEW"],
                [[v[c] for c in columns] for v in validity],
            ),
        ]  # fmt: skip
    return "\n".join(lines) + "\n"


def verdict_html(assessment: Assessment) -> str:
    """The verdict as a self-contained HTML page with inline SVG drawings (``verdict.html``)."""
    import jinja2

    from assay.report.svg_calibration import calibration_regions, score_distributions

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("assay.verdict", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    dims = [
        {"key": d, "title": DIMENSIONS[d]}
        for d in DIMENSIONS
        if any(c.dimension == d for c in assessment.plan.check)
    ]
    plots = [
        {
            "check": name,
            "metric": cv.metric,
            "curve": calibration_regions(cv.curve, title=f"{name}: calibration"),
            "distribution": score_distributions(cv.curve, title=f"{name}: score distributions"),
        }
        for name, cv in assessment.verdicts.items()
        if cv.curve
    ]
    checks = redact([
        {
            **d.as_dict(),
            "dimension_title": DIMENSIONS[d.dimension],
            "rate": _fmt(d.estimate),
            "bound": _bound(d),
        }
        for d in assessment.decisions
    ])
    return env.get_template("verdict.html.j2").render(
        title=assessment.plan.title,
        decision=assessment.decision,
        exit_code=assessment.exit_code,
        dimensions=dims,
        models=redact([
            {
                "name": m,
                "decision": assessment.model_decision(m),
                "dimensions": assessment.dimension_decisions(m),
            }
            for m in assessment.models
        ]),
        checks=checks,
        validity=_validity_rows(assessment),
        overrules=redact(overrule_records(assessment.verdicts)),
        plots=plots,
    )
