"""The verdict page's chart: each check's bound against its target, one row per check.

A row draws the rate in the risk appetite's own terms (a pass rate for ``min_pass_rate``, a fail
rate for ``max_fail_rate``), the interval between its two one-sided bounds, the estimate, the
target as a vertical line, and the decision in its colour, so PASS / FAIL / INCONCLUSIVE and how
far each bound lies from its target read at a glance. Every text is escaped.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup, escape

#: Decision → (interval fill, text and line colour).
COLOURS = {
    "PASS": ("#a9d8b4", "#1b6b2f"),
    "FAIL": ("#efaaa4", "#a1261b"),
    "INCONCLUSIVE": ("#f7dd8a", "#7a5a00"),
}
_WIDTH, _ROW, _TOP = 1000, 40, 26
_LABEL_W, _PLOT_X, _PLOT_W, _RIGHT_X = 300, 320, 400, 740
_NAME_CHARS = 44


@dataclass(frozen=True)
class ChartRow:
    """One check of one system, in the appetite's terms (``kind`` ``pass`` or ``fail`` rate).

    ``lower`` / ``upper`` bound the shown rate; None when the check has no bound (not measured,
    no valid metric), drawn as a row without an interval.
    """

    name: str
    appetite: str
    kind: str
    target: float
    decision: str
    estimate: float | None
    lower: float | None
    upper: float | None
    counts: str


def _x(rate: float) -> float:
    return _PLOT_X + min(max(rate, 0.0), 1.0) * _PLOT_W


def _short(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (the full text is in a tooltip).

    Example:
        >>> _short("relevant chunk retrieved", 10)
        'relevant …'
    """
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _row(i: int, row: ChartRow) -> str:
    y = _TOP + i * _ROW
    mid = y + _ROW / 2
    fill, ink = COLOURS.get(row.decision, ("#ddd", "#444"))
    parts = [
        f"<g><title>{escape(f'{row.name}: {row.decision} ({row.appetite})')}</title>",
        f'<rect x="0" y="{y}" width="{_WIDTH}" height="{_ROW}" '
        f'fill="{"#fafafa" if i % 2 else "#fff"}"/>',
        f'<text x="4" y="{mid - 3:.1f}" font-size="13" font-weight="600">'
        f"{escape(_short(row.name, _NAME_CHARS))}</text>",
        f'<text x="4" y="{mid + 12:.1f}" font-size="11" fill="#555">'
        f"{escape(_short(row.appetite, _NAME_CHARS + 8))}</text>",
        f'<line x1="{_PLOT_X}" y1="{mid}" x2="{_PLOT_X + _PLOT_W}" y2="{mid}" stroke="#ddd"/>',
    ]
    if row.lower is not None and row.upper is not None:
        x0, x1 = _x(min(row.lower, row.upper)), _x(max(row.lower, row.upper))
        parts.append(
            f'<rect class="bound" x="{x0:.1f}" y="{mid - 7}" width="{max(x1 - x0, 2):.1f}" '
            f'height="14" rx="3" fill="{fill}" stroke="{ink}"/>'
        )
    if row.estimate is not None:
        parts.append(f'<circle cx="{_x(row.estimate):.1f}" cy="{mid}" r="4" fill="{ink}"/>')
    tx = _x(row.target)
    parts += [
        f'<line class="target" x1="{tx:.1f}" y1="{y + 4}" x2="{tx:.1f}" y2="{y + _ROW - 4}" '
        'stroke="#222" stroke-width="2"/>',
        f'<text x="{_RIGHT_X}" y="{mid - 3:.1f}" font-size="13" font-weight="700" fill="{ink}">'
        f"{escape(row.decision)}</text>",
        f'<text x="{_RIGHT_X}" y="{mid + 12:.1f}" font-size="11" fill="#555">'
        f"{escape(row.counts)}</text></g>",
    ]
    return "".join(parts)


def _scale(height: float) -> str:
    parts = []
    for i in range(5):
        x = _PLOT_X + _PLOT_W * i / 4
        parts.append(
            f'<line x1="{x}" y1="{_TOP - 4}" x2="{x}" y2="{height}" stroke="#eee"/>'
            f'<text x="{x}" y="{_TOP - 8}" font-size="11" text-anchor="middle" fill="#555">'
            f"{25 * i}%</text>"
        )
    parts.append(
        f'<text x="4" y="{_TOP - 8}" font-size="11" fill="#555">check (risk appetite)</text>'
        f'<text x="{_RIGHT_X}" y="{_TOP - 8}" font-size="11" fill="#555">decision · counts</text>'
    )
    return "".join(parts)


def bound_chart(title: str, rows: list[ChartRow]) -> Markup:
    """An inline SVG of ``rows``: per check the rate's interval against the target line.

    Example:
        >>> row = ChartRow("grounded answers", "fail rate ≤ 10% at 95%", "fail", 0.1, "FAIL",
        ...                0.79, 0.65, 0.89, "n 70 · 36 labelled · 9 REVIEW")
        >>> svg = bound_chart("terse <b>", [row])
        >>> "terse &lt;b&gt;" in svg and 'class="target"' in svg and "FAIL" in svg
        True
    """
    height = _TOP + len(rows) * _ROW + 4
    legend = (
        f"{title}: per check the interval between the lower and upper bound of the rate (bar), "
        "the estimate (dot) and the target (vertical line)"
    )
    body = [_scale(height)] + [_row(i, row) for i, row in enumerate(rows)]
    return Markup(
        f'<svg xmlns="http://www.w3.org/2000/svg" class="bounds" role="img" '
        f'viewBox="0 0 {_WIDTH} {height}" width="100%" '
        f'style="max-width:{_WIDTH}px;height:auto" '
        f'font-family="system-ui, sans-serif"><title>{escape(legend)}</title>'
        + "".join(body)
        + "</svg>"
    )
