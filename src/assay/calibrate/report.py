"""Compute a calibration report: separation → fit → conformalize → held-out diagnostics.

The labelled cases are split three ways (stratified): a *fit* split for the probability map, an
independent *conformal* split for the conformal quantile, and a *test* split on which ECE, Brier,
reliability, confusion, coverage and set sizes are measured. Rendering lives in
:mod:`assay.calibrate.render` (DESIGN §8).
"""

from __future__ import annotations

import importlib.util
import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.calibrate._arrays import as_binary, as_classes, as_scores, check_same_length
from assay.calibrate.base import Calibrator
from assay.calibrate.diagnostics import calibration_diagnostics
from assay.calibrate.persist import make_calibrator
from assay.calibrate.separation import UNDECIDABLE, compare_combined, separation_report
from assay.errors import InvalidInputError
from assay.params import check, check_int

logger = logging.getLogger(__name__)


def split_three(
    codes: np.ndarray, fractions: Sequence[float], seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stratified fit / conformal / test index split with the given fractions.

    Example:
        >>> a, b, c = split_three(np.array([0, 1] * 50), (0.5, 0.25, 0.25), 0)
        >>> len(a), len(b), len(c), len(set(a) | set(b) | set(c))
        (50, 25, 25, 100)
    """
    from sklearn.model_selection import train_test_split

    check(
        len(fractions) == 3 and all(f > 0 for f in fractions) and abs(sum(fractions) - 1) < 1e-9,
        "splits",
        "split_three",
        "three positive fractions summing to 1",
        tuple(fractions),
    )
    index = np.arange(len(codes))
    counts = np.bincount(codes)
    if counts[counts > 0].min() < 3:
        raise InvalidInputError(
            f"each label needs at least 3 cases to split into fit / conformal / test; got class "
            f"counts {counts.tolist()}"
        )
    fit, rest = train_test_split(index, train_size=fractions[0], stratify=codes, random_state=seed)
    share = fractions[1] / (fractions[1] + fractions[2])
    conformal, test = train_test_split(
        rest, train_size=share, stratify=codes[rest], random_state=seed
    )
    return np.sort(fit), np.sort(conformal), np.sort(test)


def calibration_report(
    scores: Any,
    labels: Any,
    metrics: Sequence[str],
    *,
    method: str = "isotonic",
    higher_is_better: Sequence[bool] | None = None,
    pass_at: float | None = None,
    alpha: float = 0.1,
    splits: Sequence[float] = (0.5, 0.25, 0.25),
    decision_threshold: float = 0.5,
    n_boot: int = 1000,
    n_bins: int = 10,
    seed: int = 0,
    params: dict[str, Any] | None = None,
    randomized: bool = False,
) -> tuple[dict[str, Any], Calibrator, dict[str, Any]]:
    """Check separation, fit and conformalize a calibrator, and measure it on held-out cases.

    Returns ``(report, calibrator, plot_data)``; the calibrator is fitted on the fit split and
    conformalized on the conformal split.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> y = rng.integers(0, 2, 600)
        >>> s = rng.normal(size=600) + 1.5 * y
        >>> report, cal, _ = calibration_report(s, y, ["m"], method="logistic", n_boot=50)
        >>> report["separation"][0]["verdict"], report["conformal"]["alpha"]
        ('separates', 0.1)
    """
    where = "calibration_report"
    x = as_scores(scores, where)
    labels = list(labels)
    check_same_length(x, labels, where)
    check(len(metrics) == x.shape[1], "metrics", where, f"{x.shape[1]} names", list(metrics))
    check_int(n_boot, "n_boot", where)
    hib = list(higher_is_better) if higher_is_better is not None else [True] * x.shape[1]
    calibrator = make_calibrator(
        method, metrics=list(metrics), higher_is_better=hib, pass_at=pass_at, **(params or {})
    )
    if calibrator.multiclass:
        codes, classes = as_classes(labels, where)
    else:
        codes, classes = as_binary(labels, where, pass_at=pass_at), [0, 1]
    warnings: list[str] = []

    separation: list[dict[str, Any]] = []
    binary: np.ndarray | None = None
    if not calibrator.multiclass or pass_at is not None:
        binary = as_binary(labels, where, pass_at=pass_at)
        separation = separation_report(
            x, binary, metrics, higher_is_better=hib, n_boot=n_boot, seed=seed
        )
        warnings += [r["advice"] for r in separation if r["verdict"] != "separates"]
    else:
        warnings.append(
            "graded labels without pass_at: the AUROC separation check was skipped "
            "(give pass_at / --pass-at to run it)"
        )
    combined = None
    if x.shape[1] > 1 and binary is not None:
        combiner = "monotone" if importlib.util.find_spec("lightgbm") else "logistic"
        combined = compare_combined(
            x, binary, metrics, method=combiner, higher_is_better=hib, n_boot=n_boot, seed=seed
        )

    fit, conf, test = split_three(codes, splits, seed)
    calibrator.fit(x[fit], [labels[i] for i in fit])
    calibrator.conformalize(
        x[conf], [labels[i] for i in conf], alpha=alpha, randomized=randomized, seed=seed
    )
    test_labels = [labels[i] for i in test]
    proba = calibrator.predict_proba(x[test])
    diag = calibration_diagnostics(
        proba if calibrator.multiclass else proba[:, 1],
        codes[test],
        decision_threshold=decision_threshold,
        n_bins=n_bins,
    )
    summary = calibrator.conformal_summary(x[test], test_labels)
    if summary["coverage"] < 1 - alpha - 0.05:
        warnings.append(
            f"held-out coverage {summary['coverage']:.3f} is well below the target "
            f"{1 - alpha:.2f}; the splits may be too small or not exchangeable"
        )
    if separation and all(r["verdict"] == UNDECIDABLE for r in separation):
        warnings.append(
            "no metric separates the labels: calibrated probabilities stay near the "
            "base rate and most cases will need review"
        )
    report: dict[str, Any] = {
        "method": method,
        "metrics": list(metrics),
        "higher_is_better": hib,
        "pass_at": pass_at,
        "classes": [str(c) for c in classes] if calibrator.multiclass else ["FAIL", "PASS"],
        "n": len(labels),
        "class_counts": np.bincount(codes).tolist(),
        "splits": {"fit": len(fit), "conformal": len(conf), "test": len(test)},
        "seed": seed,
        "separation": separation,
        "combined": combined,
        "calibration": {k: v for k, v in diag.items() if k != "reliability"},
        "conformal": {
            "alpha": alpha,
            "randomized": randomized,
            "qhat": _finite(calibrator.conformal_.qhat_ if calibrator.conformal_ else None),
            **summary,
        },
        "warnings": warnings,
    }
    plot = {
        "reliability": diag["reliability"],
        "roc": _roc_data(x, binary, metrics, hib),
        "curve": _curve(calibrator, x) if x.shape[1] == 1 else None,
    }
    return report, calibrator, plot


def _finite(value: float | None) -> float | None:
    return None if value is None or not np.isfinite(value) else float(value)


def _roc_data(
    x: np.ndarray, binary: np.ndarray | None, metrics: Sequence[str], hib: Sequence[bool]
) -> dict[str, Any]:
    if binary is None:
        return {}
    from sklearn.metrics import roc_curve

    out = {}
    for j, name in enumerate(metrics):
        s = x[:, j] if hib[j] else -x[:, j]
        fpr, tpr, _ = roc_curve(binary, s)
        keep = np.unique(np.linspace(0, len(fpr) - 1, min(len(fpr), 200)).astype(int))
        out[name] = {"fpr": fpr[keep].round(5).tolist(), "tpr": tpr[keep].round(5).tolist()}
    return out


def _curve(calibrator: Calibrator, x: np.ndarray) -> dict[str, Any]:
    """Score → calibrated probabilities on a grid over the observed range (for plotting)."""
    grid = np.linspace(x[:, 0].min(), x[:, 0].max(), 101)
    proba = calibrator.predict_proba(grid.reshape(-1, 1))
    return {
        "score": grid.round(6).tolist(),
        "proba": {
            name: proba[:, k].round(6).tolist() for k, name in enumerate(calibrator.class_names)
        },
    }


def thresholds_report(
    scores: Any,
    labels: Any,
    metrics: Sequence[str],
    *,
    methods: Sequence[str] | None = None,
    higher_is_better: Sequence[bool] | None = None,
    pass_at: float | None = None,
    n_boot: int = 200,
    seed: int = 0,
    **options: Any,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Every threshold method on every metric, with the separation check; returns
    ``(report, plot_data)`` where the plot data holds PASS / FAIL score histograms.

    ``n_boot`` resamples give each threshold its interval (0: none); the separation check uses
    at least 200. ``options`` go to :func:`~assay.calibrate.thresholds.select_thresholds` (``risk``,
    ``false_pass_rate``, ``held_out``, ``ci``, ``params``).
    """
    from assay.calibrate.thresholds import METHODS, select_thresholds

    where = "thresholds_report"
    x = as_scores(scores, where)
    y = as_binary(labels, where, pass_at=pass_at)
    check_same_length(x, y, where)
    check(n_boot >= 0, "n_boot", where, "a non-negative integer (0: no intervals)", n_boot)
    hib = list(higher_is_better) if higher_is_better is not None else [True] * x.shape[1]
    separation = separation_report(
        x, y, metrics, higher_is_better=hib, n_boot=max(n_boot, 200), seed=seed
    )
    rows: list[dict[str, Any]] = []
    failures: list[dict[str, str]] = []
    plot: dict[str, Any] = {}
    for j, name in enumerate(metrics):
        for method in methods or METHODS:
            try:
                result = select_thresholds(
                    x[:, j],
                    y,
                    [method],
                    metric=name,
                    higher_is_better=hib[j],
                    n_boot=n_boot,
                    seed=seed,
                    **options,
                )[0]
                rows.append(result.to_dict())
            except InvalidInputError as exc:
                failures.append({"metric": name, "method": method, "reason": str(exc)})
        edges = np.histogram_bin_edges(x[:, j], bins=30)
        plot[name] = {
            "bin_edges": edges.round(6).tolist(),
            "pass_counts": np.histogram(x[y == 1, j], bins=edges)[0].tolist(),
            "fail_counts": np.histogram(x[y == 0, j], bins=edges)[0].tolist(),
            "thresholds": {r["method"]: r["threshold"] for r in rows if r["metric"] == name},
        }
    report = {
        "metrics": list(metrics),
        "higher_is_better": hib,
        "pass_at": pass_at,
        "n": len(y),
        "n_pass": int(y.sum()),
        "seed": seed,
        "options": options,
        "separation": separation,
        "thresholds": rows,
        "failed": failures,
        "warnings": [r["advice"] for r in separation if r["verdict"] != "separates"],
    }
    return report, plot
