"""The design-based bound (design note 0063): parity with ppi-python and scipy, census, edges."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np
import pytest
from scipy.stats import binomtest, hypergeom, norm

from assay.errors import InvalidInputError
from assay.verdict.bounds import betting_lower_bound, hypergeometric_bound
from assay.verdict.design import ACTIVE, UNIFORM, UNKNOWN, DesignRound, Draw, Key, LabelRecord
from assay.verdict.estimate import design_bounds, design_labels_to_decide
from assay.verdict.estimate_normal import RoundEstimate, combine, pool_folds
from assay.verdict.looks import look_level

UNITS: list[Key] = [(f"q{i}", "m") for i in range(400)]


def _uniform(number: int, drawn: list[Key], known: frozenset[Key] = frozenset()) -> DesignRound:
    pool = len(UNITS) - len(known)
    draws = tuple(Draw(c, m, 1.0 / pool) for c, m in drawn)
    return DesignRound(number, "ok", "all", UNIFORM, "", known, {"m": pool}, draws)


def _records(
    values: dict[Key, int], design: str = UNIFORM, number: int | None = 1
) -> dict[Key, LabelRecord]:
    return {k: LabelRecord("ok", v, design, "store", number) for k, v in values.items()}


def test_one_uniform_round_matches_ppi_mean_ci_up_to_the_finite_population_terms() -> None:
    """Nothing known, λ fixed, predictions fixed: the same estimate as ``ppi_mean_ci`` and the
    same interval width once its imputation term is removed and the finite-population correction
    and the unbiased (n − 1) variance are applied."""
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    rng = np.random.default_rng(3)
    truth = rng.binomial(1, 0.7, len(UNITS))
    f = np.clip(truth * 0.6 + rng.random(len(UNITS)) * 0.4, 0, 1)
    drawn_index = rng.choice(len(UNITS), 120, replace=False)
    drawn = [UNITS[i] for i in drawn_index]
    labels = {UNITS[i]: int(truth[i]) for i in drawn_index}
    predictions = dict(zip(UNITS, f.tolist(), strict=True))
    lam = 0.6
    low, high = design_bounds(
        UNITS,
        _records(labels),
        [_uniform(1, drawn)],
        predictions=predictions,
        lam=lam,
        confidence=0.95,
    )
    assert low.method == high.method == "design-normal"
    y, yhat = truth[drawn_index].astype(float), f[drawn_index]
    point = float(np.ravel(ppi_mean_pointestimate(y, yhat, f, lam=lam))[0])
    assert low.estimate == pytest.approx(point, abs=1e-12)
    assert high.estimate == pytest.approx(point, abs=1e-12)
    level = look_level(0.95, 1)
    ci_low, ci_high = ppi_mean_ci(y, yhat, f, alpha=2 * (1 - level), lam=lam)
    half_ppi = (float(np.ravel(ci_high)[0]) - float(np.ravel(ci_low)[0])) / 2
    z, n, big = norm.ppf(level), len(y), len(UNITS)
    rectifier = half_ppi**2 - (z * lam) ** 2 * np.var(f) / big
    expected = math.sqrt((1 - n / big) * n / (n - 1) * rectifier)
    # the half-width (the skewness correction moves both bounds alike, so it cancels here)
    assert (high.bound - low.bound) / 2 == pytest.approx(expected, rel=1e-9)
    assert low.bound < point < high.bound
    assert low.n_design == 120 and low.rounds == (1,) and low.lam == lam and low.look == 1


@pytest.mark.parametrize(
    ("k", "m", "pool"), [(0, 10, 50), (7, 10, 50), (18, 18, 40), (30, 40, 400)]
)
def test_hypergeometric_bound_inverts_scipy_hypergeometric_test(k: int, m: int, pool: int) -> None:
    low = hypergeometric_bound(k, m, pool, 0.95, "lower")
    high = hypergeometric_bound(k, m, pool, 0.95, "upper")
    # the bound is the least / largest count whose test does not reject at 5 %
    assert hypergeom.sf(k - 1, pool, low, m) > 0.05 and (
        low == k or hypergeom.sf(k - 1, pool, low - 1, m) <= 0.05
    )
    assert hypergeom.cdf(k, pool, high, m) > 0.05
    assert high == pool - (m - k) or hypergeom.cdf(k, pool, high + 1, m) <= 0.05
    # never looser than Clopper–Pearson on the same draws (a finite pool is known better)
    ci = binomtest(k, m).proportion_ci(confidence_level=0.90, method="exact")
    assert low / pool >= ci.low - 1 / pool and high / pool <= ci.high + 1 / pool


def test_hypergeometric_bound_covers_exactly() -> None:
    pool, m = 60, 15
    for count in range(0, pool + 1, 6):
        covered = sum(
            hypergeom.pmf(k, pool, count, m)
            for k in range(m + 1)
            if hypergeometric_bound(k, m, pool, 0.95, "lower") <= count
        )
        assert covered >= 0.95 - 1e-12


def test_betting_bound_covers_a_skewed_weighted_mean() -> None:
    rng = np.random.default_rng(0)
    mu, hits = 0.3, 0
    for _ in range(200):
        x = rng.exponential(mu, 60)
        hits += betting_lower_bound(x, 0.95) <= mu
    assert hits / 200 >= 0.95


def test_betting_bound_takes_larger_bets_when_its_cap_allows() -> None:
    rng = np.random.default_rng(1)
    mu, low, high = 0.9, [], []  # a mean far from 0 at a small spread: the cap binds
    for _ in range(200):
        x = rng.uniform(0.7, 1.1, 80)
        low.append(betting_lower_bound(x, 0.95, fixed_n=True))
        high.append(betting_lower_bound(x, 0.95, fixed_n=True, cap=0.99))
    assert np.mean(np.array(high) <= mu) >= 0.95  # still valid
    assert np.mean(high) > np.mean(low)  # and tighter on average
    with pytest.raises(InvalidInputError, match="cap"):
        betting_lower_bound([0.5], 0.95, cap=1.0)  # a bet of 1 / m may lose everything


def test_without_a_design_round_the_census_decides_and_a_full_census_is_exact() -> None:
    units = UNITS[:50]
    some = _records({k: 1 for k in units[:30]}, UNKNOWN, None)
    low, high = design_bounds(units, some, [])
    assert (low.method, low.bound, high.bound) == ("census", 30 / 50, 1.0)
    assert low.n_unknown_design == 30 and low.n_design == 0
    every = _records({k: int(i % 5 != 0) for i, k in enumerate(units)}, UNKNOWN, None)
    low, high = design_bounds(units, every, [])
    assert low.bound == high.bound == 40 / 50


def test_hand_picked_labels_are_known_units_for_the_next_round_only() -> None:
    """REVIEW labels (unknown design) never rectify; they are known exactly to a later round."""
    rng = np.random.default_rng(5)
    truth = {k: int(rng.random() < 0.8) for k in UNITS}
    picked = UNITS[:60]
    records = _records({k: truth[k] for k in picked}, UNKNOWN, None)
    later = [UNITS[i] for i in rng.choice(range(60, 400), 80, replace=False)]
    records |= _records({k: truth[k] for k in later}, UNIFORM, 1)
    low, high = design_bounds(UNITS, records, [_uniform(1, later, frozenset(picked))])
    assert low.n_design == 80 and low.n_known == 140 and low.n_unknown_design == 60
    assert low.bound <= sum(truth.values()) / 400 <= high.bound


def test_draws_awaiting_a_label_count_as_fail_below_and_pass_above() -> None:
    drawn = UNITS[:40]
    labelled = _records({k: 1 for k in drawn[:20]} | {k: 0 for k in drawn[20:35]})
    complete = _records({k: 1 for k in drawn[:20]} | {k: 0 for k in drawn[20:]})
    low, high = design_bounds(UNITS, labelled, [_uniform(1, drawn)])
    low_full, high_full = design_bounds(UNITS, complete, [_uniform(1, drawn)])
    assert low.n_missing == 5 and low.bound <= low_full.bound and high.bound >= high_full.bound


def test_constant_predictions_never_give_nan() -> None:
    drawn = UNITS[:50]
    records = _records({k: int(i % 3 != 0) for i, k in enumerate(drawn)})
    for constant in (0.0, 0.5, 1.0):
        low, high = design_bounds(
            UNITS, records, [_uniform(1, drawn)], predictions=dict.fromkeys(UNITS, constant)
        )
        assert math.isfinite(low.bound) and math.isfinite(high.bound) and low.bound <= high.bound
        assert math.isfinite(low.estimate)


def test_each_fold_is_predicted_from_labels_known_before_it_only() -> None:
    """Sequential cross-fitting: fold j's calibrator learns from the labels known before the round
    and the earlier folds, never from its own draws or later ones."""
    drawn = UNITS[100:160]
    known = frozenset(UNITS[:10])
    records = _records({k: 1 for k in known}, UNKNOWN, None) | _records(
        {k: int(i % 4 != 0) for i, k in enumerate(drawn)}
    )
    seen: list[set[Key]] = []

    def fit_predict(train: dict[Key, int]) -> dict[Key, float]:
        seen.append(set(train))
        rate = sum(train.values()) / len(train)
        return dict.fromkeys(UNITS, rate)

    design_bounds(UNITS, records, [_uniform(1, drawn, known)], fit_predict=fit_predict, folds=3)
    assert len(seen) == 3
    assert seen[0] == set(known)  # the first fold: only what was known before the round
    assert [len(train & set(drawn)) for train in seen] == [0, 20, 40]
    assert all(a < b for a, b in pairwise(seen))


def test_an_active_round_of_another_scope_does_not_rectify() -> None:
    drawn = UNITS[:40]
    rnd = DesignRound(
        1,
        "ok",
        "original",
        ACTIVE,
        "",
        frozenset(),
        {"m": 400},
        tuple(Draw(*k, 1 / 400) for k in drawn),
    )
    records = _records({k: 1 for k in drawn})
    low, _ = design_bounds(UNITS, records, [rnd], scope="all")
    assert low.method == "census" and low.rounds == ()


def test_nothing_in_scope_is_never_a_pass() -> None:
    low, high = design_bounds([], {}, [])
    assert low.bound == 0.0 and high.bound == 1.0


def test_labels_to_decide_shrinks_with_a_better_machine() -> None:
    drawn = UNITS[:40]
    rng = np.random.default_rng(9)
    truth = {k: int(rng.random() < 0.85) for k in UNITS}
    records = _records({k: truth[k] for k in drawn})
    good = {k: 0.9 * truth[k] + 0.05 for k in UNITS}
    bad = dict.fromkeys(UNITS, 0.5)
    needed = {
        name: design_labels_to_decide(
            *design_bounds(UNITS, records, [_uniform(1, drawn)], predictions=p), 0.8
        )
        for name, p in (("good", good), ("bad", bad))
    }
    assert needed["good"] is not None and needed["bad"] is not None
    assert needed["good"] < needed["bad"]


def test_the_estimate_never_leaves_the_census_bounds() -> None:
    """A random round that saw only passes cannot put the estimate above what the hand-picked
    failures already rule out (the demo's terse system once read 0.976 above its upper bound)."""
    units = UNITS[:70]
    drawn = units[:40]
    records = _records({k: 1 for k in drawn}, UNIFORM, 1)
    records |= _records({k: 0 for k in units[60:70]}, UNKNOWN, None)
    low, high = design_bounds(units, records, [_uniform_over(units, 1, drawn)])
    assert low.bound <= low.estimate <= high.bound <= 60 / 70
    assert low.method == "census"  # the sample contradicts what is certain: no PASS beyond it


def _uniform_over(units: list[Key], number: int, drawn: list[Key]) -> DesignRound:
    draws = tuple(Draw(c, m, 1.0 / len(units)) for c, m in drawn)
    return DesignRound(number, "ok", "all", UNIFORM, "", frozenset(), {"m": len(units)}, draws)


def _chained_uniform_rounds(
    rng: np.random.Generator,
    sizes: tuple[int, ...],
    known: frozenset[Key] = frozenset(),
    first: int = 1,
) -> list[DesignRound]:
    """Uniform rounds each drawn from what the rounds before left (as ``assay labels sample``)."""
    rounds = []
    for number, size in enumerate(sizes, start=first):
        pool = [k for k in UNITS if k not in known]
        drawn = [pool[i] for i in rng.choice(len(pool), size, replace=False)]
        rounds.append(_uniform(number, drawn, known))
        known = known | frozenset(drawn)
    return rounds


def test_chained_uniform_rounds_pool_into_one_exact_bound_that_covers() -> None:
    """Three uniform rounds of 8 (a rate near 0: the exact branch decides) are one simple random
    sample of 24: its hypergeometric bound is that of 24 draws, tighter than the largest round's
    alone, and covers exactly (seeded; nominal 95 % per side, here at the look-1 level)."""
    rng = np.random.default_rng(11)
    truth = {k: int(rng.random() < 0.06) for k in UNITS}
    rate = sum(truth.values()) / len(UNITS)
    pooled_width, single_width, covered = [], [], 0
    reps = 400
    for _ in range(reps):
        rounds = _chained_uniform_rounds(rng, (8, 8, 8))
        drawn = [(d.case_id, d.model) for r in rounds for d in r.draws]
        records = _records({k: truth[k] for k in drawn})
        low, high = design_bounds(UNITS, records, rounds)
        assert low.method in ("design-hypergeometric", "census")
        assert high.method == "design-hypergeometric" and high.rounds == (1, 2, 3)
        passes = sum(truth[k] for k in drawn)
        level = look_level(0.95, 1)
        assert high.bound == pytest.approx(
            hypergeometric_bound(passes, 24, len(UNITS), level, "upper") / len(UNITS)
        )
        alone_low, alone_high = design_bounds(UNITS, records, rounds[2:])  # the last round alone
        pooled_width.append(high.bound - low.bound)
        single_width.append(alone_high.bound - alone_low.bound)
        covered += low.bound <= rate <= high.bound
    assert np.mean(pooled_width) < 0.75 * np.mean(single_width)
    assert covered / reps >= 0.93


def test_a_label_of_another_kind_between_uniform_rounds_breaks_the_chain() -> None:
    """REVIEW labels between two uniform rounds: the second round's pool is no longer a random
    remainder of the first's, so the rounds are not pooled (the largest decides alone)."""
    rng = np.random.default_rng(12)
    first = _chained_uniform_rounds(rng, (10,))[0]
    drawn = [(d.case_id, d.model) for d in first.draws]
    picked = [k for k in UNITS if k not in drawn][:30]
    second = _chained_uniform_rounds(rng, (12,), frozenset(drawn) | frozenset(picked), 2)[0]
    labelled = drawn + [(d.case_id, d.model) for d in second.draws]
    records = _records(dict.fromkeys(labelled, 0)) | _records(
        dict.fromkeys(picked, 0), UNKNOWN, None
    )
    _, high = design_bounds(UNITS, records, [first, second])
    pool = len(UNITS) - 40
    assert high.method == "design-hypergeometric"
    assert high.bound == pytest.approx(
        (hypergeometric_bound(0, 12, pool, look_level(0.95, 1), "upper")) / len(UNITS)
    )


def _active_round(
    rng: np.random.Generator, number: int, size: int, known: frozenset[Key], floor: float = 0.5
) -> DesignRound:
    """An ``active`` round of ``size`` draws with replacement: probability ``floor`` / |pool|
    plus the rest in proportion to a random score (what the app's uncertainty would give)."""
    pool = [k for k in UNITS if k not in known]
    score = rng.random(len(pool))
    p = floor / len(pool) + (1.0 - floor) * score / score.sum()
    picked = rng.choice(len(pool), size, p=p)
    times = np.bincount(picked, minlength=len(pool))
    draws = tuple(Draw(*pool[i], float(p[i]), int(times[i])) for i in np.flatnonzero(times))
    return DesignRound(
        number, "ok", "all", ACTIVE, "", known, {"m": len(pool)}, draws, floor=floor
    )


def test_uniform_then_active_rounds_pool_into_one_betting_sequence_that_covers() -> None:
    """A uniform round of 12 then two active rounds of 12 (a rate near 0.06: too few of each label
    for the normal branch): the rounds are one betting sequence over 36 draws — narrower than
    the largest round's exact bound alone, and it covers (seeded; nominal ≥ 0.9696 per side)."""
    rng = np.random.default_rng(21)
    truth = {k: int(rng.random() < 0.06) for k in UNITS}
    rate = sum(truth.values()) / len(UNITS)
    pooled, alone, low_covers, high_covers = [], [], 0, 0
    reps = 300
    for _ in range(reps):
        first = _chained_uniform_rounds(rng, (12,))[0]
        known = frozenset((d.case_id, d.model) for d in first.draws)
        second = _active_round(rng, 2, 12, known)
        known |= {(d.case_id, d.model) for d in second.draws}
        third = _active_round(rng, 3, 12, known)
        rounds = [first, second, third]
        drawn = {(d.case_id, d.model) for r in rounds for d in r.draws}
        records = _records({k: truth[k] for k in drawn})
        low, high = design_bounds(UNITS, records, rounds)
        assert high.method in ("design-betting", "census") and high.rounds == (1, 2, 3)
        first_low, first_high = design_bounds(UNITS, records, rounds[:1])
        pooled.append(high.bound - low.bound)
        alone.append(first_high.bound - first_low.bound)
        low_covers += low.bound <= rate
        high_covers += rate <= high.bound
    assert np.mean(pooled) < 0.85 * np.mean(alone)
    assert low_covers / reps >= 0.95 and high_covers / reps >= 0.95


def test_betting_needs_about_twice_the_draws_of_the_chain() -> None:
    """Why ``POOLING_RATIO`` is 2: on the same uniform draws the pooled betting bound is
    1.2–1.6× as wide as the hypergeometric one (so it needs about twice the draws for the same
    width), and with twice the draws it is about as wide (0.84× at rate 0.5, ~1× near 0; seeded)."""
    from assay.verdict.estimate_exact import POOLING_RATIO, sequential_values
    from assay.verdict.estimate_rounds import SampleRound

    rng = np.random.default_rng(5)
    level = look_level(0.95, 1)
    n_units = len(UNITS)
    for rate in (0.05, 0.5):
        truth = (rng.random(n_units) < rate).astype(int)
        labels = dict(zip(UNITS, truth.tolist(), strict=True))
        widths: dict[str, list[float]] = {"hyper 20": [], "betting 20": [], "betting 40": []}
        for r in range(60):
            for n, name in ((20, "hyper 20"), (20, "betting 20"), (40, "betting 40")):
                idx = rng.choice(n_units, n, replace=False)
                draws = [UNITS[i] for i in idx]
                p = np.full(n, 1.0 / n_units)
                rnd = SampleRound(1, UNIFORM, [], UNITS, draws, p, np.ones(n, bool))
                if name.startswith("hyper"):
                    k = int(truth[idx].sum())
                    low = hypergeometric_bound(k, n, n_units, level, "lower")
                    high = hypergeometric_bound(k, n, n_units, level, "upper")
                    widths[name].append((high - low) / n_units)
                    continue
                low_b = betting_lower_bound(
                    sequential_values(rnd, "lower", n_units, labels, r), level, fixed_n=True
                )
                fail_b = betting_lower_bound(
                    sequential_values(rnd, "upper", n_units, labels, r), level, fixed_n=True
                )
                widths[name].append(1.0 - fail_b - low_b)
        at_equal = np.mean(widths["betting 20"]) / np.mean(widths["hyper 20"])
        at_double = np.mean(widths["betting 40"]) / np.mean(widths["hyper 20"])
        assert 1.15 < at_equal < 1.6, (rate, at_equal)
        assert 0.75 < at_double < 1.15, (rate, at_double)
    assert POOLING_RATIO == 2.0


def test_rounds_combine_with_the_inverse_variance_weights_of_their_scale() -> None:
    """Two rounds of 20 draws with one per-draw spread, the second drawn when half the units are
    known (scale ½): its mean varies a quarter as much, so it weighs 4 / 5 — the weights that
    minimise the combined variance, narrower than weights ∝ draws (½ each)."""
    first = RoundEstimate(0.3, 0.2 / 20, 0.2, 1.0, 20, 0.0, 1, scale=1.0)
    second = RoundEstimate(0.5, 0.25 * 0.2 / 20, 0.05, 1.0, 20, 0.0, 2, scale=0.5)
    combined = combine([first, second])
    assert combined.mean == pytest.approx(0.2 * 0.3 + 0.8 * 0.5)
    weights = np.linspace(0.0, 1.0, 1001)
    variances = weights**2 * first.variance + (1 - weights) ** 2 * second.variance
    assert combined.variance == pytest.approx(variances.min(), rel=1e-6)
    assert combined.variance < 0.25 * first.variance + 0.25 * second.variance


def test_active_rounds_share_one_floor_and_one_skewness() -> None:
    """Session 25 (note 0063): an ``active`` round's per-draw variance is floored at one
    disagreement in all the active draws + 1 (not its own 20 + 1), and its third moment is pooled
    over every active draw; a ``uniform`` round keeps its own floor and skewness."""
    quiet = RoundEstimate(0.5, 0, 0, 1.0, 20, 0.0, 2, squares=0.19, design=ACTIVE, cubes=0.0)
    miss = RoundEstimate(0.4, 0, 0, 1.0, 20, 0.0, 3, squares=3.8, design=ACTIVE, cubes=4.0)
    first = RoundEstimate(0.45, 0, 0, 1.0, 20, 0.01, 1, squares=0.19, design=UNIFORM, cubes=4.0)
    out = {e.number: e for e in pool_folds([first, quiet, miss])}
    assert out[1].per_draw == pytest.approx(1 / 21)  # uniform: its own floor
    assert out[1].third == first.third
    assert out[2].per_draw == pytest.approx(max(0.19 / 19, 1 / 41))  # below 1 / 21
    assert out[3].per_draw == pytest.approx(3.8 / 19)
    k3 = 4.0 / 40  # the one heavy draw's cube, shared by both active rounds
    assert out[2].third == pytest.approx(k3 / 20**2)
    assert out[3].third == pytest.approx(k3 / 20**2)


def test_a_successive_active_round_is_read_in_draw_order_by_des_raj() -> None:
    """An ``active`` round drawn successively without replacement (the shipped default): the
    shipped estimate, averaged over many draws, is the true rate — with a miscalibrated machine
    and a fixed λ, so only the right chances of each draw remove the bias — and the same draws
    read as Hansen–Hurwitz (the recorded weights as if drawn with replacement) are biased."""
    from dataclasses import replace

    from assay.label.sample import draw_round
    from assay.verdict.design import WITH_REPLACEMENT

    rng = np.random.default_rng(3)
    units = UNITS[:80]
    truth = rng.random(len(units))
    y = dict(zip(units, (rng.random(len(units)) < truth).astype(int).tolist(), strict=True))
    f = dict(zip(units, np.clip(truth + 0.2, 0, 1).tolist(), strict=True))
    theta = float(np.mean(list(y.values())))
    read: dict[str, list[float]] = {"successive": [], WITH_REPLACEMENT: []}
    for seed in range(600):
        rnd = draw_round(units, f, 48, ACTIVE, seed=seed)
        records = _records({(d.case_id, d.model): y[(d.case_id, d.model)] for d in rnd.draws})
        for rounds in ([rnd], [replace(rnd, sampling=WITH_REPLACEMENT)]):
            low, _ = design_bounds(units, records, rounds, predictions=f, lam=0.5)
            read[rounds[0].sampling].append(low.estimate)
    for sampling, estimates in read.items():
        off = abs(float(np.mean(estimates)) - theta) / (np.std(estimates) / math.sqrt(600))
        assert bool(off > 5) is (sampling == WITH_REPLACEMENT), (sampling, off)


def test_a_successive_round_folds_in_draw_order_with_earlier_folds_known() -> None:
    """Cross-fitting folds of a successive round are runs of its draw order: fold j's units are
    drawn after every earlier fold's, which join its known units and leave its pool, and each
    draw keeps its chance given all draws before it (Des Raj)."""
    from assay.label.sample import draw_round
    from assay.verdict.estimate_folds import sequential_folds
    from assay.verdict.estimate_rounds import usable_rounds

    units = UNITS[:60]
    f = {k: 0.1 + 0.8 * (i % 7) / 6 for i, k in enumerate(units)}
    rnd = draw_round(units, f, 12, ACTIVE, seed=5)
    (sample,), _ = usable_rounds(units, [rnd], "all")
    assert sample.ordered and sample.draws == [(d.case_id, d.model) for d in rnd.draws]
    q = np.array([d.probability for d in rnd.draws])
    gone = np.concatenate([[0.0], np.cumsum(q)[:-1]])
    assert sample.probability == pytest.approx(q / (1 - gone))
    folds = sequential_folds(sample, 4, seed=0)
    assert [d for fold in folds for d in fold.draws] == sample.draws  # runs, in order
    for j, fold in enumerate(folds):
        earlier = [d for before in folds[:j] for d in before.draws]
        assert fold.known == earlier and list(fold.earlier) == earlier
        assert set(fold.pool) == set(units) - set(earlier) and fold.ordered
