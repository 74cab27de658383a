"""Markdown rendering of leaderboards and run reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from assay.report.problem_groups import group_problems
from assay.rundir.records import LeaderboardRow

if TYPE_CHECKING:
    from assay.rundir.run import EvaluationRun


def md_escape(text: object) -> str:
    """Escape text for a Markdown table cell (pipes, newlines, HTML brackets).

    Example:
        >>> md_escape("a|b<script>")
        'a\\\\|b&lt;script&gt;'
    """
    return (
        str(text)
        .replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\n", " ")
    )


def _num(value: float | None, digits: int = 4) -> str:
    return "—" if value is None else f"{value:.{digits}g}"


def table(headers: list[str], rows: list[list[Any]]) -> str:
    """Render a GitHub-flavoured Markdown table with escaped cells."""
    lines = ["| " + " | ".join(md_escape(h) for h in headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def run_details(manifest: Mapping[str, Any] | None) -> dict[str, Any]:
    """The run details a report's header shows, from the run manifest (None where unknown).

    Example:
        >>> run_details({"input": {"path": "s.jsonl", "sha256": "ab" * 32}, "seed": 7,
        ...              "assay_version": "1.0", "started_at": "2025-01-01T00:00:00+00:00"})
        ... # doctest: +NORMALIZE_WHITESPACE
        {'suite': 's.jsonl', 'suite_sha256': 'abababababab', 'started_at':
         '2025-01-01T00:00:00+00:00', 'seed': 7, 'assay_version': '1.0'}
    """
    manifest = manifest or {}
    suite = manifest.get("input") or {}
    return {
        "suite": suite.get("path"),
        "suite_sha256": (suite.get("sha256") or "")[:12] or None,
        "started_at": manifest.get("started_at"),
        "seed": manifest.get("seed"),
        "assay_version": manifest.get("assay_version"),
    }


def leaderboard_markdown(leaderboard: Sequence[LeaderboardRow]) -> str:
    """The leaderboard as a Markdown table (models × metrics with outcome counts); each mean is
    set against its threshold as a description — the verdict decides (report.md's verdict)."""
    headers = [
        "model",
        "metric",
        "value",
        "threshold",
        "mean vs threshold",
        "pass rate",
        "ok",
        "skipped",
        "error",
    ]
    rows = []
    for r in leaderboard:
        verdict = {True: "meets", False: "**below**", None: "—"}[r["passed"]]
        arrow = "↑" if r["higher_is_better"] else "↓"
        rows.append(
            [
                r["model"] or "(unnamed)",
                f"{r['metric']} {arrow}",
                _num(r["value"]),
                _num(r["threshold"]),
                verdict,
                _num(r["pass_rate"], 3),
                r["n_ok"],
                r["n_skipped"],
                r["n_error"],
            ]
        )
    return "# Leaderboard\n\n" + table(headers, rows) + "\n"


def _analysis_markdown(analysis: dict[str, Any]) -> list[str]:
    from assay.report.verdict_view import verdict_markdown

    lines = verdict_markdown(analysis["verdict"]) if "verdict" in analysis else []
    with_ci = [r for r in analysis["leaderboard"] if r["primary"]]
    if with_ci:
        lines += ["## Primary metrics with confidence intervals", ""]
        rows = [
            [
                r["model"] or "(unnamed)",
                r["metric"],
                _num(r["value"]),
                "—" if r["ci_low"] is None else f"[{r['ci_low']:.3g}, {r['ci_high']:.3g}]",
            ]
            for r in with_ci
        ]
        lines += [table(["model", "metric", "value", "95% CI"], rows), ""]
    if analysis["weakest"]:
        lines += ["## Weakest slices", ""]
        lines += [f"- {md_escape(w['message'])}" for w in analysis["weakest"]]
        lines += [""]
    if analysis.get("repeats"):
        lines += repeats_markdown(analysis["repeats"])
    return lines


def _share(row: Mapping[str, Any], name: str) -> str:
    low, high = row.get(f"{name}_ci_low"), row.get(f"{name}_ci_high")
    interval = "" if low is None or high is None else f" [{low:.3g}, {high:.3g}]"
    return _num(row.get(name), 3) + interval


def repeats_markdown(repeats: Mapping[str, Any]) -> list[str]:
    """The "Repeats and flaky cases" section from ``analysis["repeats"]``.

    Example:
        >>> rep = {"samples": 3, "confidence": 0.95, "n_flaky": 1, "n_flaky_listed": 1,
        ...        "metrics": [{"model": "m", "metric": "f1", "n_cases": 2, "mean": 0.8,
        ...                     "within_sd": 0.1, "between_sd": None, "n_flaky": 1, "n_judged": 2,
        ...                     "flaky_share": 0.5, "pass_all": 0.5, "pass_any": 1.0}],
        ...        "flaky": [{"model": "m", "metric": "f1", "case_id": "q|1", "passing": 2,
        ...                   "judged": 3, "pass_share": 0.667}]}
        >>> print(repeats_markdown(rep)[-2])
        | model | metric | case | samples passing |
        |---|---|---|---|
        | m | f1 | q\\|1 | 2 / 3 (0.667) |
    """
    level = f"{repeats['confidence']:.0%}"
    lines = [
        "## Repeats and flaky cases",
        "",
        f"Up to {repeats['samples']} samples per case; a case's samples count as one question in "
        f"every interval and in the verdict. Shares with {level} cluster-bootstrap intervals; "
        "pass^k: passing in every sample, pass@k: in at least one.",
        "",
    ]
    rows = [
        [
            r["model"] or "(unnamed)",
            r["metric"],
            r["n_cases"],
            _num(r["mean"], 3),
            _num(r["within_sd"], 3),
            f"{r['n_flaky']} / {r['n_judged']}",
            _share(r, "flaky_share"),
            _share(r, "pass_all"),
            _share(r, "pass_any"),
        ]
        for r in repeats["metrics"]
    ]
    headers = ["model", "metric", "cases", "mean", "within-case SD", "flaky", "flaky share",
               "pass^k", "pass@k"]
    lines += [table(headers, rows), ""]
    if repeats["flaky"]:
        lines += [f"### Flaky cases ({repeats['n_flaky']})", ""]
        flaky = [
            [f["model"] or "(unnamed)", f["metric"], f["case_id"],
             f"{f['passing']} / {f['judged']} ({f['pass_share']:.3g})"]
            for f in repeats["flaky"]
        ]
        lines += [table(["model", "metric", "case", "samples passing"], flaky), ""]
    return lines


#: Confusion matrices with more classes than this are left to ``corpus_details.json``.
MAX_CONFUSION_LABELS = 10


def confusion_markdown(corpus_details: dict[str, dict[str, Any]]) -> list[str]:
    """Markdown lines with the confusion matrices found in a run's corpus details (evaluator →
    model → details holding ``labels`` and ``confusion_matrix``); larger ones are only named.

    Example:
        >>> details = {"classification": {"a": {"labels": ["neg", "pos"],
        ...                                     "confusion_matrix": [[3, 1], [0, 2]]}}}
        >>> print("\\n".join(confusion_markdown(details)))
        ## Confusion matrices
        <BLANKLINE>
        Rows: true label; columns: predicted label.
        <BLANKLINE>
        ### classification, model a
        <BLANKLINE>
        | true ↓ predicted → | neg | pos |
        |---|---|---|
        | neg | 3 | 1 |
        | pos | 0 | 2 |
        <BLANKLINE>
    """
    sections: list[str] = []
    for evaluator, models in corpus_details.items():
        for model, details in models.items():
            labels, matrix = details.get("labels"), details.get("confusion_matrix")
            if labels is None or matrix is None:
                continue
            title = f"### {md_escape(evaluator)}, model {md_escape(model or '(unnamed)')}"
            sections += [title, ""]
            if len(labels) > MAX_CONFUSION_LABELS:
                sections += [f"{len(labels)} classes: see `corpus_details.json`.", ""]
                continue
            names = [label or "(empty)" for label in labels]
            rows = [[name, *counts] for name, counts in zip(names, matrix, strict=True)]
            headers = ["true ↓ predicted →", *names]  # table() escapes the headers
            sections += [table(headers, rows), ""]
    if not sections:
        return []
    return [
        "## Confusion matrices",
        "",
        "Rows: true label; columns: predicted label.",
        "",
        *sections,
    ]


def report_markdown(run: EvaluationRun, analysis: dict[str, Any] | None = None) -> str:
    """A one-page Markdown report: summary, leaderboard, problems and insights.

    With ``analysis`` (from :func:`assay.analyze.summary.analyze_run`, with the verdict added by
    :func:`assay.report.write_reports`) it adds the verdict and its six dimensions, confidence
    intervals and the weakest slices.
    """
    info = run_details(run.manifest)  # no times: the same inputs give the same report.md
    lines = ["# assay evaluation report", ""]
    parts = [
        f"Suite: `{md_escape(info['suite'])}`" if info["suite"] else None,
        f"suite sha256 `{info['suite_sha256']}…`" if info["suite_sha256"] else None,
        f"seed {info['seed']}" if info["seed"] is not None else None,
        f"assay {md_escape(info['assay_version'])}" if info["assay_version"] else None,
    ]
    if any(parts):
        lines += [" · ".join(p for p in parts if p), ""]
    primary = [r for r in run.leaderboard if r["primary"]]
    failing = [r for r in primary if r["passed"] is False]
    lines += [
        f"{len(primary)} primary metric results, {len(failing)} below threshold; "
        f"{len(run.problems)} problems, {len(run.insights)} insights.",
        "",
        *(_analysis_markdown(analysis) if analysis is not None else []),
        leaderboard_markdown(run.leaderboard).replace("# Leaderboard", "## Leaderboard"),
        *confusion_markdown(run.corpus_details),
        "## Problems",
        "",
    ]
    singles, groups = group_problems(run.problems)
    lines += [f"- **{md_escape(p['kind'])}** — {md_escape(p['message'])}" for p in singles]
    for group in groups:
        lines.append(f"- **{md_escape(group['kind'])}** — {md_escape(group['summary'])} "
                     "All in problems.json; the first:")
        lines += [f"  - {md_escape(p['message'])}" for p in group["items"][:5]]
    lines += ["- none"] if not run.problems else []
    lines += ["", "## Insights", ""]
    lines += [f"- {md_escape(i['message'])}" for i in run.insights]
    lines += ["- none"] if not run.insights else []
    return "\n".join(lines) + "\n"
