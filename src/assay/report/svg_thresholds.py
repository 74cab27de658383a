"""Inline SVG of ``assay thresholds`` output: the metric's score histogram for human PASS and
FAIL cases with each method's threshold drawn on it, so the report shows where the methods cut
instead of a key/value dump."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

from assay.report.svg import _axis, _label, _num, _svg, _x

_LEFT, _WIDTH, _TOP, _HEIGHT = 44, 360, 14, 150
_DASHES = ("4 3", "1 3", "8 3", "6 2 1 2", "2 2")


def threshold_histogram(plot: Mapping[str, Any], *, title: str) -> Markup:
    """PASS (green, up) and FAIL (red, down) counts per score bin, and one dashed line per
    threshold method (named in the legend).

    Example:
        >>> plot = {"bin_edges": [0, 0.5, 1], "pass_counts": [1, 4], "fail_counts": [3, 1],
        ...         "thresholds": {"youden": 0.5, "risk": 0.8}}
        >>> svg = threshold_histogram(plot, title="t")
        >>> svg.count("<rect"), svg.count("stroke-dasharray"), "youden 0.5" in svg
        (4, 4, True)
    """
    edges = [float(e) for e in plot["bin_edges"]]
    passes, fails = list(plot["pass_counts"]), list(plot["fail_counts"])
    lo, hi = edges[0], edges[-1]
    if hi <= lo:
        hi = lo + 1.0
    tallest = max([*passes, *fails, 1])
    middle = _TOP + _HEIGHT / 2
    scale = (_HEIGHT / 2 - 4) / tallest
    body: list[str] = [f'<line x1="{_LEFT}" y1="{middle}" x2="{_LEFT + _WIDTH}" y2="{middle}" '
                       'stroke="#bbb"/>']
    for i, (count_pass, count_fail) in enumerate(zip(passes, fails, strict=True)):
        x1, x2 = (_x(edges[k], lo, hi, _LEFT, _WIDTH) for k in (i, i + 1))
        width = max(x2 - x1 - 1, 1)
        span = f"{_num(edges[i])}–{_num(edges[i + 1])}"
        if count_pass:
            body.append(f'<rect x="{x1:.1f}" y="{middle - count_pass * scale:.1f}" '
                        f'width="{width:.1f}" height="{count_pass * scale:.1f}" fill="#1a9850">'
                        f"<title>{span}: {count_pass} human PASS</title></rect>")
        if count_fail:
            body.append(f'<rect x="{x1:.1f}" y="{middle:.1f}" width="{width:.1f}" '
                        f'height="{count_fail * scale:.1f}" fill="#d73027">'
                        f"<title>{span}: {count_fail} human FAIL</title></rect>")
    legend_y = _TOP + _HEIGHT + 34
    for k, (method, value) in enumerate(sorted((plot.get("thresholds") or {}).items())):
        if value is None:
            continue
        x = _x(float(value), lo, hi, _LEFT, _WIDTH)
        dash = _DASHES[k % len(_DASHES)]
        body.append(f'<line x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" y2="{_TOP + _HEIGHT}" '
                    f'stroke="#000" stroke-dasharray="{dash}"><title>{escape(method)} '
                    f"{_num(float(value))}</title></line>")
        y = legend_y + 14 * k
        body.append(f'<line x1="{_LEFT}" y1="{y - 4}" x2="{_LEFT + 24}" y2="{y - 4}" '
                    f'stroke="#000" stroke-dasharray="{dash}"/>')
        body.append(f'<text x="{_LEFT + 30}" y="{y}">{_label(str(method), 30)} '
                    f"{_num(float(value))}</text>")
    body += _axis(lo, hi, _LEFT, _WIDTH, _TOP + _HEIGHT + 4)
    body.append(f'<text x="{_LEFT}" y="{_TOP - 2}" fill="#1a9850">human PASS ↑</text>')
    body.append(f'<text x="{_LEFT + _WIDTH}" y="{_TOP - 2}" text-anchor="end" '
                'fill="#d73027">human FAIL ↓</text>')
    n_lines = len(plot.get("thresholds") or {})
    return _svg(_LEFT + _WIDTH + 20, legend_y + 14 * n_lines + 6, title, body, "thresholds")
