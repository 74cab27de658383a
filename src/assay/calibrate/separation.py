"""Does a metric separate the human labels at all? AUROC with a bootstrap confidence interval.

Run this before calibrating: a metric whose interval contains 0.5 cannot tell PASS from FAIL, and
one whose interval lies below 0.5 is *inverted* (it rewards what humans reject). Neither should be
thresholded. :func:`compare_combined` checks whether several weak metrics combined through a
calibrator (by default the monotone booster) beat the best single one, out of fold.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
from scipy.stats import rankdata

from assay.calibrate._arrays import IntArray, as_binary, as_scores, check_same_length, orient
from assay.errors import InvalidInputError
from assay.params import check, check_int

SEPARATES, INVERTED, UNDECIDABLE = "separates", "inverted", "undecidable"


def auroc(scores: Any, labels: Any) -> float:
    """Area under the ROC curve of ``scores`` for PASS (= 1) labels (Mann–Whitney; ties count ½).

    Example:
        >>> auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
        0.75
    """
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels).astype(bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if n_pos == 0 or n_neg == 0:
        raise InvalidInputError("AUROC needs both PASS and FAIL labels")
    ranks = rankdata(s)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def bootstrap_auroc(scores: Any, labels: Any, indices: np.ndarray) -> np.ndarray:
    """AUROC of each bootstrap resample (rows of ``indices``), vectorised over resamples.

    Ranks come from counts, not a sort of each resample: tied draws share the mean rank of
    their run, so a resample's rank sum over PASS draws is, over the distinct scores, (its PASS
    draws of the score) × (its draws below the score + (its draws of the score + 1) / 2). Every
    term and partial sum is a multiple of ½ far below 2**53, hence exact: the figures of summing
    ``rankdata``'s ranks, bit for bit (a row drawing a NaN score is NaN, as ``rankdata`` gives).

    Example:
        >>> idx = np.array([[0, 1, 2, 3], [0, 0, 3, 3]])
        >>> bootstrap_auroc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1], idx).tolist()
        [0.75, 1.0]
    """
    return ScoreCodes(scores).bootstrap_auroc(labels, indices)


class ScoreCodes:
    """Scores as codes into their distinct values, made once for every block of resamples of
    :func:`bootstrap_auroc` (made per block, the sort of every score was repeated ~250 times
    per metric at 420,000 labels: the bootstrap grew as the square of the labels)."""

    def __init__(self, scores: Any) -> None:
        s = np.asarray(scores, dtype=np.float64)
        distinct, self.code = np.unique(s, return_inverse=True)
        self.width = len(distinct)
        self.nan = np.isnan(s)

    def bootstrap_auroc(self, labels: Any, indices: np.ndarray) -> np.ndarray:
        """:func:`bootstrap_auroc` of these scores."""
        drawn = np.asarray(labels).astype(bool)[indices]
        n_pos = drawn.sum(axis=1)
        n_neg = drawn.shape[1] - n_pos
        if (n_pos == 0).any() or (n_neg == 0).any():
            raise InvalidInputError("every resample needs both PASS and FAIL labels")
        rows, width = len(indices), self.width
        cells = (self.code[indices] + np.arange(rows)[:, None] * width).ravel()
        counts = np.bincount(cells, minlength=rows * width).reshape(rows, width)
        passes = np.bincount(cells[drawn.ravel()], minlength=rows * width).reshape(rows, width)
        below = np.cumsum(counts, axis=1) - counts
        rank_sum = (passes * (below + (counts + 1) / 2)).sum(axis=1)
        out = np.asarray((rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg), dtype=np.float64)
        out[self.nan[indices].any(axis=1)] = np.nan
        return out


def bootstrap_indices(labels: IntArray, n_boot: int, seed: int) -> np.ndarray:
    """(n_boot, n) resample indices, stratified by label so every resample holds both classes.

    Example:
        >>> bootstrap_indices(np.array([0, 0, 1, 1]), 3, 0).shape
        (3, 4)
    """
    return np.concatenate(list(bootstrap_index_blocks(labels, n_boot, seed)), axis=0)


#: Indices per block of resamples (8 bytes each, and a few arrays of that size while ranking):
#: the whole (n_boot, n) matrix of 420,000 labels was 3.4 GB per array.
_BLOCK_INDICES = 2**21


def bootstrap_index_blocks(labels: IntArray, n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """The rows of :func:`bootstrap_indices`, a block of rows at a time (the same rows).

    One generator draws every class's (n_boot, n_class) indices in turn, element by element,
    so a block of one class's rows is the same drawn alone or within all of them; each class
    gets a copy of the generator at the point its rows start.

    Example:
        >>> labels = np.array([0, 1, 1, 0, 1])
        >>> blocks = list(bootstrap_index_blocks(labels, 5, 3))
        >>> bool(np.array_equal(np.concatenate(blocks), bootstrap_indices(labels, 5, 3)))
        True
    """
    check_int(n_boot, "n_boot", "bootstrap_indices")  # its rows: the same message
    members = [np.flatnonzero(labels == cls) for cls in np.unique(labels)]
    rows = max(1, _BLOCK_INDICES // max(1, len(labels)))
    rng = np.random.default_rng(seed)
    starts = []
    for i, member in enumerate(members):
        starts.append(copy.deepcopy(rng))
        if i < len(members) - 1:  # skip this class's draws: the next class's start after them
            for start in range(0, n_boot, rows):
                rng.integers(0, len(member), size=(min(rows, n_boot - start), len(member)))
    for start in range(0, n_boot, rows):
        size = min(rows, n_boot - start)
        yield np.concatenate(
            [
                m[g.integers(0, len(m), size=(size, len(m)))]
                for m, g in zip(members, starts, strict=True)
            ],
            axis=1,
        )


def _interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1.0 - confidence) / 2
    low, high = np.quantile(values, [tail, 1.0 - tail])
    return float(low), float(high)


def auroc_ci(
    scores: Any, labels: Any, *, n_boot: int = 1000, confidence: float = 0.95, seed: int = 0
) -> dict[str, Any]:
    """AUROC with a percentile bootstrap interval (label-stratified resamples).

    Example:
        >>> rng = np.random.default_rng(1)
        >>> y = np.repeat([0, 1], 200)
        >>> r = auroc_ci(rng.normal(size=400) + y, y, n_boot=200)
        >>> bool(0.5 < r["ci_low"] < r["auroc"] < r["ci_high"])
        True
    """
    check(0 < confidence < 1, "confidence", "auroc_ci", "in (0, 1)", confidence)
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(labels).astype(np.int64)
    point = auroc(s, y)
    codes = ScoreCodes(s)
    boots = np.concatenate(
        [codes.bootstrap_auroc(y, idx) for idx in bootstrap_index_blocks(y, n_boot, seed)]
    )
    low, high = _interval(boots, confidence)
    return {
        "auroc": point,
        "ci_low": low,
        "ci_high": high,
        "confidence": confidence,
        "n_boot": n_boot,
        "n": len(y),
        "n_pass": int(y.sum()),
    }


def verdict(ci_low: float, ci_high: float) -> str:
    """``separates`` (interval above 0.5), ``inverted`` (below) or ``undecidable`` (contains it).

    Example:
        >>> verdict(0.55, 0.7), verdict(0.3, 0.45), verdict(0.45, 0.6)
        ('separates', 'inverted', 'undecidable')
    """
    if ci_low > 0.5:
        return SEPARATES
    if ci_high < 0.5:
        return INVERTED
    return UNDECIDABLE


def advice(metric: str, result: dict[str, Any]) -> str:
    """A plain-language sentence for the report."""
    ci = (
        f"AUROC {result['auroc']:.3f} ({result['confidence']:.0%} CI {result['ci_low']:.3f}–"
        f"{result['ci_high']:.3f})"
    )
    v = result["verdict"]
    if v == SEPARATES:
        return f"{metric}: separates PASS from FAIL, {ci}."
    if v == INVERTED:
        return (
            f"{metric}: INVERTED — {ci}: higher scores go with FAIL. Do not threshold it as it "
            "stands; check the metric's direction."
        )
    return (
        f"{metric}: does NOT separate PASS from FAIL — {ci} contains 0.5. Do not threshold it; "
        "calibrated probabilities will stay close to the base rate."
    )


def separation_report(
    scores: Any,
    labels: Any,
    metrics: Sequence[str],
    *,
    higher_is_better: Sequence[bool] | None = None,
    pass_at: float | None = None,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """AUROC, bootstrap CI, verdict and advice for each metric column.

    Example:
        >>> y = np.repeat([0, 1], 50)
        >>> rows = separation_report(np.column_stack([y + 0.0, -y + 0.0]), y, ["good", "bad"],
        ...                          n_boot=50)
        >>> [r["verdict"] for r in rows]
        ['separates', 'inverted']
    """
    x = as_scores(scores, "separation_report")
    y = as_binary(labels, "separation_report", pass_at=pass_at)
    check_same_length(x, y, "separation_report")
    check(
        len(metrics) == x.shape[1],
        "metrics",
        "separation_report",
        f"{x.shape[1]} names",
        list(metrics),
    )
    hib = list(higher_is_better) if higher_is_better is not None else [True] * x.shape[1]
    x = orient(x, hib)
    rows = []
    for j, name in enumerate(metrics):
        result = auroc_ci(x[:, j], y, n_boot=n_boot, confidence=confidence, seed=seed)
        result["verdict"] = verdict(result["ci_low"], result["ci_high"])
        result = {"metric": name, "higher_is_better": hib[j], **result}
        result["advice"] = advice(name, result)
        rows.append(result)
    return rows


def out_of_fold_pass_proba(
    scores: Any,
    labels: IntArray,
    method: str,
    n_splits: int,
    seed: int,
    higher_is_better: Sequence[bool] | None = None,
) -> np.ndarray:
    """P(PASS) for each case from a calibrator fitted on the other folds (stratified K-fold)."""
    from sklearn.model_selection import StratifiedKFold

    from assay.calibrate.persist import make_calibrator

    x = as_scores(scores, "out_of_fold_pass_proba")
    out = np.empty(len(labels))
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    for train, test in folds.split(x, labels):
        cal = make_calibrator(method, higher_is_better=higher_is_better)
        out[test] = cal.fit(x[train], labels[train]).predict_pass_proba(x[test])
    return out


def compare_combined(
    scores: Any,
    labels: Any,
    metrics: Sequence[str],
    *,
    method: str = "monotone",
    higher_is_better: Sequence[bool] | None = None,
    pass_at: float | None = None,
    n_splits: int = 5,
    n_boot: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Out-of-fold AUROC of the metrics combined by ``method`` against the best single metric.

    The difference gets a paired bootstrap interval (the same resamples for both).
    """
    x = as_scores(scores, "compare_combined")
    y = as_binary(labels, "compare_combined", pass_at=pass_at)
    check_same_length(x, y, "compare_combined")
    if x.shape[1] < 2:
        raise InvalidInputError("compare_combined needs at least two metric columns")
    hib = list(higher_is_better) if higher_is_better is not None else [True] * x.shape[1]
    oriented = orient(x, hib)
    single = [auroc(oriented[:, j], y) for j in range(x.shape[1])]
    best = int(np.argmax(single))
    combined = out_of_fold_pass_proba(x, y, method, n_splits, seed, hib)
    first, second = ScoreCodes(combined), ScoreCodes(oriented[:, best])
    diffs = np.concatenate(
        [
            first.bootstrap_auroc(y, idx) - second.bootstrap_auroc(y, idx)
            for idx in bootstrap_index_blocks(y, n_boot, seed)
        ]
    )
    low, high = _interval(diffs, confidence)
    combined_auc = auroc(combined, y)
    better = low > 0
    return {
        "method": method,
        "metrics": list(metrics),
        "combined_auroc": combined_auc,
        "best_single_metric": metrics[best],
        "best_single_auroc": single[best],
        "difference": combined_auc - single[best],
        "difference_ci": [low, high],
        "confidence": confidence,
        "combined_is_better": bool(better),
        "advice": (
            f"Combining {len(metrics)} metrics with '{method}' "
            + ("beats" if better else "does not reliably beat")
            + f" the best single metric ({metrics[best]}): out-of-fold AUROC {combined_auc:.3f} "
            f"vs {single[best]:.3f}, difference {confidence:.0%} CI {low:+.3f} to {high:+.3f}."
        ),
    }
