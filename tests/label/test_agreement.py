"""Agreement statistics against published worked examples and an independent computation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from assay.label.agreement import agreement, cohen_pairs, fleiss, krippendorff_alpha, rating_matrix
from assay.label.criteria import parse_criteria


def test_krippendorff_alpha_matches_krippendorffs_worked_example() -> None:
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the 3-coder example with
    # missing values: nominal alpha = 0.691.
    nan = np.nan
    data = {
        "A": [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
        "B": [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
        "C": [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
    }
    result = krippendorff_alpha(pd.DataFrame(data))
    assert result["value"] == pytest.approx(0.691, abs=5e-4)
    assert result["n_items"] == 12  # units coded by 2+ coders


def test_fleiss_kappa_matches_fleiss_1971_table() -> None:
    # The 10 subjects x 14 raters x 5 categories example (kappa = 0.210).
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = [[cat + 1 for cat, n in enumerate(row) for _ in range(n)] for row in counts]
    matrix = pd.DataFrame(ratings, columns=[f"r{k}" for k in range(14)], dtype=float)
    result = fleiss(matrix, [1, 2, 3, 4, 5])
    assert result["value"] == pytest.approx(0.210, abs=5e-4)
    assert result["raters_per_item"] == 14 and result["n_items"] == 10


def test_cohen_kappa_matches_the_definition() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 200)
    b = np.where(rng.random(200) < 0.8, a, 1 - a)
    matrix = pd.DataFrame({"a": a, "b": b}, dtype=float)
    po = float((a == b).mean())
    pe = float(a.mean() * b.mean() + (1 - a.mean()) * (1 - b.mean()))
    assert cohen_pairs(matrix)[0]["value"] == pytest.approx((po - pe) / (1 - pe))


def test_undefined_statistics_say_why() -> None:
    same = pd.DataFrame({"a": [1.0, 1.0], "b": [1.0, 1.0]})
    assert cohen_pairs(same)[0]["value"] is None
    assert "same value" in cohen_pairs(same)[0]["reason"]
    lonely = pd.DataFrame({"a": [1.0, np.nan], "b": [np.nan, 0.0]})
    assert "fewer than 2" in cohen_pairs(lonely)[0]["reason"]
    assert krippendorff_alpha(lonely)["value"] is None


def test_agreement_per_criterion_from_judgments() -> None:
    rows = []
    for i in range(20):
        for who, flip in (("ada", False), ("bob", i % 5 == 0), ("cy", i % 4 == 0)):
            truth = i % 2
            rows.append(
                {
                    "case_id": f"q{i}",
                    "model": "m",
                    "annotator": who,
                    "criterion": "grounded",
                    "value": 1 - truth if flip else truth,
                }
            )
            rows.append(
                {
                    "case_id": f"q{i}",
                    "model": "m",
                    "annotator": who,
                    "criterion": "quality",
                    "value": 1 + 2 * truth + (who == "cy"),
                }
            )
    out = {a["criterion"]: a for a in agreement(rows, parse_criteria("grounded,quality:1-5"))}
    grounded = out["grounded"]
    assert grounded["overlap"] == 20 and len(grounded["cohen"]) == 3
    ada_bob = next(p for p in grounded["cohen"] if p["annotators"] == ["ada", "bob"])
    assert ada_bob["value"] == pytest.approx(0.6)  # 4 of 20 flipped, balanced classes
    assert 0 < grounded["fleiss"]["value"] < 1 and 0 < grounded["alpha"]["value"] < 1
    assert out["quality"]["alpha"]["value"] > 0.5  # ordinal: cy is one level off, not opposite
    assert rating_matrix(rows, "quality").shape == (20, 3)
