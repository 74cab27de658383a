"""Bootstrap intervals, paired bootstrap and McNemar: parity with references and coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from assay.analyze.uncertainty import bootstrap_ci, holm, mcnemar, paired_bootstrap
from assay.errors import InvalidInputError


def test_bootstrap_ci_matches_scipy_percentile_bootstrap() -> None:
    values = np.random.default_rng(3).gamma(2.0, 0.2, size=300)
    ours = bootstrap_ci(values, n_resamples=5000, seed=1)
    ref = stats.bootstrap(
        (values,), np.mean, method="percentile", n_resamples=5000, random_state=1
    ).confidence_interval
    assert ours[0] == pytest.approx(ref.low, abs=0.004)
    assert ours[1] == pytest.approx(ref.high, abs=0.004)
    assert ours[0] < values.mean() < ours[1]


def test_bootstrap_ci_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    rng = np.random.default_rng(0)
    hits = 0
    trials = 300
    for trial in range(trials):
        sample = (rng.random(120) < 0.7).astype(float)
        low, high = bootstrap_ci(sample, n_resamples=500, seed=trial)
        hits += low <= 0.7 <= high
    assert 0.90 <= hits / trials <= 0.985


def test_bootstrap_ci_is_deterministic_for_a_seed_and_handles_edges() -> None:
    values = [0.1, 0.5, 0.9, 0.3]
    assert bootstrap_ci(values, seed=5) == bootstrap_ci(values, seed=5)
    assert bootstrap_ci([0.4]) == (0.4, 0.4)
    assert bootstrap_ci([2.0, 2.0, 2.0]) == (2.0, 2.0)
    assert bootstrap_ci([]) == (None, None)
    with pytest.raises(InvalidInputError, match="finite numbers"):
        bootstrap_ci([1.0, math.nan])
    with pytest.raises(InvalidInputError, match="'confidence'"):
        bootstrap_ci([1.0, 2.0], confidence=1.5)


def test_bootstrap_ci_narrows_with_more_data() -> None:
    rng = np.random.default_rng(1)
    small = bootstrap_ci(rng.random(30))
    large = bootstrap_ci(rng.random(3000))
    assert (large[1] - large[0]) < (small[1] - small[0]) / 5


def test_paired_bootstrap_detects_a_shift_and_not_noise() -> None:
    rng = np.random.default_rng(2)
    base = rng.random(200)
    shifted = paired_bootstrap(base + 0.05 + rng.normal(0, 0.02, 200), base)
    assert shifted["diff"] == pytest.approx(0.05, abs=0.01)
    assert shifted["ci_low"] > 0 and shifted["p_value"] < 0.01
    noise = paired_bootstrap(base + rng.normal(0, 0.05, 200), base)
    assert noise["ci_low"] < 0 < noise["ci_high"] and noise["p_value"] > 0.05
    same = paired_bootstrap(base, base)
    assert same["diff"] == 0 and same["p_value"] == 1.0
    assert paired_bootstrap([], [])["diff"] is None
    with pytest.raises(InvalidInputError, match="as long as 'a'"):
        paired_bootstrap([1.0, 2.0], [1.0])


def test_paired_bootstrap_agrees_with_a_paired_t_test_on_normal_data() -> None:
    rng = np.random.default_rng(4)
    a = rng.normal(0.6, 0.1, 400)
    b = a - rng.normal(0.01, 0.1, 400)
    ours = paired_bootstrap(a, b, n_resamples=4000, seed=0)
    t = stats.ttest_rel(a, b)
    ci = t.confidence_interval()
    assert ours["ci_low"] == pytest.approx(ci.low, abs=0.004)
    assert ours["ci_high"] == pytest.approx(ci.high, abs=0.004)
    assert ours["p_value"] == pytest.approx(t.pvalue, abs=0.03)


def test_mcnemar_exact_matches_the_binomial_textbook_value() -> None:
    # 10 pairs where only A passes, 2 where only B passes, 5 concordant.
    a = [True] * 10 + [False] * 2 + [True] * 5
    b = [False] * 10 + [True] * 2 + [True] * 5
    out = mcnemar(a, b)
    assert (out["a_only"], out["b_only"], out["exact"]) == (10, 2, True)
    assert out["p_value"] == pytest.approx(2 * (1 + 12 + 66) / 4096)
    assert mcnemar(b, a)["p_value"] == pytest.approx(out["p_value"])


def test_mcnemar_chi_squared_with_continuity_correction() -> None:
    # Agresti's presidential approval table: b = 150, c = 86 discordant pairs.
    a = [True] * 150 + [False] * 86 + [True] * 794 + [False] * 570
    b = [False] * 150 + [True] * 86 + [True] * 794 + [False] * 570
    out = mcnemar(a, b)
    statistic = (abs(150 - 86) - 1) ** 2 / (150 + 86)
    assert out["exact"] is False
    assert out["statistic"] == pytest.approx(statistic)
    assert out["p_value"] == pytest.approx(stats.chi2.sf(statistic, 1))
    assert out["p_value"] < 1e-4
    assert mcnemar([True, False], [True, False])["p_value"] == 1.0


def test_holm_adjustment() -> None:
    assert holm([0.01, 0.02, 0.03]) == pytest.approx([0.03, 0.04, 0.04])
    assert holm([0.5, None]) == [0.5, None]
    assert holm([]) == []
