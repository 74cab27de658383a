"""The evaluator catalogue rendered as Markdown (the README table is generated from this)."""

from __future__ import annotations

from typing import Any

from assay.report.markdown import table


def _metric(m: dict[str, Any]) -> str:
    arrow = "↑" if m["higher_is_better"] else "↓"
    threshold = "" if m["threshold"] is None else f" (threshold {m['threshold']:g})"
    star = "*" if m["primary"] else ""
    return f"{m['name']}{star} {arrow}{threshold}"


def catalogue_markdown(rows: list[dict[str, Any]]) -> str:
    """A Markdown table of evaluators (primary metric marked with *)."""
    body = [
        [
            r["name"],
            r["family"],
            r["description"],
            ", ".join(r["requires"]) or "—",
            "; ".join(_metric(m) for m in r["metrics"]),
            "yes" if r["reproducible"] else "no",
            r["extra"] or "core",
        ]
        for r in rows
    ]
    headers = [
        "evaluator",
        "family",
        "what it measures",
        "needs",
        "metrics (* primary)",
        "reproducible",
        "extra",
    ]
    return table(headers, body)
