"""The labeller and the references of benchmarks/bench_label_designs.py on a small synthetic
population (fast; the measurement itself is the benchmark)."""

from __future__ import annotations

import doctest
import functools
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import numpy as np
import pandas as pd
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def modules() -> dict[str, ModuleType]:
    if str(BENCH) not in sys.path:  # the benchmark's sibling modules, as when run as a script
        sys.path.insert(0, str(BENCH))
    import label_designs_data
    import label_designs_reference
    import label_designs_sim

    return {"data": label_designs_data, "ref": label_designs_reference, "sim": label_designs_sim}


def _population(data: ModuleType, per_system: int = 150) -> object:
    rng = np.random.default_rng(0)
    systems = np.repeat(["a", "b", "c"], per_system)
    rate = {"a": 0.3, "b": 0.6, "c": 0.9}
    label = (rng.random(len(systems)) < np.vectorize(rate.get)(systems)).astype(int)
    return data.Population(
        name="synthetic",
        case_id=np.array([f"q{i % per_system}" for i in range(len(systems))]),
        system=systems,
        label=label,
        score=label + rng.normal(0, 0.6, len(systems)),
    )


def test_reference_doctests(modules: dict[str, ModuleType]) -> None:
    assert doctest.testmod(modules["ref"]).failed == 0


def test_exact_widths_shrink_to_the_census(modules: dict[str, ModuleType]) -> None:
    curve = modules["ref"].exact_width_curve(120, 30, 0.95, points=12)
    assert np.all(np.diff(curve["clopper_pearson"]) < 0)
    assert curve["hypergeometric"][-1] == 0.0  # every unit labelled: the rate is known
    assert np.all(curve["hypergeometric"] <= curve["clopper_pearson"] + 1e-12)


def test_labels_for_width_says_when_beyond_the_grid(modules: dict[str, ModuleType]) -> None:
    n, width = np.array([10, 20, 40]), np.array([0.4, 0.3, 0.2])
    for_width = modules["ref"].labels_for_width
    assert for_width(n, width, 0.1) == (40.0, ">")
    assert for_width(n, width, 0.5) == (10.0, "<")
    count, how = for_width(n, width, 0.3)
    assert how == "=" and count == pytest.approx(20.0)


def test_uniform_rounds_label_distinct_units_evenly(modules: dict[str, ModuleType]) -> None:
    pop = _population(modules["data"])
    rows, decisions = modules["sim"].sequential(pop, "uniform", seed=1)
    assert decisions == []
    # assessed where the active workflow is, and on to 1,200 labels: the curve active is read on
    assert {r["n_all"] for r in rows} == {100, 200, 400, 800, 1000, 1200}
    for r in rows:  # (lower ≤ upper is the estimator's to keep: the benchmark counts inversions)
        assert 0.0 <= r["lower"] <= 1.0 and 0.0 <= r["upper"] <= 1.0
        assert r["cp_lower"] <= r["cp_upper"]
    for n_all in (100, 200, 400, 800, 1200):
        counts = [r["n_system"] for r in rows if r["n_all"] == n_all]
        assert sum(counts) == min(n_all, 450)  # without replacement: at most every unit
        assert max(counts) - min(counts) <= n_all // 100  # one remainder label per round at most


def test_label_until_decided_stops_at_the_first_decided_look(
    modules: dict[str, ModuleType],
) -> None:
    sim = modules["sim"]
    pop = _population(modules["data"], per_system=40)
    truth = pop.truth("a")

    def look(low: float, high: float) -> dict[str, tuple[SimpleNamespace, SimpleNamespace]]:
        return {s: (SimpleNamespace(bound=low), SimpleNamespace(bound=high)) for s in pop.systems}

    looks = [look(0.0, 1.0), look(truth - 0.03, truth + 0.03), look(truth, truth)]
    labelled = [{s: 10 * k for s in pop.systems} for k in (1, 2, 3)]
    out = {(d["system"], d["delta"]): d for d in sim._decisions(pop, looks, labelled)}
    # ±0.05 decided at look 2 (the right way); ±0.02 only at look 3, where the bound is the truth
    assert out[("a", 0.05)]["decision"] == "FAIL" and out[("a", 0.05)]["look"] == 2
    assert out[("a", -0.05)]["decision"] == "PASS" and out[("a", -0.05)]["labels"] == 20
    assert out[("a", 0.02)]["decision"] == "FAIL" and out[("a", 0.02)]["look"] == 3


def test_review_units_are_unlabelled_and_ambiguous(modules: dict[str, ModuleType]) -> None:
    sim = modules["sim"]
    pop = _population(modules["data"])
    lab = sim.Labelling(pop, np.random.default_rng(2))
    lab.draw("uniform", 30, None)
    review = sim._review_units(lab, np.random.default_rng(3))
    assert review and not review & set(lab.records)
    lab.hand_label(sorted(review)[:5])
    assert sum(r.design == "unknown" for r in lab.records.values()) == 5


