"""Screen a variant of the active labelling design with bench_label_designs.py's machinery.

The screens of design note 0063's amendment of 2026-12-07: the same seeded repetitions as the
bench, one variant at a time, the goals and savings printed (nothing written to ``results/``):

* ``--sampling with-replacement`` — active rounds drawn with replacement (Hansen–Hurwitz), the
  design before the amendment; ``successive`` (default) is the shipped one.
* ``--pilot N`` — the active workflow starts with a uniform pilot of N labels per system and
  draws the rest of the first 100 ``active`` (``label_designs_sim.PILOT``).
* ``--skip-small`` — rounds with fewer than 10 draws in a check are left out of the bound (their
  labels stay known units of the rounds after them).
* ``--floor F`` — active rounds drawn with floor F and the normal branch taking rounds of floor
  ≥ F (``DEFAULT_FLOOR`` and ``MIN_NORMAL_FLOOR`` set together; shipped ½).
* ``--aim jeffreys`` — active rounds aimed at each isotonic plateau's Jeffreys mean,
  ``(passes + ½) / (labels + 1)``, instead of its share of passes (``isotonic``, shipped): a
  plateau of all passes is not taken as certain (design note 0063, session 29; the bound's
  predictions are unchanged).

Run: ``python benchmarks/screen_label_designs.py summedits-judge --reps 40 --pilot 5``.
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import assay.label.sample as sample  # noqa: E402
import assay.verdict.estimate as estimate  # noqa: E402
import bench_label_designs as bench  # noqa: E402
import label_designs_sim as sim  # noqa: E402
from assay.verdict.design import SAMPLINGS, SUCCESSIVE  # noqa: E402

#: Rounds with fewer draws in a check than this are left out under ``--skip-small``.
SMALL = 10


def _jeffreys_active_p(lab: Any, machine: Any) -> Any:
    """P(PASS) for an active draw under ``--aim jeffreys``: the isotonic fit on every label so
    far with each plateau's value replaced by its Jeffreys mean (None before any label)."""
    from scipy.optimize import isotonic_regression

    train = lab.labels()
    if not train:
        return None
    pop = machine.population
    y = np.fromiter(train.values(), dtype=np.float64, count=len(train))
    rows = np.fromiter((pop.row[k] for k in train), dtype=np.int64, count=len(train))
    x = pop.score[rows]
    order = np.argsort(x, kind="stable")
    distinct, start, counts = np.unique(x[order], return_index=True, return_counts=True)
    passes = np.add.reduceat(y[order], start)
    fitted = isotonic_regression(passes / counts, weights=counts.astype(np.float64)).x
    block = np.concatenate([[0], np.cumsum(np.diff(fitted) != 0)])  # plateau of each score
    block_passes = np.bincount(block, weights=passes)
    block_counts = np.bincount(block, weights=counts)
    jeffreys = ((block_passes + 0.5) / (block_counts + 1.0))[block]
    p = np.interp(pop.score, distinct, jeffreys)
    return dict(zip(pop.keys, p.tolist(), strict=True))


def _skip_small(units: list[Any], rounds: Sequence[Any], scope: str) -> tuple[list[Any], list]:
    """``usable_rounds`` without the rounds of fewer than :data:`SMALL` draws (unless none is
    left)."""
    out, notes = _USABLE(units, rounds, scope)
    large = [r for r in out if len(r.counted) >= SMALL]
    return (large or out), notes


_USABLE = estimate.usable_rounds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("population", choices=bench.ALL)
    parser.add_argument("--reps", type=int, default=40)
    parser.add_argument("--sampling", choices=SAMPLINGS, default=SUCCESSIVE)
    parser.add_argument("--pilot", type=int, default=None)
    parser.add_argument("--skip-small", action="store_true")
    parser.add_argument("--floor", type=float, default=sample.DEFAULT_FLOOR)
    parser.add_argument("--aim", choices=("isotonic", "jeffreys"), default="isotonic")
    args = parser.parse_args()
    if args.aim == "jeffreys":
        sim._active_p = _jeffreys_active_p
    sim.PILOT = args.pilot
    estimate.MIN_NORMAL_FLOOR = args.floor
    bench.DEFAULT_FLOOR = args.floor  # the oracle ceiling at the screened floor
    sample.draw_round = functools.partial(  # type: ignore[assignment]
        sample.draw_round, sampling=args.sampling, floor=args.floor
    )
    if args.skip_small:
        estimate.usable_rounds = _skip_small  # type: ignore[assignment]
    bench.TABLES = Path(tempfile.mkdtemp(prefix="screen_label_designs_"))
    pops, skipped = bench.populations([args.population])
    if not pops:
        print("\n".join(skipped), file=sys.stderr)
        return 1
    run = argparse.Namespace(reps=args.reps, workers=1, seed=bench.SEED)
    measured = bench.measure(args.population, pops[0], run)
    for goal, result, verdict in bench.goals({measured["name"]: measured["tables"]}):
        print(f"{verdict:>8}  {goal}: {result}")
    cells = measured["tables"]["cells"]
    active = cells[cells["workflow"] == "active"]
    print(active.groupby("n_all")[["cover_low", "cover_up", "width"]].min().to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
