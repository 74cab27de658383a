"""Rendering of a run comparison (:func:`assay.analyze.compare.compare_runs`) as Markdown."""

from __future__ import annotations

from typing import Any

from assay.report.markdown import md_escape, table


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.4g}"


def _verdict(value: bool | None) -> str:
    return {True: "pass", False: "fail", None: "—"}[value]


def _population(summary: dict[str, Any]) -> str:
    if "shared_cases" not in summary:
        return ""
    return (f"Cases: A {summary['cases_a']}, B {summary['cases_b']}, "
            f"**{summary['shared_cases']} shared** (compared pairwise).")


def _cases(change: dict[str, Any]) -> str:
    """How many cases a change rests on: shared pairs, or an unpaired A / B."""
    if change.get("scope") == "unpaired":
        return f"unpaired ({change.get('n_a')} / {change.get('n_b')})"
    if change.get("scope") == "shared" and change["n_paired"] < max(
            change.get("n_a") or 0, change.get("n_b") or 0):
        return f"{change['n_paired']} shared (of {change.get('n_a')} / {change.get('n_b')})"
    return str(change["n_paired"])


def comparison_markdown(comparison: dict[str, Any], *, max_rows: int = 200) -> str:
    """A Markdown page: summary counts, changes (regressions first) and flipped cases.

    Example:
        >>> page = comparison_markdown({"run_a": "a", "run_b": "b", "alpha": 0.05,
        ...     "summary": {"regression": 0}, "changes": [], "case_flips": []})
        >>> page.splitlines()[0]
        '# assay run comparison'
    """
    summary = comparison["summary"]
    population = ("cases_a", "cases_b", "shared_cases")
    lines = [
        "# assay run comparison",
        "",
        f"Baseline (A): `{md_escape(comparison.get('run_a'))}`  ",
        f"New (B): `{md_escape(comparison.get('run_b'))}`",
        "",
        ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in summary.items()
                  if k not in population) + ".",
        "",
        _population(summary),
        "",
        f"Values, deltas and verdicts are computed on the cases both runs measured (column "
        f"'cases'); significance: paired bootstrap, McNemar on pass / fail verdicts; "
        f"α = {comparison['alpha']}. A pass → fail threshold verdict on those cases is always a "
        "regression. An *unpaired* difference (no shared case) compares two populations: it has "
        "no interval and is never more than possible.",
        "",
        "## Changes",
        "",
    ]
    rows = [
        [
            c["kind"].replace("_", " "),
            c["model"] or "(unnamed)",
            c["metric"] + (" *" if c["primary"] else ""),
            _num(c["value_a"]),
            _num(c["value_b"]),
            _num(c["delta"]),
            "—" if c["ci_low"] is None else f"[{c['ci_low']:.3g}, {c['ci_high']:.3g}]",
            _num(c["p_value"]),
            _cases(c),
            f"{_verdict(c['verdict_a'])} → {_verdict(c['verdict_b'])}",
        ]
        for c in comparison["changes"][:max_rows]
    ]
    headers = ["change", "model", "metric", "A", "B", "B − A", "CI", "p", "cases", "verdict"]
    lines += [table(headers, rows) if rows else "No metrics in either run.", ""]
    if len(comparison["changes"]) > max_rows:
        lines += [f"… {len(comparison['changes']) - max_rows} more rows in the JSON output.", ""]
    flips = comparison["case_flips"]
    lines += ["## Cases whose primary verdict changed", ""]
    if flips:
        lines.append(
            table(
                ["direction", "case", "model", "metric", "A", "B"],
                [
                    [
                        f["direction"],
                        f["case_id"],
                        f["model"] or "(unnamed)",
                        f["metric"],
                        _num(f["value_a"]),
                        _num(f["value_b"]),
                    ]
                    for f in flips
                ],
            )
        )
    else:
        lines.append("none")
    return "\n".join(lines) + "\n"