def test_the_fast_isotonic_map_is_the_shipped_calibrators(modules: dict[str, ModuleType]) -> None:
    """The benchmark's machine computes the shipped IsotonicCalibrator's P(PASS) directly."""
    from assay.calibrate import IsotonicCalibrator

    sim = modules["sim"]
    assert doctest.testmod(sim).failed == 0
    rng = np.random.default_rng(3)
    at = np.round(rng.normal(0, 1, 2000), 2)  # ties, as real metric scores have
    for size in (5, 40, 300, 1500):
        rows = rng.choice(len(at), size, replace=False)
        y = (rng.random(size) < 1 / (1 + np.exp(-2 * at[rows]))).astype(int)
        y[:2] = [0, 1]
        shipped = IsotonicCalibrator().fit(at[rows], (y == 1).tolist()).predict_pass_proba(at)
        np.testing.assert_allclose(sim.isotonic_pass_proba(at[rows], y, at), shipped, atol=1e-12)


def test_active_ceiling_is_one_for_a_blind_machine_and_above_for_a_sharp_one(
    modules: dict[str, ModuleType],
) -> None:
    import bench_label_designs

    data = modules["data"]
    rng = np.random.default_rng(3)
    label = (rng.random(600) < 0.5).astype(int)

    def population(score: np.ndarray) -> object:
        return data.Population(
            name="synthetic", case_id=np.array([f"q{i}" for i in range(600)]),
            system=np.repeat("a", 600), label=label, score=score,
        )  # fmt: skip

    blind = bench_label_designs.active_ceiling(population(rng.random(600)), "a", 8)
    sharp = bench_label_designs.active_ceiling(population(label + rng.normal(0, 0.4, 600)), "a", 8)
    one_round = bench_label_designs.active_ceiling(
        population(label + rng.normal(0, 0.4, 600)), "a", 1
    )
    assert blind == pytest.approx(1.0, abs=0.03)  # nothing to aim at: no design saves labels
    assert sharp > 1.3  # uncertainty concentrated on few units
    assert one_round == pytest.approx(1.0)  # the first round is uniform


def test_active_ceiling_with_a_given_saving_and_no_first_round(
    modules: dict[str, ModuleType],
) -> None:
    import bench_label_designs

    data = modules["data"]
    pop = data.Population(
        name="synthetic", case_id=np.array([f"q{i}" for i in range(600)]),
        system=np.repeat("a", 600), label=np.zeros(600, int), score=np.zeros(600),
    )  # fmt: skip
    ceiling = functools.partial(bench_label_designs.active_ceiling, pop, "a", 8)
    # every round active: the ceiling is the per-draw saving itself (the scales cancel)
    assert ceiling(1.4, 0) == pytest.approx(1.4)
    # a uniform first round dilutes it, less so the more rounds follow
    assert 1.0 < ceiling(1.4) < bench_label_designs.active_ceiling(pop, "a", 16, 1.4) < 1.4
    assert ceiling(1.0) == pytest.approx(1.0)  # nothing saved per draw, nothing saved


def test_judge_pass_proba_is_the_binormal_posterior(modules: dict[str, ModuleType]) -> None:
    data = modules["data"]
    rng = np.random.default_rng(5)
    label = (rng.random(200_000) < 0.3).astype(int)
    score = data.with_judge(pd.DataFrame({"label": label}), seed=1)["score"].to_numpy()
    p = data.judge_pass_proba(label, score)
    # calibrated: among units predicted near 0.8, about 80 % pass
    near = (p > 0.75) & (p < 0.85)
    assert label[near].mean() == pytest.approx(p[near].mean(), abs=0.01)
    assert np.all(np.diff(p[np.argsort(score)]) >= 0)  # monotone in the score


def test_limits_lower_bounds_cover_and_betting_is_wider(modules: dict[str, ModuleType]) -> None:
    import label_designs_limits as limits

    assert doctest.testmod(limits).failed == 0
    rng = np.random.default_rng(6)
    y = (rng.random(400) < 0.35).astype(float)
    p = modules["data"].judge_pass_proba(y, y + rng.normal(0, 0.5, 400))
    theta = y.mean()
    normal = limits.lower_bounds(y, p, 80, 0.5, None, 200, rng)
    betting = limits.lower_bounds(y, p, 80, 0.5, 0.99, 200, rng)
    assert np.mean(normal <= theta) >= 0.9
    assert np.mean(betting <= theta) >= 0.95  # valid at any sample size
    assert np.mean(theta - betting) > np.mean(theta - normal)  # and pays for it in width


def test_pool_saving_is_active_saving_in_expectation(modules: dict[str, ModuleType]) -> None:
    import label_designs_limits as limits
    from assay.label.sample import active_saving

    rng = np.random.default_rng(7)
    p = rng.beta(0.5, 0.5, 400_000)  # many confident units, some doubtful
    label = (rng.random(len(p)) < p).astype(float)
    for floor in (0.25, 0.5):
        expected = active_saving(p.tolist(), floor)
        assert expected > 1.1
        assert limits.pool_saving(label, p, floor) == pytest.approx(expected, rel=0.02)
