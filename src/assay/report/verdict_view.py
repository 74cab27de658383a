"""The run report's verdict, as rows: read from the verdict, never decided here.

``analysis["verdict"]`` is the run's assessment under its implicit plan
(:meth:`assay.verdict.implicit.RunVerdict.as_dict`): the overall decision, per system and
dimension the decision, per check the metric and threshold that decided it, the rate, its bound
and why, and the plan itself. These functions only arrange it for the Markdown and HTML reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.report.markdown import md_escape, table
from assay.verdict.plan import DIMENSIONS as DIMENSION_TITLES

NOT_ASSESSED = "not assessed"


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def dimension_summary(verdict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per system: its overall decision and each dimension's (``not assessed`` without a check).

    Example:
        >>> v = {"models": {"m": {"decision": "FAIL", "dimensions": {"qa": "FAIL"}}}}
        >>> row = dimension_summary(v)[0]
        >>> row["model"], row["decision"], row["dimensions"]["qa"], row["dimensions"]["tone"]
        ('m', 'FAIL', 'FAIL', 'not assessed')
    """
    return [
        {
            "model": model,
            "decision": info["decision"],
            "dimensions": {
                key: info["dimensions"].get(key, NOT_ASSESSED) for key in DIMENSION_TITLES
            },
        }
        for model, info in verdict.get("models", {}).items()
    ]


def check_rows(verdict: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per system × check: the check's metric, threshold and rule from the plan, its
    decision, rate, bound, counts and reason from the assessment."""
    stated = {c["check"]: c for c in verdict.get("plan", {}).get("checks", [])}
    rows = []
    for d in verdict.get("checks", []):
        plan = stated.get(d["check"], {})
        rows.append(
            {
                "model": d["model"],
                "dimension": DIMENSION_TITLES.get(d["dimension"], d["dimension"]),
                "check": d["check"],
                "metric": plan.get("metric", d.get("metric")),
                "threshold": plan.get("threshold"),
                "rule": plan.get("rule", ""),
                "cases": plan.get("cases", ""),
                "appetite": d["appetite"],
                "decision": d["decision"],
                "rate": _fmt(d.get("estimate")),
                "bound": "n/a"
                if d.get("lower") is None
                else f"[{_fmt(d['lower'])}, {_fmt(d['upper'])}]",
                "n": d["n_cases"],
                "unmeasured": d["n_unmeasured"],
                "reason": d["reason"],
            }
        )
    return rows


def verdict_markdown(verdict: Mapping[str, Any]) -> list[str]:
    """The report's verdict section in Markdown: decision, dimensions, checks, the plan.

    Example:
        >>> v = {"decision": "INCONCLUSIVE", "exit_code": 3, "models": {}, "checks": [],
        ...      "plan": {"checks": [], "descriptive": []}}
        >>> verdict_markdown(v)[0]
        '**Verdict: INCONCLUSIVE**'
    """
    plan = verdict.get("plan", {})
    lines = [
        f"**Verdict: {verdict['decision']}**",
        "",
        f"Decided by the verdict's rules on the implicit plan below (no validation plan given: "
        f"uncalibrated, a case passes when its metric is on the good side of the threshold "
        f"shown; skipped and errored cases are unmeasured). `assay junit RUN --check` exits "
        f"{verdict['exit_code']} (0 PASS, 1 FAIL, 3 INCONCLUSIVE). A signed verdict needs a "
        f"validation plan: `assay plan`, `assay assess`.",
        "",
        "## Six-dimension validation summary",
        "",
    ]
    summary = dimension_summary(verdict)
    if summary:
        lines += [
            table(
                ["system", "overall", *DIMENSION_TITLES.values()],
                [[r["model"] or "(unnamed)", r["decision"], *r["dimensions"].values()]
                 for r in summary],
            ),
            "",
        ]  # fmt: skip
    else:
        lines += ["No check could be decided.", ""]
    rows = check_rows(verdict)
    if rows:
        headers = ["system", "dimension", "check", "case passes when", "risk appetite",
                   "decision", "rate", "bound", "n", "unmeasured", "why"]  # fmt: skip
        keys = ["model", "dimension", "check", "rule", "appetite", "decision", "rate", "bound",
                "n", "unmeasured", "reason"]  # fmt: skip
        lines += ["### Checks", "", table(headers, [[r[k] for k in keys] for r in rows]), ""]
    lines += ["### The implicit plan", ""]
    if plan.get("checks"):
        lines += [
            table(
                ["dimension", "check", "case passes when", "cases", "risk appetite",
                 "unmeasured tolerated", "basis"],
                [[DIMENSION_TITLES.get(c["dimension"], c["dimension"]), c["check"], c["rule"],
                  c["cases"], c["appetite"], f"{c['max_unmeasured']:.0%}", c["basis"]]
                 for c in plan["checks"]],
            ),
            "",
        ]  # fmt: skip
    else:
        lines += ["No metric of this run has a threshold: nothing to decide.", ""]
    if plan.get("not_deciding"):
        shown = ", ".join(f"{md_escape(m)} (decided by {md_escape(c)})"
                          for m, c in plan["not_deciding"].items())
        lines += [f"Measured, not deciding (a preferred metric decides the criterion): {shown}.",
                  ""]  # fmt: skip
    if plan.get("descriptive"):
        names = ", ".join(md_escape(m) for m in plan["descriptive"])
        lines += [f"Descriptive metrics (no threshold, not decided): {names}.", ""]
    return lines
