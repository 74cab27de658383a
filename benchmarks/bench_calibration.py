"""Validity of assay.calibrate on FRANK: human factuality vs 15 precomputed metric scores.

Data: ``../shared/data/calibration/frank`` (artidoro/frank, MIT): ``human_annotations.json`` joined
with ``baseline_factuality_metrics_outputs.json`` on (hash, model_name); 2,246 summaries; human
``Factuality == 1`` is PASS. For every metric (cases where it is missing are left out):

* separation: AUROC of the metric against PASS with a 2,000-resample bootstrap 95 % interval;
* 200 random stratified splits into fit (50 %) / conformal (25 %) / test (25 %): an isotonic
  calibrator fitted on *fit*, split-conformal sets (α = 0.1) from *conformal*, and on *test*:
  empirical coverage, set sizes, ECE (10 equal-width bins) and Brier. References in the same run:
  MAPIE's ``SplitConformalClassifier`` (LAC score, prefit) on the same splits (its sets must be
  identical), Platt scaling (logistic) and the constant base-rate predictor;
* thresholds chosen by every method of ``select_thresholds`` (risk appetite moderate = 95 %, target
  false-pass rate 5 %), each with held-out Type I / II errors and a bootstrap interval.

Targets (issue 7): mean coverage within ±2 points of 90 %; isotonic ECE ≤ 0.05 on held-out data.
Writes ``benchmarks/results/calibration.md``.

Run: ``python benchmarks/bench_calibration.py`` (add ``--splits 20`` for a quick look).
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay.calibrate import (
    IsotonicCalibrator,
    LogisticCalibrator,
    brier_score,
    compare_combined,
    expected_calibration_error,
    select_thresholds,
    separation_report,
)
from assay.calibrate.render import threshold_interval
from assay.calibrate.report import split_three
from assay.calibrate.thresholds import METHODS
from assay.errors import InvalidInputError
from results_file import publish

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "calibration" / "frank"
OUT = HERE / "results" / "calibration.md"
METRICS = [
    "Rouge 1", "Rouge 2", "Rouge L", "Bleu", "Meteor", "BertScore P", "BertScore R",
    "BertScore F1", "BertScore P Art", "BertScore R Art", "BertScore F1 Art", "FactCC", "FEQA",
    "Dep Entail", "QAGS",
]  # fmt: skip
ALPHA = 0.1


def load_frank() -> pd.DataFrame:
    """FRANK annotations joined with the metric outputs; ``label`` 1 = PASS (Factuality == 1)."""
    human = pd.DataFrame(json.loads((DATA / "human_annotations.json").read_text()))
    scores = pd.DataFrame(
        json.loads((DATA / "baseline_factuality_metrics_outputs.json").read_text())
    )
    frame = human.merge(scores, on=["hash", "model_name"], suffixes=("", "_metrics"))
    frame["label"] = (frame["Factuality"] == 1).astype(int)
    return frame


def mapie_sets(cal: Any, x_conf: np.ndarray, y_conf: np.ndarray, x_test: np.ndarray) -> np.ndarray:
    """MAPIE's split-conformal sets around the same fitted calibrator (prefit, LAC score)."""
    from mapie.classification import SplitConformalClassifier
    from sklearn.base import BaseEstimator, ClassifierMixin

    class Prefit(ClassifierMixin, BaseEstimator):  # type: ignore[misc]
        def fit(self, x: Any, y: Any) -> Prefit:
            return self

        def predict_proba(self, x: Any) -> np.ndarray:
            return np.asarray(cal.predict_proba(np.asarray(x)))

        def predict(self, x: Any) -> np.ndarray:
            return np.asarray(self.predict_proba(x).argmax(axis=1))

    estimator = Prefit()
    estimator.classes_ = np.array([0, 1])
    ref = SplitConformalClassifier(
        estimator=estimator, confidence_level=1 - ALPHA, conformity_score="lac", prefit=True
    )
    ref.conformalize(x_conf.reshape(-1, 1), y_conf)
    return np.asarray(ref.predict_set(x_test.reshape(-1, 1))[1][:, :, 0])


