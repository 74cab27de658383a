"""AUROC, its bootstrap interval, verdicts, and the combined-vs-single comparison."""

from __future__ import annotations

import numpy as np
import pytest

from assay.calibrate import auroc, auroc_ci, compare_combined, separation_report
from assay.errors import InvalidInputError


def test_auroc_matches_sklearn_with_ties() -> None:
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    s = np.round(rng.normal(size=500) + 0.5 * y, 1)  # many ties
    assert auroc(s, y) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    with pytest.raises(InvalidInputError, match="both PASS and FAIL"):
        auroc([0.1, 0.2], [1, 1])


def test_bootstrap_interval_covers_the_true_auroc() -> None:
    """True AUROC of N(d,1) vs N(0,1) is Φ(d/√2); 95 % intervals should cover it ~95 % of the time."""
    from scipy.stats import norm

    d = 0.8
    truth = norm.cdf(d / np.sqrt(2))
    rng = np.random.default_rng(1)
    hits = 0
    for rep in range(40):
        y = np.repeat([0, 1], 150)
        r = auroc_ci(rng.normal(size=300) + d * y, y, n_boot=300, seed=rep)
        hits += r["ci_low"] <= truth <= r["ci_high"]
        assert r["ci_low"] < r["auroc"] < r["ci_high"]
    assert hits >= 34  # 95 % nominal; P(hits < 34 | p=.95) < 1 %


def test_verdicts_and_advice() -> None:
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 300)
    x = np.column_stack(
        [
            rng.normal(size=600) + y,
            rng.normal(size=600),
            rng.normal(size=600) - y,
            -rng.normal(size=600) - y,
        ]
    )
    rows = separation_report(
        x,
        y,
        ["good", "noise", "inverted", "lower_better"],
        higher_is_better=[True, True, True, False],
        n_boot=300,
    )
    verdicts = {r["metric"]: r["verdict"] for r in rows}
    assert verdicts == {
        "good": "separates",
        "noise": "undecidable",
        "inverted": "inverted",
        "lower_better": "separates",
    }
    noise = next(r for r in rows if r["metric"] == "noise")
    assert "does NOT separate" in noise["advice"] and "Do not threshold" in noise["advice"]
    assert "INVERTED" in next(r for r in rows if r["metric"] == "inverted")["advice"]


def test_combined_metrics_against_best_single() -> None:
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 2000)
    x = np.column_stack([rng.normal(size=2000) + 0.7 * y for _ in range(3)])
    out = compare_combined(x, y, ["a", "b", "c"], method="logistic", n_boot=200)
    assert out["combined_is_better"] and out["difference_ci"][0] > 0
    assert out["combined_auroc"] > out["best_single_auroc"]
    # a useless second metric does not make the combination better
    x2 = np.column_stack([x[:, 0], rng.normal(size=2000)])
    out2 = compare_combined(x2, y, ["a", "noise"], method="logistic", n_boot=200)
    assert not out2["combined_is_better"] and "does not reliably beat" in out2["advice"]


@pytest.mark.parametrize("block", [1, 7, 600])
def test_bootstrap_in_blocks_is_the_whole_bootstrap(
    monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Resamples drawn and ranked a block of rows at a time give the figures of one matrix."""
    from assay.calibrate import separation

    rng = np.random.default_rng(3)
    y = (rng.random(301) < 0.3).astype(int)
    x = np.column_stack([rng.normal(size=301) + y, np.round(rng.normal(size=301) + y, 1)])
    whole = separation.bootstrap_indices(y, 50, 4)
    monkeypatch.setattr(separation, "_BLOCK_INDICES", 2**40)  # one block: the matrix drawn whole
    one = (auroc_ci(x[:, 1], y, n_boot=50, seed=2),
           compare_combined(x, y, ["a", "b"], method="logistic", n_boot=50, seed=1))  # fmt: skip
    monkeypatch.setattr(separation, "_BLOCK_INDICES", block * len(y))  # `block` rows a block
    assert len(list(separation.bootstrap_index_blocks(y, 50, 4))) == -(-50 // block)
    assert np.array_equal(separation.bootstrap_indices(y, 50, 4), whole)
    blocked = (auroc_ci(x[:, 1], y, n_boot=50, seed=2),
               compare_combined(x, y, ["a", "b"], method="logistic", n_boot=50, seed=1))  # fmt: skip
    assert blocked == one


def test_bootstrap_auroc_is_the_rank_sum_of_each_resample_exactly() -> None:
    """Ranks from counts give each resample's ``rankdata`` AUROC bit for bit (ties, NaN)."""
    from scipy.stats import rankdata

    from assay.calibrate.separation import bootstrap_auroc, bootstrap_indices

    rng = np.random.default_rng(11)
    y = (rng.random(500) < 0.4).astype(int)
    for s in (rng.normal(size=500), np.round(rng.normal(size=500), 1),
              np.where(rng.random(500) < 0.01, np.nan, rng.integers(0, 4, 500) * 1.0)):  # fmt: skip
        idx = bootstrap_indices(y, 40, 3)
        drawn = y[idx].astype(bool)
        n_pos = drawn.sum(axis=1)
        ranks = rankdata(s[idx], axis=1)
        expected = ((ranks * drawn).sum(axis=1) - n_pos * (n_pos + 1) / 2) / (
            n_pos * (500 - n_pos)
        )
        assert np.array_equal(bootstrap_auroc(s, y, idx), expected, equal_nan=True)
