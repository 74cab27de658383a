"""The verdict report's calibration drawings: regions, thresholds, histograms, escaping."""

from __future__ import annotations

import re

from assay.report.svg_calibration import calibration_regions, score_distributions, thresholds

CURVE = {
    "metric": "groundedness",
    "grid": [0.0, 0.25, 0.5, 0.75, 1.0],
    "p_pass": [0.05, 0.2, 0.5, 0.8, 0.95],
    "region": ["FAIL", "FAIL", "REVIEW", "PASS", "PASS"],
    "scores_pass": [0.7, 0.9, 1.0],
    "scores_fail": [0.0, 0.1, 0.4],
}


def _titles(svg: str) -> list[str]:
    return re.findall(r"<title>([^<]*)</title>", svg)


def test_regions_are_shaded_in_score_order_with_their_ranges() -> None:
    svg = str(calibration_regions(CURVE, title="cal"))
    classes = re.findall(r'class="region-(\w+)"', svg)
    assert classes == ["fail", "review", "pass"]
    xs = [float(x) for x in re.findall(r'class="region-\w+" x="([\d.]+)"', svg)]
    assert xs == sorted(xs) and len(set(xs)) == 3
    assert "FAIL: scores 0 to 0.375" in _titles(svg)
    assert "REVIEW: scores 0.375 to 0.625" in _titles(svg)
    assert "PASS: scores 0.625 to 1" in _titles(svg)
    widths = [
        float(w) for w in re.findall(r'class="region-\w+" x="[\d.]+" y="\d+" width="([\d.]+)"', svg)
    ]
    assert abs(sum(widths) - 320) < 0.5  # regions tile the plot: no gaps between them


def test_curve_rises_on_screen_as_p_pass_rises() -> None:
    svg = str(calibration_regions(CURVE, title="cal"))
    points = re.search(r'<polyline points="([^"]+)"', svg)
    assert points is not None
    ys = [float(p.split(",")[1]) for p in points.group(1).split()]
    assert ys == sorted(ys, reverse=True)  # SVG y grows downwards: higher P(PASS) is higher up
    assert len(ys) == len(CURVE["grid"])


def test_thresholds_sit_between_grid_points_where_the_verdict_changes() -> None:
    assert thresholds(CURVE) == [0.375, 0.625]
    assert thresholds({"grid": [0.0, 1.0], "region": ["REVIEW", "REVIEW"]}) == []


def test_histograms_count_every_labelled_score_including_the_top_edge() -> None:
    svg = str(score_distributions(CURVE, title="dist", bins=4))
    counts = {"PASS": 0, "FAIL": 0}
    for title in _titles(svg):
        match = re.match(r"human (PASS|FAIL): (\d+) cases", title)
        if match:
            counts[match.group(1)] += int(match.group(2))
    assert counts == {"PASS": 3, "FAIL": 3}
    assert svg.count('class="threshold"') == 2


def test_untrusted_names_are_escaped() -> None:
    curve = dict(CURVE, metric="<script>alert(1)</script>")
    for svg in (
        calibration_regions(curve, title="<b>t</b>"),
        score_distributions(curve, title="<b>t</b>"),
    ):
        assert "<script>" not in svg and "<b>" not in svg
        assert "&lt;script&gt;" in svg
