"""Render an :class:`~assay.verdict.assess.Assessment` as Markdown and as a self-contained page.

The verdict leads: per system and dimension the decision, then per check the rate, its one-sided
bound, n and why; then the measurement-validity table and (HTML) the calibration drawings.
Everything that comes from the suite or the models (names, check names) is escaped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.verdict.plan import DIMENSIONS

if TYPE_CHECKING:
    from assay.verdict.assess import Assessment
    from assay.verdict.decide import CheckDecision


def _fmt(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def _md(text: Any) -> str:
    """Markdown-safe text: no raw HTML (``&``, ``<``, ``>`` escaped), table pipes escaped."""
    text = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|").replace("\n", " ")


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
    """The verdict as Markdown (``verdict.md``)."""
    dims = [d for d in DIMENSIONS if any(c.dimension == d for c in assessment.plan.check)]
    lines = [
        f"# {_md(assessment.plan.title)}: {assessment.decision}",
        "",
        f"Exit code {assessment.exit_code} (0 PASS, 1 FAIL, 3 INCONCLUSIVE).",
        "",
        "| system | overall | " + " | ".join(DIMENSIONS[d] for d in dims) + " |",
        "|---|---|" + "---|" * len(dims),
    ]
    for model in assessment.models:
        per = assessment.dimension_decisions(model)
        cells = [per.get(d, "not assessed") for d in dims]
        lines.append(
            f"| {_md(model)} | {assessment.model_decision(model)} | " + " | ".join(cells) + " |"
        )
    lines += [
        "",
        "## Checks",
        "",
        "| system | dimension | check | risk appetite | decision | rate | bound | n | labelled | "
        "review | unmeasured | method | why |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for d in assessment.decisions:
        lines.append(
            f"| {_md(d.model)} | {DIMENSIONS[d.dimension]} | {_md(d.check)} | {d.appetite} | "
            f"**{d.decision}** | {_fmt(d.estimate)} | {_bound(d)} | {d.n_cases} | {d.n_labelled} | "
            f"{d.n_review} | {d.n_unmeasured} | {d.method or ''} | {_md(d.reason)} |"
        )
    validity = _validity_rows(assessment)
    if validity:
        lines += [
            "",
            "## Measurement validity",
            "",
            "| check | metric | AUROC | interval | labels | decides | ECE (test) | "
            "coverage (test) | "
            "nominal | routed to REVIEW |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for v in validity:
            lines.append(
                f"| {_md(v['check'])} | {_md(v['metric'])} | {v['auroc']} | {_md(v['interval'])} | "
                f"{v['n_labelled']} | {v['decides']} | {v['ece']} | {v['coverage']} | "
                f"{v['nominal']} | {v['review']} |"
            )
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
    checks = [
        {
            **d.as_dict(),
            "dimension_title": DIMENSIONS[d.dimension],
            "rate": _fmt(d.estimate),
            "bound": _bound(d),
        }
        for d in assessment.decisions
    ]
    return env.get_template("verdict.html.j2").render(
        title=assessment.plan.title,
        decision=assessment.decision,
        exit_code=assessment.exit_code,
        dimensions=dims,
        models=[
            {
                "name": m,
                "decision": assessment.model_decision(m),
                "dimensions": assessment.dimension_decisions(m),
            }
            for m in assessment.models
        ],
        checks=checks,
        validity=_validity_rows(assessment),
        plots=plots,
    )
