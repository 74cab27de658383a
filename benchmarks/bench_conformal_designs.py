"""Per-case conformal sets under the labelling designs (issue 45, item 3): do they cover?

Every system of FRANK and SummEdits is a finite population whose units carry a human label and a
machine score (``label_designs_data.py``). One repetition labels it as a user of the app would —
a first ``uniform`` round of 100 labels, then ``active`` rounds of 100 (the shipped
:func:`~assay.label.sample.draw_round`, P(PASS) from the calibrator on the labels so far) — then
sets each unlabelled unit's conformal set as the verdict does: the shipped isotonic calibrator's
map fit on half the design labels (by unit, seeded), the conformal quantile from the other half,
weighted for ``active`` draws by the shipped :func:`~assay.verdict.calibration.design_weight`
(weighted split-conformal, Tibshirani, Barber, Candès & Ramdas, NeurIPS 2019) with the shipped
:func:`~assay.verdict.calibration.weighted_conformal_quantile`. Reported: the share of unlabelled
units whose human label is in their set (per-case coverage at the plan's default 90 %), the share
of sets with both labels (REVIEW), and the same with the active labels' weights ignored (what an
unweighted quantile would give), after 1, 2 and 4 rounds.

Writes ``benchmarks/results/conformal_designs.md``.

Run: ``python benchmarks/bench_conformal_designs.py [--reps 200] [--populations frank ...]``.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from assay.calibrate.conformal import nonconformity_scores  # noqa: E402
from assay.label.sample import split_budget  # noqa: E402
from assay.verdict.calibration import design_weight, weighted_conformal_quantile  # noqa: E402
from assay.verdict.design import ACTIVE, UNIFORM  # noqa: E402
from label_designs_data import Population, populations  # noqa: E402
from label_designs_sim import ROUND, Calibrated, Labelling, isotonic_pass_proba  # noqa: E402
from results_file import publish  # noqa: E402

OUT = HERE / "results" / "conformal_designs.md"
#: The plan's default ``[calibration] confidence``.
COVERAGE = 0.9
#: After how many rounds of ``ROUND`` labels the sets are measured.
MEASURED = (1, 2, 4)
SEED = 61
NAMES = ("frank", "summedits-judge", "summedits", "frank-judge")


def _sets(
    lab: Labelling, rng: np.random.Generator, weighted: bool
) -> tuple[float, float]:
    """Coverage and REVIEW share of the unlabelled units' conformal sets."""
    pop = lab.population
    keys = list(lab.records)
    half = rng.permutation(len(keys)) < len(keys) // 2
    fit = [k for k, h in zip(keys, half, strict=True) if not h]
    conf = [k for k, h in zip(keys, half, strict=True) if h]
    rows = np.array([pop.row[k] for k in fit])
    y_fit = pop.label[rows]
    rounds = {r.number: r for r in lab.rounds}
    conf_rows = np.array([pop.row[k] for k in conf])
    rest = np.array([i for i, k in enumerate(pop.keys) if k not in lab.records])
    at = np.concatenate([pop.score[conf_rows], pop.score[rest]])
    if y_fit.min() == y_fit.max():
        p = np.full(len(at), float(y_fit.mean()))
    else:
        p = isotonic_pass_proba(pop.score[rows], y_fit, at)
    proba = np.column_stack([1.0 - p, p])  # columns: FAIL, PASS
    conf_proba, rest_proba = proba[: len(conf)], proba[len(conf) :]
    scores = nonconformity_scores(conf_proba, pop.label[conf_rows].astype(np.int64))
    weights = np.array(
        [design_weight(lab.records[k], k[1], rounds) if weighted else 1.0 for k in conf]
    )
    qhat = weighted_conformal_quantile(scores, weights, 1.0 - COVERAGE, float(weights.max()))
    in_set = (1.0 - rest_proba) <= qhat
    truth = pop.label[rest].astype(np.int64)
    covered = in_set[np.arange(len(rest)), truth]
    return float(covered.mean()), float(in_set.all(axis=1).mean())


def repetition(population: Population, rep: int) -> list[dict[str, float]]:
    """One labelling of every system: rows of (rounds, weighting, coverage, REVIEW share)."""
    rng = np.random.default_rng(np.random.SeedSequence([SEED, rep]))
    lab = Labelling(population, rng)
    machine = Calibrated(population)
    out: list[dict[str, float]] = []
    for number in range(1, max(MEASURED) + 1):
        design = UNIFORM if number == 1 else ACTIVE
        p_pass = machine(lab.labels()) if design == ACTIVE else None
        lab.draw(design, split_budget(ROUND, lab.pools(), design), p_pass)
        if number in MEASURED:
            for weighted in (True, False):
                coverage, review = _sets(lab, np.random.default_rng([SEED, rep, number]), weighted)
                out.append(
                    {"rounds": number, "weighted": weighted, "coverage": coverage,
                     "review": review}
                )  # fmt: skip
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--populations", nargs="+", default=list(NAMES[:3]), choices=NAMES)
    args = parser.parse_args()
    pops, notes = populations(args.populations)
    lines = [
        "# Per-case conformal sets under active labelling",
        "",
        f"Generated by `python benchmarks/bench_conformal_designs.py --reps {args.reps}` "
        f"({platform.machine()}, Python {platform.python_version()}). A first uniform round "
        f"of {ROUND} labels then active rounds of {ROUND} (shipped draw_round, floor 0.5); "
        "calibrator on half the labels, the weighted conformal quantile on the other half "
        f"(shipped design_weight and weighted_conformal_quantile) at {COVERAGE:.0%}; coverage "
        "= share of the unlabelled units whose human label is in their set, averaged over "
        "repetitions; *5th percentile*: of the per-repetition coverage. *Unweighted*: the "
        "same labels with the active draws' weights ignored.",
        "",
        *[f"- {note}" for note in notes],
        "",
        "| data set | labels | quantile | mean coverage | 5th percentile | REVIEW share |",
        "|---|---|---|---|---|---|",
    ]
    for pop in pops:
        start = time.perf_counter()
        rows = [r for rep in range(args.reps) for r in repetition(pop, rep)]
        for number in MEASURED:
            for weighted in (True, False):
                cell = [r for r in rows if r["rounds"] == number and r["weighted"] == weighted]
                cov = np.array([r["coverage"] for r in cell])
                review = np.mean([r["review"] for r in cell])
                lines.append(
                    f"| {pop.name} | {number * ROUND} | "
                    f"{'weighted' if weighted else 'unweighted'} | {cov.mean():.3f} | "
                    f"{np.quantile(cov, 0.05):.3f} | {review:.3f} |"
                )
        print(f"{pop.name}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    publish(OUT, lines)


if __name__ == "__main__":
    main()
