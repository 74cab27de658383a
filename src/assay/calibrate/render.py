"""Render calibration and threshold reports (computed in :mod:`assay.calibrate.report`) to
Markdown, and write report, plot data and calibrator files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assay.calibrate.base import Calibrator
from assay.fileio import write_json, write_text
from assay.rundir.layout import CALIBRATION_FILES, THRESHOLD_FILES


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def threshold_interval(low: float | None, high: float | None, digits: int = 3) -> str:
    """A threshold's bootstrap interval; a missing upper end means "nothing passes" (∞).

    Example:
        >>> threshold_interval(0.5, None), threshold_interval(None, None)
        ('0.500–∞', '–')
    """
    if low is None and high is None:
        return "–"
    return f"{_fmt(low, digits)}–{'∞' if high is None else _fmt(high, digits)}"


def _separation_table(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    lines = ["| metric | AUROC | 95% CI | verdict |", "|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['metric']} | {_fmt(r['auroc'])} | {_fmt(r['ci_low'])}–"
            f"{_fmt(r['ci_high'])} | {r['verdict']} |"
        )
    return lines


def calibration_markdown(report: dict[str, Any]) -> str:
    """A Markdown summary of a calibration report.

    Example:
        >>> md = calibration_markdown({"method": "isotonic", "metrics": ["m"], "n": 10,
        ...     "splits": {"fit": 5, "conformal": 3, "test": 2}, "separation": [],
        ...     "combined": None, "calibration": {"ece": 0.01, "brier": 0.1, "n": 2},
        ...     "conformal": {"alpha": 0.1, "coverage": 1.0, "mean_size": 1.0,
        ...                   "frac_review": 0.0}, "warnings": []})
        >>> "ECE" in md and "isotonic" in md
        True
    """
    cal, conf = report["calibration"], report["conformal"]
    s = report["splits"]
    lines = [
        f"# Calibration of {', '.join(report['metrics'])} ({report['method']})",
        "",
        f"{report['n']} labelled cases: {s['fit']} to fit, {s['conformal']} to conformalize, "
        f"{s['test']} held out for the figures below.",
        "",
    ]
    if report.get("warnings"):
        lines += ["## Warnings", "", *[f"- {w}" for w in report["warnings"]], ""]
    if report["separation"]:
        lines += [
            "## Does the metric separate the labels?",
            "",
            *_separation_table(report["separation"]),
            "",
        ]
    if report.get("combined"):
        lines += [report["combined"]["advice"], ""]
    lines += [
        "## Calibration (held-out)",
        "",
        f"- Expected calibration error (ECE): {_fmt(cal['ece'])}",
        f"- Brier score: {_fmt(cal['brier'])}",
    ]
    errors = cal.get("errors")
    if errors:
        c = errors["confusion"]
        lines += [
            f"- Decisions at P(PASS) ≥ {cal['decision_threshold']}: Type I (false fail) "
            f"{_fmt(errors['type_i'])}, Type II (false pass) {_fmt(errors['type_ii'])}, "
            f"accuracy {_fmt(errors['accuracy'])}",
            "",
            "| | judged PASS | judged FAIL |",
            "|---|---|---|",
            f"| human PASS | {c['tp']} | {c['fn']} |",
            f"| human FAIL | {c['fp']} | {c['tn']} |",
        ]
    lines += [
        "",
        f"## Conformal prediction sets (α = {conf['alpha']})",
        "",
        f"- Coverage on held-out cases: {_fmt(conf['coverage'])} (target ≥ "
        f"{1 - conf['alpha']:.2f})",
        f"- Mean set size: {_fmt(conf['mean_size'])}; routed to human review (empty or "
        f"ambiguous set): {_fmt(conf['frac_review'])}",
        "",
    ]
    return "\n".join(lines)


def thresholds_markdown(report: dict[str, Any]) -> str:
    """A Markdown table of every method's threshold, interval and held-out errors."""
    lines = [
        f"# Thresholds for {', '.join(report['metrics'])}",
        "",
        f"{report['n']} labelled cases ({report['n_pass']} PASS). Type I = PASS judged FAIL; "
        "Type II = FAIL judged PASS (false pass); both on the held-out cases.",
        "",
    ]
    if report.get("warnings"):
        lines += ["## Warnings", "", *[f"- {w}" for w in report["warnings"]], ""]
    lines += [
        "## Separation",
        "",
        *_separation_table(report["separation"]),
        "",
        "## Thresholds",
        "",
        "| metric | method | threshold | 95% CI | Type I | Type II |",
        "|---|---|---|---|---|---|",
    ]
    for r in report["thresholds"]:
        threshold = _fmt(r["threshold"]) if r["threshold"] is not None else "none passes"
        lines.append(
            f"| {r['metric']} | {r['method']} | {threshold} | "
            f"{threshold_interval(r['ci_low'], r['ci_high'])} | {_fmt(r['held_out']['type_i'])} | "
            f"{_fmt(r['held_out']['type_ii'])} |"
        )
    for f in report.get("failed", []):
        lines.append(f"| {f['metric']} | {f['method']} | failed: {f['reason']} | | | |")
    return "\n".join(lines) + "\n"


def write_calibration(
    out: str | Path, report: dict[str, Any], plot: dict[str, Any], calibrator: Calibrator
) -> dict[str, Path]:
    """Write ``calibration.json``, ``calibration.md``, ``calibration_plot.json`` and
    ``calibrator.json`` into ``out``."""
    root = Path(out)
    paths = {k: root / v for k, v in CALIBRATION_FILES.items()}
    calibrator.save(paths["calibrator"])
    write_json(paths["report"], report)
    write_json(paths["plot"], plot)
    write_text(paths["markdown"], calibration_markdown(report))
    return paths


def write_thresholds(
    out: str | Path, report: dict[str, Any], plot: dict[str, Any]
) -> dict[str, Path]:
    """Write ``thresholds.json``, ``thresholds.md`` and ``thresholds_plot.json`` into ``out``."""
    root = Path(out)
    paths = {k: root / v for k, v in THRESHOLD_FILES.items()}
    write_json(paths["report"], report)
    write_json(paths["plot"], plot)
    write_text(paths["markdown"], thresholds_markdown(report))
    return paths