def split_study(s: np.ndarray, y: np.ndarray, n_splits: int, use_mapie: bool) -> dict[str, Any]:
    """Coverage, set sizes, ECE and Brier over random fit / conformal / test splits."""
    rows = []
    for seed in range(n_splits):
        fit, conf, test = split_three(y, (0.5, 0.25, 0.25), seed)
        iso = IsotonicCalibrator().fit(s[fit], y[fit]).conformalize(s[conf], y[conf], ALPHA)
        sets = iso.predict_set(s[test])
        sizes = sets.sum(axis=1)
        smooth = IsotonicCalibrator().fit(s[fit], y[fit])
        smooth.conformalize(s[conf], y[conf], ALPHA, randomized=True, seed=seed)
        smooth_sets = smooth.predict_set(s[test])
        centred = IsotonicCalibrator(centered=True).fit(s[fit], y[fit])
        centred.conformalize(s[conf], y[conf], ALPHA)
        p_iso = iso.predict_pass_proba(s[test])
        p_centred = centred.predict_pass_proba(s[test])
        p_log = LogisticCalibrator().fit(s[fit], y[fit]).predict_pass_proba(s[test])
        p_base = np.full(len(test), y[fit].mean())
        covered = np.arange(len(test)), y[test]
        row = {
            "coverage": float(sets[covered].mean()),
            "coverage_randomized": float(smooth_sets[covered].mean()),
            "coverage_centred": float(centred.predict_set(s[test])[covered].mean()),
            "mean_size": float(sizes.mean()),
            "mean_size_randomized": float(smooth_sets.sum(axis=1).mean()),
            "review": float(np.mean(sizes != 1)),
            "empty": float(np.mean(sizes == 0)),
            "ece_isotonic": expected_calibration_error(p_iso, y[test]),
            "ece_centred": expected_calibration_error(p_centred, y[test]),
            "ece_logistic": expected_calibration_error(p_log, y[test]),
            "ece_base_rate": expected_calibration_error(p_base, y[test]),
            "brier_isotonic": brier_score(p_iso, y[test]),
            "brier_base_rate": brier_score(p_base, y[test]),
        }
        if use_mapie:
            # parity on the centred calibrator: MAPIE treats probabilities within 1e-8 as tied,
            # which undoes the default calibrator's 1e-9 tie-break (so MAPIE over-covers with it)
            ref = mapie_sets(centred, s[conf], y[conf], s[test])
            row["mapie_identical"] = bool(np.array_equal(ref, centred.predict_set(s[test])))
            row["mapie_coverage"] = float(
                mapie_sets(iso, s[conf], y[conf], s[test])[covered].mean()
            )
        rows.append(row)
    frame = pd.DataFrame(rows)
    out = {k: float(frame[k].mean()) for k in frame.columns}
    out["coverage_sd"] = float(frame["coverage"].std())
    return out


