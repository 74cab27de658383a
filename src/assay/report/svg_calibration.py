"""Inline SVG drawings of a calibrated check (verdict report).

* :func:`calibration_regions` — P(human PASS) against the metric, with the score ranges whose
  conformal set is {FAIL}, {FAIL, PASS} (review) or {PASS} shaded (HCAT Fig. 4).
* :func:`score_distributions` — the metric's distribution for human PASS and FAIL cases, with the
  score thresholds where the conformal verdict changes (threshold paper, Fig. 8).

Both take the ``curve`` dictionary of :class:`assay.verdict.cases.CaseVerdicts`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from markupsafe import Markup, escape

from assay.report.svg import _axis, _num, _svg, _x

_REGION_FILL = {"FAIL": "#f4c7c3", "REVIEW": "#fdf1c7", "PASS": "#cde8d2"}
_LEFT, _WIDTH, _TOP, _HEIGHT = 44, 320, 12, 170


def _regions(curve: dict[str, Any]) -> list[tuple[str, float, float]]:
    """Contiguous (region, start score, end score) runs along the score grid; adjacent runs meet
    at the :func:`thresholds`, so the shading has no gaps and its edges are the drawn thresholds.
    """
    grid, region = curve["grid"], curve["region"]
    runs: list[tuple[str, float, float]] = []
    for i, name in enumerate(region):
        if runs and runs[-1][0] == name:
            runs[-1] = (name, runs[-1][1], grid[i])
        else:
            if runs:
                edge = (grid[i - 1] + grid[i]) / 2
                runs[-1] = (runs[-1][0], runs[-1][1], edge)
                runs.append((name, edge, grid[i]))
            else:
                runs.append((name, grid[i], grid[i]))
    return runs


def thresholds(curve: dict[str, Any]) -> list[float]:
    """Scores where the conformal verdict changes along the grid.

    Example:
        >>> thresholds({"grid": [0, 1, 2, 3], "region": ["FAIL", "REVIEW", "REVIEW", "PASS"]})
        [0.5, 2.5]
    """
    grid, region = curve["grid"], curve["region"]
    return [
        (grid[i - 1] + grid[i]) / 2 for i in range(1, len(region)) if region[i] != region[i - 1]
    ]


def _shade(curve: dict[str, Any], lo: float, hi: float) -> list[str]:
    body = []
    for name, start, end in _regions(curve):
        x0, x1 = _x(start, lo, hi, _LEFT, _WIDTH), _x(end, lo, hi, _LEFT, _WIDTH)
        body.append(
            f'<rect class="region-{name.lower()}" x="{x0:.1f}" y="{_TOP}" '
            f'width="{max(x1 - x0, 1.0):.1f}" height="{_HEIGHT}" fill="{_REGION_FILL[name]}">'
            f"<title>{escape(name)}: scores {_num(start)} to {_num(end)}</title></rect>"
        )
    return body


def calibration_regions(curve: dict[str, Any], *, title: str) -> Markup:
    """Calibration curve P(PASS | score) over shaded conformal regions.

    Example:
        >>> curve = {"metric": "m", "grid": [0.0, 0.5, 1.0], "p_pass": [0.1, 0.5, 0.9],
        ...          "region": ["FAIL", "REVIEW", "PASS"], "scores_pass": [0.9],
        ...          "scores_fail": [0.1]}
        >>> svg = calibration_regions(curve, title="c")
        >>> svg.count("<rect"), "<polyline" in svg  # three regions and the frame
        (4, True)
    """
    lo, hi = float(curve["grid"][0]), float(curve["grid"][-1])
    body = _shade(curve, lo, hi)
    body.append(
        f'<rect x="{_LEFT}" y="{_TOP}" width="{_WIDTH}" height="{_HEIGHT}" fill="none" '
        'stroke="#888"/>'
    )
    points = " ".join(
        f"{_x(s, lo, hi, _LEFT, _WIDTH):.1f},{_TOP + (1 - p) * _HEIGHT:.1f}"
        for s, p in zip(curve["grid"], curve["p_pass"], strict=True)
    )
    body.append(f'<polyline points="{points}" fill="none" stroke="#1f4e79" stroke-width="2"/>')
    for value in (0.0, 0.5, 1.0):
        y = _TOP + (1 - value) * _HEIGHT
        body.append(f'<text x="{_LEFT - 4}" y="{y + 4:.1f}" text-anchor="end">{value:g}</text>')
    body += _axis(lo, hi, _LEFT, _WIDTH, _TOP + _HEIGHT)
    body.append(
        f'<text x="{_LEFT + _WIDTH / 2}" y="{_TOP + _HEIGHT + 32}" text-anchor="middle">'
        f"{escape(curve['metric'])} (shaded: conformal verdict FAIL / REVIEW / PASS)</text>"
    )
    body.append(
        f'<text x="12" y="{_TOP + _HEIGHT / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {_TOP + _HEIGHT / 2})">P(human PASS)</text>'
    )
    return _svg(_LEFT + _WIDTH + 16, _TOP + _HEIGHT + 40, title, body, "calibration")


def score_distributions(curve: dict[str, Any], *, title: str, bins: int = 20) -> Markup:
    """Histograms of the metric for human PASS (green) and FAIL (red) cases, with thresholds.

    Example:
        >>> curve = {"metric": "m", "grid": [0.0, 1.0], "p_pass": [0.2, 0.8],
        ...          "region": ["FAIL", "PASS"], "scores_pass": [0.8, 0.9], "scores_fail": [0.1]}
        >>> svg = score_distributions(curve, title="d")
        >>> svg.count('class="threshold"')
        1
    """
    lo, hi = float(curve["grid"][0]), float(curve["grid"][-1])
    edges = np.linspace(lo, hi, bins + 1)
    counts = {
        "PASS": np.histogram(curve["scores_pass"], bins=edges)[0],
        "FAIL": np.histogram(curve["scores_fail"], bins=edges)[0],
    }
    tallest = max(int(max(c.max(initial=0) for c in counts.values())), 1)
    body = [
        f'<rect x="{_LEFT}" y="{_TOP}" width="{_WIDTH}" height="{_HEIGHT}" fill="none" '
        'stroke="#888"/>'
    ]
    colours = {"PASS": "#1a9850", "FAIL": "#d73027"}
    for name, values in counts.items():
        for i, count in enumerate(values):
            if not count:
                continue
            x0 = _x(float(edges[i]), lo, hi, _LEFT, _WIDTH)
            x1 = _x(float(edges[i + 1]), lo, hi, _LEFT, _WIDTH)
            h = count / tallest * _HEIGHT
            body.append(
                f'<rect x="{x0:.1f}" y="{_TOP + _HEIGHT - h:.1f}" width="{max(x1 - x0, 1.0):.1f}" '
                f'height="{h:.1f}" fill="{colours[name]}" fill-opacity="0.45">'
                f"<title>human {name}: {count} cases in [{_num(float(edges[i]))}, "
                f"{_num(float(edges[i + 1]))})</title></rect>"
            )
    for value in thresholds(curve):
        x = _x(value, lo, hi, _LEFT, _WIDTH)
        body.append(
            f'<line class="threshold" x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" '
            f'y2="{_TOP + _HEIGHT}" stroke="#000" stroke-dasharray="5 3">'
            f"<title>threshold {_num(value)}</title></line>"
        )
    body += _axis(lo, hi, _LEFT, _WIDTH, _TOP + _HEIGHT)
    body.append(
        f'<text x="{_LEFT + _WIDTH / 2}" y="{_TOP + _HEIGHT + 32}" text-anchor="middle">'
        f"{escape(curve['metric'])}: human PASS (green), FAIL (red); dashed: thresholds</text>"
    )
    return _svg(_LEFT + _WIDTH + 16, _TOP + _HEIGHT + 40, title, body, "distribution")
