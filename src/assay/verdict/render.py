"""Render an :class:`~assay.verdict.assess.Assessment` as Markdown and as a self-contained page.

The verdict leads, stated once with its exit code; then per system a summary line, a chart of
every check's bound against its target (HTML, inline SVG), and its checks with the reasons, the
cases left out of each n and the failing cases of rule checks; then reviewer overrules, the
measurement-validity table, the calibration drawings (HTML) and the provenance. The content comes
from :func:`assay.verdict.view.verdict_view` (redacted there); the Markdown table cells are
escaped by the report's ``table()`` and the page by Jinja's autoescape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.report.markdown import md_escape, table
from assay.safety.masking import redact
from assay.verdict.chart import ChartRow, bound_chart
from assay.verdict.view import fmt, verdict_view

if TYPE_CHECKING:
    from assay.verdict.assess import Assessment

EXIT_LINE = "0 PASS, 1 FAIL, 3 INCONCLUSIVE"


def _validity_rows(assessment: Assessment) -> list[dict[str, str]]:
    rows = []
    for name, cv in assessment.verdicts.items():
        for v in cv.validity:
            rows.append(
                {
                    "check": name,
                    "metric": v["metric"],
                    "auroc": fmt(v.get("auroc")),
                    "interval": (
                        f"[{fmt(v.get('ci_low'))}, {fmt(v.get('ci_high'))}]"
                        if v.get("ci_low") is not None
                        else v.get("problem", "n/a")
                    ),
                    "n_labelled": str(v.get("n_labelled", "")),
                    "decides": "yes"
                    if v["metric"] == cv.metric
                    else ("valid" if v["valid"] else "no"),
                    "ece": fmt(v.get("ece_test")),
                    "coverage": fmt(v.get("coverage_test")),
                    "nominal": fmt(v.get("conformal_confidence"), 2),
                    "review": f"{v['review_share']:.1%}" if "review_share" in v else "",
                }
            )
    return redact(rows)


def _provenance_rows(prov: dict[str, Any] | None) -> list[tuple[str, str]]:
    if prov is None:
        return []
    return [
        ("assay version", prov["assay_version"]),
        ("assessed at (UTC)", prov["assessed_at"]),
        ("plan sha256", prov["plan_sha256"]),
        ("suite sha256", prov["suite_sha256"] or "unreadable"),
        ("labels sha256", prov["labels_sha256"] or "no labels"),
        ("labels' design", f"{prov['designs_text']} ({prov['rounds']} design rounds)"),
    ]


def _failing_lines(c: dict[str, Any], cases_file: str) -> list[str]:
    rows = [
        [f.get("case_id", ""), f.get("model", ""), f.get("metric", ""), f.get("value", ""),
         f.get("threshold", "")]
        for f in c["failing"]
    ]  # fmt: skip
    more = f"; the other {c['failing_more']} are in {cases_file}" if c["failing_more"] else ""
    return [
        "",
        f"Failing cases of **{md_escape(c['check'])}**: {c['n_failing']}{md_escape(more)}.",
        "",
        table(["case", "system", "metric", "value", "threshold"], rows),
    ]


def verdict_markdown(assessment: Assessment) -> str:
    """The verdict as Markdown (``verdict.md``); every cell escaped by the report's table()."""
    view = verdict_view(assessment)
    lines = [
        f"# {md_escape(view['title'])}: {view['decision']}",
        "",
        f"Exit code {view['exit_code']} ({EXIT_LINE}): `assay assess` exits with it.",
        "",
        table(
            ["system", "overall", *[d["title"] for d in view["dimensions"]]],
            [
                [s["name"], s["decision"],
                 *[s["dimensions"].get(d["key"], "not assessed") for d in view["dimensions"]]]
                for s in view["systems"]
            ],
        ),
    ]  # fmt: skip
    for system in view["systems"]:
        lines += ["", f"## {md_escape(system['name'])}", "", md_escape(system["summary"]), ""]
        lines.append(
            table(
                ["check", "dimension", "risk appetite", "decision", "rate", "bounds", "n",
                 "labelled", "REVIEW", "unmeasured", "method", "why"],
                [
                    [c["check"], c["dimension"], c["appetite"], c["decision"], c["rate"],
                     c["bounds"], c["n_cases"], c["n_labelled"], c["n_review"],
                     c["n_unmeasured"], c["method"], c["reason"]]
                    for c in system["checks"]
                ],
            )
        )  # fmt: skip
        left = [c for c in system["checks"] if c["left_out"]]
        if left:
            lines += ["", "Left out of n:", ""]
            lines += [f"- {md_escape(c['check'])}: {md_escape(c['left_out'])}" for c in left]
        for c in system["checks"]:
            if c["n_failing"]:
                lines += _failing_lines(c, view["cases_file"])
    if view["overrules"]:
        keys = list(view["overrules"][0])
        rows = [[o.get(k, "") for k in keys] for o in view["overrules"]]
        headings = [view["overrule_headings"].get(k, k) for k in keys]
        lines += ["", "## Overrules", "",
                  "Rule verdicts a reviewer overruled (recorded in `overrules.jsonl` of the "
                  "assessment).", "", table(headings, rows)]
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
    provenance = _provenance_rows(view["provenance"])
    if provenance:
        lines += ["", "## Provenance", "", table(["", ""], [list(r) for r in provenance])]
    return "\n".join(lines) + "\n"


def _chart(system: dict[str, Any]) -> Any:
    rows = [
        ChartRow(c["check"], c["appetite"], c["kind"], c["target"], c["decision"], c["estimate"],
                 c["lower"], c["upper"], c["counts"])
        for c in system["checks"]
    ]  # fmt: skip
    return bound_chart(system["name"], rows)


def verdict_html(assessment: Assessment) -> str:
    """The verdict as a self-contained HTML page with inline SVG drawings (``verdict.html``)."""
    import jinja2

    from assay.report.svg_calibration import calibration_regions, score_distributions

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("assay.verdict", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    view = verdict_view(assessment)
    plots = [
        {
            "check": redact(name),
            "metric": cv.metric,
            "curve": calibration_regions(cv.curve, title=f"{name}: calibration"),
            "distribution": score_distributions(cv.curve, title=f"{name}: score distributions"),
        }
        for name, cv in assessment.verdicts.items()
        if cv.curve
    ]
    return env.get_template("verdict.html.j2").render(
        **view,
        exit_line=EXIT_LINE,
        charts={s["name"]: _chart(s) for s in view["systems"]},
        validity=_validity_rows(assessment),
        plots=plots,
        provenance_rows=_provenance_rows(view["provenance"]),
    )
