"""What any active labelling design could save on the simulated judge, and what betting costs.

Design note 0063, session-35 amendment: the last goal of issue 45 left unmet is "active labelling
reaches uniform PPI's width with ≥ 1.3× fewer labels" (SummEdits with the simulated judge of AUROC
0.94; shipped 1.28×). On that population every unit's true P(PASS | score) is known in closed
form (:func:`label_designs_data.judge_pass_proba`), so two questions have answers free of any
fitted calibrator:

1. **Ceiling.** The most active labelling could save against uniform PPI, each unit's true
   P(PASS) known, at 400 and 800 labels in all, for floors from 0 (pure Neyman allocation,
   ``q ∝ sqrt(p (1 − p))``, Zrnic & Candès, *Active Statistical Inference*, ICML 2024) to the
   shipped ½, with the shipped uniform first round and with none
   (:func:`bench_label_designs.active_ceiling`, the bench's oracle column with the true P in
   place of the isotonic fit on every label).
2. **Betting instead of the normal bound.** Lower floors lose coverage under the normal
   approximation (sessions 26, 29, 33); a betting bound needs no floor for validity (Waudby-Smith
   & Ramdas, *Estimating means of bounded random variables by betting*, JRSS-B 2024, on the
   importance-weighted prediction-powered pseudo-outcomes, as in Waudby-Smith, Wu, Ramdas,
   Karampatziakis & Mineiro, *Anytime-valid off-policy inference for contextual bandits*, 2022).
   Monte Carlo on each system: a first round of 20 uniform draws, the rest active at the floor,
   drawn with replacement, prediction the true P (λ = 1), pseudo-outcome
   ``mean(P) + (Y_t − P_t) / (N q_t)``; the one-sided 95 % lower bound by the normal
   approximation and by :func:`assay.verdict.bounds.betting_lower_bound` (values shifted by their
   known least value; bets capped at ½ / m as WSR's eq. 26 and at 0.99 / m, the most a valid bet
   may take). Reported: the slack θ − L (mean), coverage, and the labels the uniform normal bound
   needs for the same slack, over the labels used.

Writes ``benchmarks/results/label_designs_limits.md``.

Run: ``python benchmarks/label_designs_limits.py`` (300 repetitions per cell, ~3 min;
``--reps N``, ``--seed S``).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import norm

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from assay.label.sample import DEFAULT_FLOOR, active_probabilities, active_saving  # noqa: E402
from assay.verdict.bounds import betting_lower_bound  # noqa: E402
from bench_label_designs import _commit, active_ceiling  # noqa: E402
from label_designs_data import JUDGE_AUROC, Population, judge_pass_proba, populations  # noqa: E402
from label_designs_reference import labels_for_width  # noqa: E402
from label_designs_sim import ROUND  # noqa: E402
from results_file import publish  # noqa: E402

OUT = HERE / "results" / "label_designs_limits.md"
CONFIDENCE = 0.95
#: Floors of the ceiling table (the first: pure Neyman allocation, the shipped rule's floor must
#: be positive), and the labels in all (rounds of :data:`ROUND`) it is read at.
FLOORS = (1e-9, 0.25, 1 / 3, 0.4, 0.5)
ROUNDS = (4, 8)
#: The Monte Carlo's floors, and its bounds: None the normal approximation, else betting with
#: bets capped at that share of 1 / m; the first round's uniform draws per system.
MC_FLOORS = (0.5, 0.25)
CAPS = (None, 0.5, 0.99)
FIRST = 20
#: Draws per system the uniform normal bound's slack curve is measured at.
CURVE = (30, 40, 60, 80, 100, 130, 160, 200, 260, 320, 400)


def lower_bounds(
    y: np.ndarray,
    p_pass: np.ndarray,
    draws: int,
    floor: float | None,
    cap: float | None,
    reps: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """``reps`` one-sided lower bounds on the system's pass rate from ``draws`` labels: all
    uniform when ``floor`` is None, else :data:`FIRST` uniform and the rest active at ``floor``;
    by the normal approximation when ``cap`` is None, else by betting (:data:`CAPS`)."""
    n_units = len(y)
    first = draws if floor is None else FIRST
    q = np.full(n_units, 1.0 / n_units) if floor is None else active_probabilities(p_pass, floor)
    base = float(p_pass.mean())
    least = min(base - float(np.max(p_pass / (n_units * q))), base - 1.0)
    z = norm.ppf(CONFIDENCE)
    out = np.empty(reps)
    for rep in range(reps):
        rows = np.concatenate(
            [rng.integers(0, n_units, first), rng.choice(n_units, draws - first, p=q)]
        )
        chance = np.concatenate([np.full(first, 1.0 / n_units), q[rows[first:]]])
        x = base + (y[rows] - p_pass[rows]) / (n_units * chance)
        if cap is None:  # the normal bound
            out[rep] = x.mean() - z * x.std(ddof=1) / np.sqrt(draws)
        else:
            shifted = betting_lower_bound(
                x - least, CONFIDENCE, grid=4001, top=1.0 - least, fixed_n=True, cap=cap
            )
            out[rep] = least + shifted
    return out


def pool_saving(label: np.ndarray, p_pass: np.ndarray, floor: float) -> float:
    """The per-draw variance ratio, uniform over active, of this pool's own residuals
    ``e = Y − P`` drawn with replacement: ``(mean e² − mean(e)²) / (Σ e² / (N² q) − mean(e)²)``
    (:func:`assay.label.sample.active_saving` is the same ratio in expectation over the labels,
    ``E e² = P (1 − P)``).

    Example:
        >>> round(pool_saving(np.array([1, 0, 1, 1]), np.array([0.9, 0.1, 0.5, 0.5]), 0.5), 3)
        1.243
    """
    q = active_probabilities(p_pass, floor)
    e = label - p_pass
    n_units = len(e)
    uniform = float(np.mean(e**2) - np.mean(e) ** 2)
    active = float(np.sum(e**2 / (n_units**2 * q)) - np.mean(e) ** 2)
    return uniform / active


def ceiling_rows(pop: Population) -> list[str]:
    """The ceiling table's rows: per system, first round and reading (in expectation over the
    labels, or this pool's), the savings at each floor and 400 / 800 labels; then the medians
    over systems."""
    table: dict[tuple[str, str], list[list[float]]] = {}
    for system in pop.systems:
        mask = pop.system == system
        label = pop.label[mask].astype(float)
        truth = judge_pass_proba(pop.label[mask], pop.score[mask])
        for reading in ("expected", "this pool"):
            for pilot, first in ((None, "uniform"), (0, "none")):
                table.setdefault((first, reading), []).append([
                    active_ceiling(pop, system, r, saving, pilot)
                    for floor in FLOORS
                    for saving in [
                        active_saving(truth.tolist(), floor)
                        if reading == "expected"
                        else pool_saving(label, truth, floor)
                    ]
                    for r in ROUNDS
                ])  # fmt: skip
    rows = []
    for (first, reading), values in table.items():
        for system, cells in zip(pop.systems, values, strict=True):
            rows.append(f"| {system} | {first} | {reading} | " + _cells(cells))
    for (first, reading), values in table.items():
        medians = np.median(np.array(values), axis=0).tolist()
        rows.append(f"| **median** | {first} | {reading} | " + _cells(medians, bold=True))
    return rows


def _cells(values: list[float], bold: bool = False) -> str:
    """Table cells of savings (``1.234×``), bold or not, ending the row."""
    mark = "**" if bold else ""
    return " | ".join(f"{mark}{v:.3f}×{mark}" for v in values) + " |"


def monte_carlo_rows(pop: Population, reps: int, seed: int) -> list[str]:
    """The betting table's rows: per system, draws and floor, each bound's mean slack and
    coverage, the labels betting needs for the normal bound's slack and the normal bound's saving
    against uniform draws."""
    rows = []
    per_round = ROUND // len(pop.systems)
    for index, system in enumerate(pop.systems):
        rng = np.random.default_rng([seed, index])
        mask = pop.system == system
        y, truth = pop.label[mask].astype(float), judge_pass_proba(pop.label[mask], pop.score[mask])
        theta = float(y.mean())
        curve = np.array(
            [np.mean(theta - lower_bounds(y, truth, n, None, None, reps, rng)) for n in CURVE]
        )
        for rounds in ROUNDS:
            draws = per_round * rounds
            for floor in MC_FLOORS:
                slack, cells = {}, []
                for cap in CAPS:
                    low = lower_bounds(y, truth, draws, floor, cap, reps, rng)
                    slack[cap] = float(np.mean(theta - low))
                    cells.append(f"{slack[cap]:.4f}, {np.mean(low <= theta):.3f}")
                need, how = labels_for_width(np.array(CURVE), curve, slack[None])
                rows.append(
                    f"| {system} | {draws} | {floor:g} | " + " | ".join(cells) + " | "
                    f"{(slack[0.99] / slack[None]) ** 2:.2f}× | "
                    f"{'' if how == '=' else how}{need / draws:.2f}× |"
                )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    pops, skipped = populations(["summedits-judge"])
    if not pops:
        print("\n".join(skipped), file=sys.stderr)
        return 1
    pop = pops[0]
    started = time.perf_counter()
    print(f"ceilings of {pop.name} …", file=sys.stderr)
    ceiling = ceiling_rows(pop)
    print(f"betting and normal bounds, {args.reps} repetitions per cell …", file=sys.stderr)
    carlo = monte_carlo_rows(pop, args.reps, args.seed)
    minutes = (time.perf_counter() - started) / 60
    floors = " | ".join(f"floor {f:.2g}: 400 | 800" if f > 0.01 else "floor → 0: 400 | 800"
                        for f in FLOORS)
    lines = [
        "# Labelling designs: the most active labelling could save, and what betting costs",
        "",
        f"Generated by `python benchmarks/label_designs_limits.py --reps {args.reps} --seed "
        f"{args.seed}` at commit `{_commit()}` ({platform.machine()}, Python "
        f"{platform.python_version()}, {minutes:.1f} min). Population: {pop.name} (each domain "
        f"a system; the judge's true P(PASS | score) known in closed form, AUROC {JUDGE_AUROC}). "
        "Method and references: the script's docstring; design note 0063 (session-35 "
        "amendment).",
        "",
        "## Ceiling (active against uniform PPI, each unit's true pass probability known)",
        "",
        "Labels saved at equal width at 400 and 800 labels in all (80 and 160 per system; the "
        f"shipped floor is {DEFAULT_FLOOR:g}). First round: `uniform` as shipped (the calibrator "
        "is fitted on it), `none` every round active (no workflow can: a bound for reference). "
        "Reading: `expected` over the labels given the scores (each residual's variance "
        "P (1 − P)); `this pool` from the pool's own labels (`pool_saving`).",
        "",
        f"| system | first round | reading | {floors} |",
        "|---|---|---|" + "---|" * (2 * len(FLOORS)),
        *ceiling,
        "",
        "## Betting (instead of the normal bound)",
        "",
        f"One-sided {CONFIDENCE:.0%} lower bound, {args.reps} repetitions per cell, each cell: "
        "mean slack θ − L, share of draws covering. Betting needs: the labels the betting bound "
        "(cap 0.99 / m) needs for the normal bound's slack on the same design, taking slack ∝ "
        "1 / √labels. Normal vs uniform: the labels the normal bound on uniform draws needs for "
        "the same mean slack, over the labels used (`<` / `>`: beyond the measured curve, 30–400 "
        "draws) — read from the mean slack, whose sample standard deviation runs low on skewed "
        "active draws, so it flatters the active design against the variance-based ceiling "
        "above.",
        "",
        "| system | labels | floor | normal | betting, cap 0.5 / m | betting, cap 0.99 / m | "
        "betting needs | normal vs uniform |",
        "|---|---|---|---|---|---|---|---|",
        *carlo,
    ]
    publish(args.out, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
