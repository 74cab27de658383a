"""Inline SVG plots for the HTML report: interval (forest) plots, heatmaps and box plots.

Plain strings, no JavaScript and no network, so the report opens from ``file://``. Every label is
escaped with :func:`markupsafe.escape`; numbers are formatted by us. Each function takes the data
an analysis function returned and a value range ``(lo, hi)`` used for the axis and colours.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from markupsafe import Markup, escape

_BAD, _MID, _GOOD = (215, 48, 39), (254, 224, 139), (26, 152, 80)
_FONT = 'font-family="system-ui, sans-serif" font-size="12"'


def colour(value: float | None, lo: float, hi: float, higher_is_better: bool = True) -> str:
    """A red → yellow → green colour for ``value`` on ``[lo, hi]`` (grey for None).

    Example:
        >>> colour(1.0, 0.0, 1.0), colour(0.0, 0.0, 1.0), colour(None, 0, 1)
        ('#1a9850', '#d73027', '#e0e0e0')
    """
    if value is None or not math.isfinite(value):
        return "#e0e0e0"
    t = 0.5 if hi <= lo else min(1.0, max(0.0, (value - lo) / (hi - lo)))
    if not higher_is_better:
        t = 1.0 - t
    a, b, u = (_BAD, _MID, t * 2) if t < 0.5 else (_MID, _GOOD, (t - 0.5) * 2)
    rgb = (round(a[i] + (b[i] - a[i]) * u) for i in range(3))
    return "#" + "".join(f"{c:02x}" for c in rgb)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def _x(value: float, lo: float, hi: float, left: float, width: float) -> float:
    span = hi - lo if hi > lo else 1.0
    return left + (min(max(value, lo), hi) - lo) / span * width


def _axis(lo: float, hi: float, left: float, width: float, y: float) -> list[str]:
    parts = [f'<line x1="{left}" y1="{y}" x2="{left + width}" y2="{y}" stroke="#888"/>']
    for i in range(5):
        value = lo + (hi - lo) * i / 4
        x = _x(value, lo, hi, left, width)
        parts.append(f'<line x1="{x:.1f}" y1="{y}" x2="{x:.1f}" y2="{y + 4}" stroke="#888"/>')
        parts.append(f'<text x="{x:.1f}" y="{y + 16}" text-anchor="middle">{_num(value)}</text>')
    return parts


def _svg(width: float, height: float, title: str, body: list[str], kind: str) -> Markup:
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot plot-{kind}" role="img" '
        f'width="{width:.0f}" height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" {_FONT}>'
        f"<title>{escape(title)}</title>"
    )
    return Markup(head + "".join(body) + "</svg>")


def forest(
    rows: Sequence[dict[str, Any]],
    *,
    lo: float,
    hi: float,
    title: str,
    threshold: float | None = None,
    higher_is_better: bool = True,
    label_width: int = 170,
) -> Markup:
    """Point estimates with confidence intervals, one row each (``label``, ``value``, ``low``,
    ``high`` and optionally ``passed``, which colours the point), and the threshold as a dashed
    line.

    Example:
        >>> svg = forest([{"label": "<b>", "value": 0.5, "low": 0.4, "high": 0.6}], lo=0, hi=1,
        ...              title="t", threshold=0.7)
        >>> "&lt;b&gt;" in svg and "<b>" not in svg and svg.count("<circle") == 1
        True
    """
    width, row_h, top, plot_w = label_width + 330, 22, 10, 280
    height = top + row_h * len(rows) + 30
    body: list[str] = []
    for i, row in enumerate(rows):
        y = top + row_h * i + row_h / 2
        body.append(_row_label(str(row["label"]), 26, label_width - 8, y + 4))
        if row.get("value") is None:
            body.append(f'<text x="{label_width}" y="{y + 4}" fill="#888">not measured</text>')
            continue
        value = float(row["value"])
        verdict = row.get("passed")
        fill = (
            colour(value, lo, hi, higher_is_better)
            if verdict is None
            else ("#1a9850" if verdict else "#d73027")
        )
        if row.get("low") is not None and row.get("high") is not None:
            x1, x2 = (_x(float(row[k]), lo, hi, label_width, plot_w) for k in ("low", "high"))
            body.append(
                f'<line x1="{x1:.1f}" y1="{y}" x2="{x2:.1f}" y2="{y}" stroke="#333" '
                f'stroke-width="2"/>'
            )
        cx = _x(value, lo, hi, label_width, plot_w)
        tip = f"{row['label']}: {_num(value)} [{_num(row.get('low'))}, {_num(row.get('high'))}]"
        body.append(
            f'<circle cx="{cx:.1f}" cy="{y}" r="5" fill="{fill}" stroke="#333">'
            f"<title>{escape(tip)}</title></circle>"
        )
    axis_y = top + row_h * len(rows) + 4
    body += _axis(lo, hi, label_width, plot_w, axis_y)
    if threshold is not None and lo <= threshold <= hi:
        tx = _x(threshold, lo, hi, label_width, plot_w)
        body.append(
            f'<line class="threshold" x1="{tx:.1f}" y1="{top}" x2="{tx:.1f}" y2="{axis_y}" '
            f'stroke="#b00" stroke-dasharray="4 3">'
            f"<title>threshold {_num(threshold)}</title></line>"
        )
    return _svg(width, height, title, body, "forest")


def heatmap(
    grid: dict[str, Any], *, lo: float, hi: float, title: str, higher_is_better: bool = True
) -> Markup:
    """A heatmap of :func:`assay.analyze.weakness.bivariate` output, values and counts per cell.

    Example:
        >>> grid = {"row_labels": ["a"], "column_labels": ["x", "y"], "mean": [[0.9, None]],
        ...         "n": [[3, 0]], "rows": "topic", "columns": "query_type"}
        >>> svg = heatmap(grid, lo=0, hi=1, title="h")
        >>> svg.count("<rect"), "0.9" in svg
        (2, True)
    """
    rows, cols = grid["row_labels"], grid["column_labels"]
    cell_w, cell_h, left, top = 78, 30, 150, 70
    # room on the right for the last column's label, drawn rotated up and to the right
    width, height = left + cell_w * len(cols) + 100, top + cell_h * len(rows) + 10
    body: list[str] = []
    for j, label in enumerate(cols):
        x = left + cell_w * j + cell_w / 2
        body.append(
            f'<text x="{x:.1f}" y="{top - 8}" text-anchor="start" '
            f'transform="rotate(-30 {x:.1f} {top - 8})">{_label(label, 16)}</text>'
        )
    for i, label in enumerate(rows):
        y = top + cell_h * i
        body.append(_row_label(label, 20, left - 6, f"{y + cell_h / 2 + 4:.1f}"))
        for j, value in enumerate(grid["mean"][i]):
            x = left + cell_w * j
            n = grid["n"][i][j]
            tip = f"{grid['rows']}={label}, {grid['columns']}={cols[j]}: {_num(value)} (n={n})"
            body.append(
                f'<rect x="{x}" y="{y}" width="{cell_w - 2}" height="{cell_h - 2}" '
                f'fill="{colour(value, lo, hi, higher_is_better)}">'
                f"<title>{escape(tip)}</title></rect>"
            )
            if value is not None:
                body.append(
                    f'<text x="{x + cell_w / 2 - 1:.1f}" y="{y + cell_h / 2 + 4:.1f}" '
                    f'text-anchor="middle">{_num(value)} <tspan fill="#444" font-size="10">'
                    f"n={n}</tspan></text>"
                )
    return _svg(width, height, title, body, "heatmap")


def boxplot(
    boxes: Sequence[dict[str, Any]],
    *,
    lo: float,
    hi: float,
    title: str,
    higher_is_better: bool = True,
    label_width: int = 170,
) -> Markup:
    """Horizontal box plots of :func:`assay.analyze.weakness.distribution` output.

    Example:
        >>> box = {"slice": "m", "n": 5, "mean": 0.5, "q1": 0.25, "median": 0.5, "q3": 0.75,
        ...        "whisker_low": 0.0, "whisker_high": 1.0, "outliers": []}
        >>> boxplot([box], lo=0, hi=1, title="b").count("<rect")
        1
    """
    width, row_h, top, plot_w = label_width + 330, 30, 10, 280
    height = top + row_h * len(boxes) + 30
    body: list[str] = []
    for i, box in enumerate(boxes):
        y = top + row_h * i + row_h / 2
        label = f"{box['slice']} (n={box['n']})"
        body.append(_row_label(label, 28, label_width - 8, y + 4))
        px = {
            k: _x(float(box[k]), lo, hi, label_width, plot_w)
            for k in ("whisker_low", "q1", "median", "q3", "whisker_high", "mean")
        }
        tip = (
            f"{box['slice']}: median {_num(box['median'])}, IQR [{_num(box['q1'])}, "
            f"{_num(box['q3'])}], mean {_num(box['mean'])}, n={box['n']}"
        )
        body.append(
            f'<line x1="{px["whisker_low"]:.1f}" y1="{y}" x2="{px["whisker_high"]:.1f}" y2="{y}" '
            f'stroke="#555"/>'
        )
        body.append(
            f'<rect x="{px["q1"]:.1f}" y="{y - 9}" width="{max(px["q3"] - px["q1"], 1.5):.1f}" '
            f'height="18" fill="{colour(box["median"], lo, hi, higher_is_better)}" stroke="#333">'
            f"<title>{escape(tip)}</title></rect>"
        )
        body.append(
            f'<line x1="{px["median"]:.1f}" y1="{y - 9}" x2="{px["median"]:.1f}" y2="{y + 9}" '
            f'stroke="#000" stroke-width="2"/>'
        )
        body.append(f'<circle cx="{px["mean"]:.1f}" cy="{y}" r="2.5" fill="#fff" stroke="#000"/>')
        for value in box.get("outliers", []):
            ox = _x(float(value), lo, hi, label_width, plot_w)
            body.append(f'<circle cx="{ox:.1f}" cy="{y}" r="2" fill="none" stroke="#555"/>')
    body += _axis(lo, hi, label_width, plot_w, top + row_h * len(boxes) + 4)
    return _svg(width, height, title, body, "box")


def reliability(bins: Sequence[dict[str, Any]], *, title: str) -> Markup:
    """A reliability diagram: observed PASS rate against mean predicted probability per bin
    (point area ∝ cases), with the diagonal of perfect calibration.

    Example:
        >>> svg = reliability([{"mean_predicted": 0.2, "observed": 0.3, "n": 5}], title="r")
        >>> svg.count("<circle"), "diagonal" in svg
        (1, True)
    """
    size, left, top = 220, 40, 10
    body = [
        f'<rect x="{left}" y="{top}" width="{size}" height="{size}" fill="none" stroke="#888"/>',
        f'<line class="diagonal" x1="{left}" y1="{top + size}" x2="{left + size}" y2="{top}" '
        f'stroke="#999" stroke-dasharray="4 3"/>',
        f'<text x="{left + size / 2}" y="{top + size + 28}" text-anchor="middle">'
        "mean predicted probability</text>",
        f'<text x="12" y="{top + size / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + size / 2})">observed PASS rate</text>',
    ]
    for value in (0.0, 0.5, 1.0):
        x, y = left + value * size, top + (1 - value) * size
        body.append(
            f'<text x="{x:.1f}" y="{top + size + 13}" text-anchor="middle">{value:g}</text>'
        )
        body.append(f'<text x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>')
    largest = max((int(b.get("n") or 0) for b in bins), default=1) or 1
    for b in bins:
        if b.get("mean_predicted") is None or b.get("observed") is None:
            continue
        x = left + float(b["mean_predicted"]) * size
        y = top + (1 - float(b["observed"])) * size
        radius = 3 + 7 * math.sqrt((b.get("n") or 0) / largest)
        tip = (
            f"predicted {_num(b['mean_predicted'])}, observed {_num(b['observed'])}, n={b.get('n')}"
        )
        body.append(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{radius:.1f}" fill="#5d8aa8" '
            f'fill-opacity="0.8" stroke="#333"><title>{escape(tip)}</title></circle>'
        )
    return _svg(left + size + 12, top + size + 36, title, body, "reliability")


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _row_label(text: str, limit: int, x: float, y: float | str) -> str:
    """A row's :func:`_label`, right-aligned so that it ends at ``x`` (on baseline ``y``)."""
    return f'<text x="{x}" y="{y}" text-anchor="end">{_label(text, limit)}</text>'


def _label(text: str, limit: int) -> str:
    """An escaped axis label shortened to ``limit`` characters; a shortened label carries the
    full text as a tooltip (``<title>``), so no slice name is lost to clipping.

    Example:
        >>> _label("topic=cors", 20), _label("a very long slice name", 8)
        ('topic=cors', 'a very …<title>a very long slice name</title>')
    """
    short = str(escape(_truncate(text, limit)))
    return short if len(text) <= limit else f"{short}<title>{escape(text)}</title>"