def fmt(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--splits", type=int, default=200)
    parser.add_argument("--threshold-boot", type=int, default=200)
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"FRANK data not found at {DATA}; see shared/data/README", file=sys.stderr)
        return 1
    try:
        import mapie  # noqa: F401

        use_mapie = True
    except ImportError:
        use_mapie = False
    started = time.perf_counter()
    frame = load_frank()
    separation, studies, thresholds = [], {}, []
    for metric in METRICS:
        part = frame[frame[metric].notna()]
        s, y = part[metric].to_numpy(float), part["label"].to_numpy()
        (sep,) = separation_report(s, y, [metric], n_boot=2000, seed=0)
        separation.append(sep)
        studies[metric] = split_study(s, y, args.splits, use_mapie)
        for method in METHODS:
            try:
                (result,) = select_thresholds(
                    s, y, [method], metric=metric, risk="moderate", n_boot=args.threshold_boot
                )
                thresholds.append(result.to_dict())
            except InvalidInputError as exc:
                thresholds.append({"metric": metric, "method": method, "error": str(exc)})
        print(
            f"{metric}: AUROC {sep['auroc']:.3f}, coverage {studies[metric]['coverage']:.4f}, "
            f"ECE {studies[metric]['ece_isotonic']:.4f}",
            flush=True,
        )
    complete = frame.dropna(subset=METRICS)
    top = sorted(separation, key=lambda r: -r["auroc"])[:4]
    combined_metrics = [r["metric"] for r in top]
    combined = compare_combined(
        complete[combined_metrics].to_numpy(float),
        complete["label"],
        combined_metrics,
        method="monotone",
        n_boot=1000,
        seed=0,
    )
    elapsed = time.perf_counter() - started
    write_report(frame, separation, studies, thresholds, combined, args, use_mapie, elapsed)
    ok = targets(studies)["all"]
    print(f"wrote {OUT} in {elapsed:.0f} s; targets {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


def targets(studies: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Which of issue 7's targets are met, and the ranges behind them."""

    def check(key: str, ok: Any) -> tuple[str, str, list[str]]:
        values = {m: v[key] for m, v in studies.items()}
        misses = [m for m, x in values.items() if not ok(x)]
        span = f"{min(values.values()):.4f}–{max(values.values()):.4f}"
        return ("met" if not misses else "NOT met"), span, misses

    within = lambda c: abs(c - 0.9) <= 0.02  # noqa: E731
    rnd, rnd_range, _ = check("coverage_randomized", within)
    det, det_range, det_miss = check("coverage", within)
    ece, ece_range, _ = check("ece_isotonic", lambda e: e <= 0.05)
    ece_centred, ece_centred_range, _ = check("ece_centred", lambda e: e <= 0.05)
    _, _, below = check("coverage", lambda c: c >= 0.88)
    note = ""
    if det_miss:
        note = "; outside: " + ", ".join(f"{m} {studies[m]['coverage']:.4f}" for m in det_miss)
    return {
        "randomized": rnd,
        "randomized_range": rnd_range,
        "deterministic": det,
        "deterministic_range": det_range,
        "deterministic_note": note,
        "ece": ece,
        "ece_range": ece_range,
        "ece_centred": ece_centred,
        "ece_centred_range": ece_centred_range,
        "all": rnd == "met" and ece == "met" and not below,
    }


def write_report(
    frame: pd.DataFrame,
    separation: list[dict[str, Any]],
    studies: dict[str, dict[str, Any]],
    thresholds: list[dict[str, Any]],
    combined: dict[str, Any],
    args: argparse.Namespace,
    use_mapie: bool,
    elapsed: float,
) -> None:
    t = targets(studies)
    lines = [
        "# Calibration validity on FRANK",
        "",
        "Generated by `python benchmarks/bench_calibration.py` "
        f"({args.splits} splits; {elapsed:.0f} s on {platform.machine()}, Python "
        f"{platform.python_version()}). Data: FRANK (artidoro/frank, MIT), {len(frame)} summaries, "
        f"{int(frame['label'].sum())} PASS (human Factuality = 1).",
        "",
        "## Targets",
        "",
        "- Mean empirical coverage of 90 % conformal sets within 90 ± 2 points, every metric, "
        f"randomised (smoothed) sets: **{t['randomized']}** (range {t['randomized_range']}).",
        "- The same with the default deterministic sets (guaranteed ≥ 90 %, conservative when "
        f"calibrated probabilities tie): **{t['deterministic']}** (range "
        f"{t['deterministic_range']}){t['deterministic_note']}.",
        "- Held-out ECE after isotonic calibration ≤ 0.05, every metric: isotonic (default) "
        f"**{t['ece']}** (range {t['ece_range']}); centred isotonic "
        f"**{t['ece_centred']}** (range {t['ece_centred_range']}).",
    ]
    if use_mapie:
        same = np.mean([v["mapie_identical"] for v in studies.values()])
        lines.append(
            "- Prediction sets identical to MAPIE's (LAC, prefit) around the same centred "
            f"isotonic calibrator on the same split: {same:.1%} of metric × split pairs. (Around "
            "the default calibrator MAPIE's sets differ: it counts probabilities within 1e-8 as "
            "tied, which undoes the 1e-9 tie-break, so its coverage there is conservative; "
            "column MAPIE.)"
        )
    lines += [
        "",
        "## Does each metric separate PASS from FAIL?",
        "",
        "| metric | n | AUROC | 95 % CI | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in separation:
        lines.append(
            f"| {r['metric']} | {r['n']} | {r['auroc']:.3f} | {r['ci_low']:.3f}–"
            f"{r['ci_high']:.3f} | {r['verdict']} |"
        )
    lines += [
        "",
        f"Combining the four best metrics ({', '.join(combined['metrics'])}) with monotone "
        f"boosting, 5-fold out-of-fold: AUROC {combined['combined_auroc']:.3f} vs "
        f"{combined['best_single_auroc']:.3f} for {combined['best_single_metric']} alone "
        f"(difference 95 % CI {combined['difference_ci'][0]:+.3f} to "
        f"{combined['difference_ci'][1]:+.3f}; "
        f"{'better' if combined['combined_is_better'] else 'not reliably better'}).",
        "",
        f"## Conformal sets (α = {ALPHA}) and calibration, mean over {args.splits} splits",
        "",
        "ECE: 10 equal-width bins on the test split. Base rate: the constant predictor P(PASS) = "
        "PASS rate of the fit split — perfectly calibrated and useless, which is why ECE must be "
        "read with the Brier score (and the AUROC above). Review: empty or two-label sets.",
        "",
        "Coverage columns: default isotonic calibrator with deterministic sets; MAPIE's sets "
        "around the same calibrator; randomised (smoothed) sets; centred isotonic (deterministic).",
        "",
        "| metric | coverage | sd | MAPIE | randomised | centred isotonic | mean set size | "
        "set size randomised | review | ECE isotonic | ECE centred isotonic | ECE logistic | "
        "ECE base rate | Brier isotonic | Brier base rate |",
        "|---|" + "---|" * 14,
    ]
    for metric, v in studies.items():
        lines.append(
            f"| {metric} | {v['coverage']:.4f} | {v['coverage_sd']:.3f} | "
            f"{fmt(v.get('mapie_coverage'), 4)} | {v['coverage_randomized']:.4f} | "
            f"{v['coverage_centred']:.4f} | {v['mean_size']:.3f} | "
            f"{v['mean_size_randomized']:.3f} | {v['review']:.3f} | {v['ece_isotonic']:.4f} | "
            f"{v['ece_centred']:.4f} | {v['ece_logistic']:.4f} | {v['ece_base_rate']:.4f} | "
            f"{v['brier_isotonic']:.4f} | {v['brier_base_rate']:.4f} |"
        )
    lines += [
        "",
        "## Thresholds chosen by each method",
        "",
        "Risk appetite moderate (95 %); false-pass target 5 %. Fit on 70 %, errors on the held-out "
        "30 %; interval: 95 % bootstrap of the fit part. Type I = PASS judged FAIL; Type II = "
        "FAIL judged PASS. Metrics whose AUROC interval contains 0.5 should not be thresholded.",
        "",
        "| metric | " + " | ".join(METHODS) + " |",
        "|---|" + "---|" * len(METHODS),
    ]
    by_metric: dict[str, dict[str, dict[str, Any]]] = {}
    for r in thresholds:
        by_metric.setdefault(r["metric"], {})[r["method"]] = r
    for metric, methods in by_metric.items():
        cells = []
        for method in METHODS:
            r = methods[method]
            if "error" in r:
                cells.append("cannot (slope ≤ 0)" if "slope" in r["error"] else "failed")
                continue
            t = "none" if r["threshold"] is None else f"{r['threshold']:.3g}"
            cells.append(
                f"{t} ({fmt(r['held_out']['type_i'], 2)}/{fmt(r['held_out']['type_ii'], 2)})"
            )
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Cells: threshold (held-out Type I / Type II); none: no score can be trusted to pass "
        "(too few FAIL cases to guarantee the rate, or P(PASS) never reaches 0.5); interval "
        "upper end ∞: nothing passes in more than 2.5 % of the resamples.",
        "",
        "Bootstrap intervals of the thresholds:",
        "",
        "| metric | " + " | ".join(METHODS) + " |",
        "|---|" + "---|" * len(METHODS),
    ]
    for metric, methods in by_metric.items():
        cells = [
            "–"
            if "error" in methods[m]
            else threshold_interval(methods[m]["ci_low"], methods[m]["ci_high"])
            for m in METHODS
        ]
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    publish(OUT, lines, echo=False)


if __name__ == "__main__":
    sys.exit(main())
