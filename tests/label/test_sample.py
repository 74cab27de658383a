"""Drawing a labelling round by design: the selection probabilities are the ones recorded."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from assay.errors import InvalidInputError
from assay.label.sample import active_probabilities, draw_round, split_budget


def _units(n: int, systems: tuple[str, ...] = ("a", "b")) -> list[tuple[str, str]]:
    return [(f"c{i:03d}", s) for i in range(n) for s in systems]


def _predictions(units: list[tuple[str, str]], seed: int = 0) -> dict[tuple[str, str], float]:
    rng = np.random.default_rng(seed)
    return {key: float(p) for key, p in zip(units, rng.beta(4, 1, len(units)), strict=True)}


def test_active_probabilities_sum_to_one_hold_the_floor_and_follow_uncertainty() -> None:
    rng = np.random.default_rng(3)
    p = list(rng.beta(5, 1, 500)) + [None] * 20 + [0.0, 1.0]
    for floor in (0.05, 0.2, 0.5, 1.0):
        q = active_probabilities(p, floor)
        n = len(p)
        assert q.sum() == pytest.approx(1.0, abs=1e-12)
        assert q.min() >= floor / n * (1 - 1e-12)
        assert q[500:520] == pytest.approx(np.full(20, 1 / n))  # no prediction: uniform
        assert q[520] == pytest.approx(floor / n)  # certain: only the floor
    q = active_probabilities(p, 0.2)
    assert q[int(np.argmin(np.abs(np.array(p[:500]) - 0.5)))] == q[:500].max()
    assert active_probabilities([1.0, 0.0, 1.0], 0.2) == pytest.approx([1 / 3] * 3)
    assert active_probabilities([1.0], 1.0) == pytest.approx([1.0])  # floor 1: uniform


def test_uniform_rounds_sample_the_pool_without_replacement_at_one_over_its_size() -> None:
    units = _units(50)
    known = {("c000", "a"), ("c001", "a"), ("c002", "b")}
    r = draw_round(units, None, 20, "uniform", seed=4, known=known, criterion="ok", number=3)
    assert r.pool_sizes == {"a": 48, "b": 49}
    assert (r.number, r.criterion, r.design, r.known) == (3, "ok", "uniform", frozenset(known))
    for system, size in r.pool_sizes.items():
        draws = [d for d in r.draws if d.model == system]
        assert len(draws) == len({d.case_id for d in draws}) == 20
        assert {d.probability for d in draws} == {1 / size}
        assert all(d.times == 1 for d in draws)
        assert not {(d.case_id, d.model) for d in draws} & known
    census = draw_round(units, None, 500, "uniform", seed=4, known=known)
    assert len(census.draws) == 48 + 49  # capped at the pool


def test_uniform_rounds_include_every_unit_equally_often() -> None:
    units = _units(10, ("a",))
    counts: Counter[str] = Counter()
    for seed in range(2000):
        counts.update(d.case_id for d in draw_round(units, None, 3, "uniform", seed=seed).draws)
    shares = np.array([counts[c] for c, _ in units]) / 2000
    assert shares == pytest.approx(np.full(10, 0.3), abs=0.04)


def test_active_draws_follow_the_recorded_probabilities() -> None:
    units = _units(40, ("a",))
    p = _predictions(units)
    p[("c005", "a")] = None  # type: ignore[assignment]
    r = draw_round(units, p, 4000, "active", seed=7, floor=0.2, sampling="with-replacement")
    assert r.sampling == "with-replacement"
    assert sum(d.times for d in r.draws) == 4000
    probabilities = active_probabilities([p[k] for k in units], 0.2)
    q = dict(zip([c for c, _ in units], probabilities, strict=True))
    for d in r.draws:
        assert d.probability == pytest.approx(q[d.case_id])
        assert d.times / 4000 == pytest.approx(q[d.case_id], abs=4 * np.sqrt(q[d.case_id] / 4000))
    assert q["c005"] == pytest.approx(1 / 40)
    assert min(q.values()) >= 0.2 / 40


def test_successive_active_draws_pick_each_next_unit_by_its_weight_among_those_left() -> None:
    """Successive sampling: the first draw is unit i with probability q_i, the second, given the
    first was j, with q_i / (1 − q_j); never a unit twice, at most the pool; the draws recorded
    in the order drawn, each with its weight over the whole pool."""
    units = _units(5, ("a",))
    p = dict(zip(units, [0.5, 0.5, 0.9, 0.99, None], strict=True))
    q = active_probabilities([p[k] for k in units], 0.2)
    weight = dict(zip([c for c, _ in units], q, strict=True))
    firsts: Counter[str] = Counter()
    seconds: Counter[str] = Counter()
    reps = 4000
    for seed in range(reps):
        r = draw_round(units, p, 3, "active", seed=seed, floor=0.2)
        assert r.sampling == "successive" and [d.times for d in r.draws] == [1, 1, 1]
        assert len({d.case_id for d in r.draws}) == 3
        assert all(d.probability == pytest.approx(weight[d.case_id]) for d in r.draws)
        firsts[r.draws[0].case_id] += 1
        if r.draws[0].case_id == "c000":
            seconds[r.draws[1].case_id] += 1
    for case_id, w in weight.items():
        assert firsts[case_id] / reps == pytest.approx(w, abs=4 * np.sqrt(w / reps))
    after = sum(seconds.values())
    for case_id, w in weight.items():
        if case_id != "c000":
            expected = w / (1 - weight["c000"])
            assert seconds[case_id] / after == pytest.approx(expected, abs=0.05)
    assert len(draw_round(units, p, 9, "active", seed=1).draws) == 5  # the whole pool, once each
    assert split_budget(12, {"a": 5, "b": 100}, "active") == {"a": 5, "b": 7}


def test_rounds_are_reproducible_by_seed_and_independent_of_unit_order() -> None:
    units = _units(60, ("a", "b", "c"))
    p = _predictions(units, 2)
    for design in ("uniform", "active"):
        first = draw_round(units, p, 10, design, seed=11)
        assert first == draw_round(list(reversed(units)), p, 10, design, seed=11)
        assert first == draw_round(units, p, 10, design, rng=np.random.default_rng(11))
        assert first != draw_round(units, p, 10, design, seed=12)


def test_budgets_per_system_and_split_of_a_total() -> None:
    units = _units(30, ("a", "b"))
    r = draw_round(units, None, {"a": 5, "b": 0}, "uniform", seed=0)
    assert Counter(d.model for d in r.draws) == {"a": 5}
    assert split_budget(7, {"x": 10, "y": 10}, "uniform") == {"x": 4, "y": 3}
    assert split_budget(30, {"x": 3, "y": 100, "z": 0}, "uniform") == {"x": 3, "y": 27, "z": 0}
    assert split_budget(30, {"x": 3, "y": 100}, "active") == {"x": 3, "y": 27}  # successive
    replaced = split_budget(30, {"x": 3, "y": 100}, "active", "with-replacement")
    assert replaced == {"x": 15, "y": 15}
    assert split_budget(500, {"x": 3, "y": 4}, "uniform") == {"x": 3, "y": 4}


def test_bad_parameters_are_refused_with_the_standard_message() -> None:
    units = _units(3)
    with pytest.raises(InvalidInputError, match="'design' parameter of draw_round"):
        draw_round(units, None, 1, "review")
    with pytest.raises(InvalidInputError, match="'floor' parameter of draw_round"):
        draw_round(units, None, 1, "active", floor=0.0)
    with pytest.raises(InvalidInputError, match="'budget' parameter of draw_round"):
        draw_round(units, None, -1, "uniform")
    with pytest.raises(InvalidInputError, match="'p_pass' parameter"):
        draw_round(units, {("c000", "a"): 1.5}, 1, "active")


def _des_raj_terms(draws: list[tuple[float, float]], lam: float, ordered: bool) -> list[float]:
    """Per draw of one system's round (residual ``y − λ f``, recorded probability ``q``), the
    expansion term: ``r_t / q_t`` (Hansen–Hurwitz, or SRS) or, drawn successively, Des Raj's
    ``Σ_{s<t} r_s + r_t q'_t`` with ``q'_t = q_t / (1 − Σ_{s<t} q_s)``."""
    if not ordered:
        return [r / q for r, q in draws]
    terms, before, gone = [], 0.0, 0.0
    for r, q in draws:
        terms.append(before + r * (1.0 - gone) / q)
        before, gone = before + r, gone + q
    return terms


def test_the_recorded_probabilities_make_the_design_estimator_unbiased() -> None:
    """Design note 0063's per-draw estimator X_t = (Σ_known Y + λ Σ_pool f + (Y_t − λ f_t) / p_t)
    / N, averaged over many rounds drawn here, recovers the true pass rate for every design
    (Hansen–Hurwitz for ``active`` with replacement, Des Raj for ``active`` drawn successively,
    SRS expansion for ``uniform``) — with a prediction f that is biased (shifted) so that only
    correct probabilities can remove the bias. Reading successive draws as Hansen–Hurwitz is
    biased, and this test sees it."""
    rng = np.random.default_rng(0)
    n = 120
    units = [(f"c{i}", "m") for i in range(n)]
    truth = rng.random(n)
    y = (rng.random(n) < truth).astype(float)
    f = np.clip(truth + 0.15, 0, 1)  # a miscalibrated prediction
    known = set(units[:30])
    index = {key: i for i, key in enumerate(units)}
    pool = [k for k in units if k not in known]
    theta = float(y.mean())
    lam = 0.8
    base = y[:30].sum() + lam * sum(f[index[k]] for k in pool)
    for design, sampling, ordered in (
        ("uniform", "successive", False),
        ("active", "with-replacement", False),
        ("active", "successive", True),
        ("active", "successive", False),  # successive draws misread as Hansen–Hurwitz
    ):
        estimates = []
        for seed in range(1500):
            r = draw_round(
                units, dict(zip(units, f, strict=True)), 40, design, seed=seed, known=known,
                sampling=sampling,
            )  # fmt: skip
            residuals = [
                (
                    y[index[(d.case_id, d.model)]] - lam * f[index[(d.case_id, d.model)]],
                    d.probability,
                )
                for d in r.draws
                for _ in range(d.times)
            ]
            estimates.append((base + np.mean(_des_raj_terms(residuals, lam, ordered))) / n)
        se = float(np.std(estimates)) / np.sqrt(len(estimates))
        biased = design == "active" and sampling == "successive" and not ordered
        off = abs(float(np.mean(estimates)) - theta) / se
        assert bool(off > 6) is biased, (design, sampling, ordered, off)


def test_the_default_floor_keeps_every_weight_within_twice_uniform() -> None:
    """The verdict's normal bound trusts active rounds drawn with floor ≥ 0.5; the default and the
    CLI's default (not imported there, to keep --help light) are that."""
    from assay.cli.labels import sample
    from assay.label.sample import DEFAULT_FLOOR
    from assay.verdict.estimate import MIN_NORMAL_FLOOR

    assert DEFAULT_FLOOR == MIN_NORMAL_FLOOR == 0.5
    assert next(p.default for p in sample.params if p.name == "floor") == DEFAULT_FLOOR
    units = _units(300, ("a",))
    r = draw_round(units, _predictions(units), 200, "active", seed=4)
    assert r.floor == 0.5
    assert min(d.probability for d in r.draws) >= 0.5 / 300 * (1 - 1e-12)
