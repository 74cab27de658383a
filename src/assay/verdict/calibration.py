"""Calibration of a labelled check's metric: the validity gate, the combination test, the weighted
conformal quantile and the calibrator the design bound cross-fits (design note 0063).

* **Validity gate**: a candidate metric may decide only when its AUROC against the human labels
  has a bootstrap interval above 0.5 in its declared direction.
* **Weighted split-conformal** (Tibshirani, Barber, Candès & Ramdas, *Conformal prediction under
  covariate shift*, NeurIPS 2019): the conformal quantile is read from design labels only, each
  weighted by the inverse of how much likelier its design made it than a uniform draw (1 for
  ``uniform`` / ``random``, ``1 / (p · |pool|)`` for ``active``), so the sets cover a unit chosen
  uniformly from the population.
* :func:`calibrator_fit_predict` is the ``fit_predict`` callable
  :func:`~assay.verdict.estimate.design_bounds` cross-fits.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import pandas as pd

from assay.errors import InvalidInputError
from assay.verdict.design import ACTIVE, DesignRound, Key, LabelRecord
from assay.verdict.estimate import FitPredict
from assay.verdict.plan import CalibrationSection

#: Column of PASS in a binary calibrator's probabilities and sets (classes FAIL, PASS).
PASS_COLUMN = 1


def metric_rows(results: pd.DataFrame, metric: str, keys: pd.MultiIndex) -> pd.DataFrame:
    """One metric's result rows aligned to ``keys`` (the last row of a repeated key wins)."""
    rows = results[results["metric"] == metric].set_index(["case_id", "model"])
    rows = rows[~rows.index.duplicated(keep="last")].reindex(keys)
    rows.attrs["metric"] = metric
    return rows


def score_matrix(
    results: pd.DataFrame, metrics: list[str], keys: pd.MultiIndex
) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    """Scores of ``metrics`` per case, whether all were measured, and whether any was skipped."""
    rows = {m: metric_rows(results, m, keys) for m in metrics}
    values = pd.DataFrame({m: r["value"].astype(float) for m, r in rows.items()}, index=keys)
    status = pd.DataFrame({m: r["status"] for m, r in rows.items()}, index=keys)
    ok = (status == "ok").all(axis=1) & values.notna().all(axis=1)
    skipped = (status == "skipped").any(axis=1) & ~ok
    return values, ok, skipped


def validity(
    candidates: list[str],
    results: pd.DataFrame,
    labelled: pd.Series,
    direction: dict[str, bool],
    n_boot: int,
    seed: int,
) -> list[dict[str, Any]]:
    """AUROC with bootstrap interval, oriented by each metric's direction, on all labelled cases."""
    from assay.calibrate import auroc_ci

    rows: list[dict[str, Any]] = []
    for metric in candidates:
        scores = metric_rows(results, metric, labelled.index)
        ok = (scores["status"] == "ok") & scores["value"].notna()
        if not ok.any():
            continue
        sign = 1.0 if direction.get(metric, True) else -1.0
        y = labelled[ok.to_numpy()].to_numpy()
        row: dict[str, Any] = {"metric": metric, "n_labelled": int(ok.sum())}
        try:
            row.update(
                auroc_ci(sign * scores.loc[ok, "value"].astype(float), y, n_boot=n_boot, seed=seed)
            )
        except InvalidInputError:
            row.update({"auroc": None, "ci_low": None, "ci_high": None,
                        "problem": _label_problem(y)})  # fmt: skip
        row["valid"] = bool(row.get("ci_low") is not None and row["ci_low"] > 0.5)
        rows.append(row)
    return rows


def _label_problem(y: np.ndarray) -> str:
    """Why labels cannot measure a metric, in a validator's words."""
    if len(set(y.tolist())) < 2:
        kind = "PASS" if len(y) and y[0] == 1 else "FAIL"
        return (
            f"all {len(y)} labels are {kind}: a metric's agreement with humans needs labelled "
            "cases of both kinds"
        )
    return f"too few labels ({len(y)}) to measure the metric's agreement with humans"


def compare_combination(
    metrics: list[str],
    results: pd.DataFrame,
    labelled: pd.Series,
    direction: dict[str, bool],
    calibration: CalibrationSection,
    seed: int,
) -> dict[str, Any] | None:
    """Validity row of the valid metrics combined (logistic), decisive only when its out-of-fold
    AUROC beats the best single metric's with a paired bootstrap interval above 0."""
    from assay.calibrate import compare_combined

    values, ok, _ = score_matrix(results, metrics, labelled.index)
    y = labelled[ok.to_numpy()]
    if len(y) < 20 or y.nunique() < 2 or y.value_counts().min() < 5:
        return None
    report = compare_combined(
        values[ok].to_numpy(),
        y.to_numpy(),
        metrics,
        method="logistic",
        higher_is_better=[direction.get(m, True) for m in metrics],
        n_boot=calibration.n_boot,
        seed=seed,
    )
    low, high = report["difference_ci"]
    return {
        "metric": "+".join(metrics),
        "n_labelled": len(y),
        "auroc": report["combined_auroc"],
        "ci_low": None,
        "ci_high": None,
        "problem": f"out of fold; minus best single {low:+.3f} to {high:+.3f}",
        "valid": bool(report["combined_is_better"]),
    }


def calibration_problem(labels: list[int], metric: str) -> str | None:
    """Why a calibrator cannot be fit on these labels, in a validator's words (None: it can).

    Example:
        >>> calibration_problem([0, 0, 0], "token_f1")  # doctest: +ELLIPSIS
        'all 3 labelled cases with a token_f1 score are FAIL: ...'
    """
    if len(labels) < 2:
        return (
            f"only {len(labels)} labelled case has a {metric} score: learning what its scores mean "
            "needs labelled cases of both kinds"
        )
    if len(set(labels)) < 2:
        kind = "PASS" if labels[0] == 1 else "FAIL"
        return (
            f"all {len(labels)} labelled cases with a {metric} score are {kind}: learning what "
            f"its scores mean needs labelled cases of both kinds"
        )
    return None


def design_weight(record: LabelRecord, model: str, rounds: Mapping[int, DesignRound]) -> float:
    """The weighted-conformal weight of a design label of a unit of system ``model``: how much
    likelier a uniform draw would have chosen it than its design did (1 for ``uniform`` /
    ``random``)."""
    if record.design != ACTIVE or record.round is None or not record.probability:
        return 1.0
    rnd = rounds.get(record.round)
    size = rnd.pool_sizes.get(model) if rnd is not None else None
    return 1.0 / (record.probability * size) if size else 1.0


def weighted_conformal_quantile(
    nonconformity: np.ndarray, weights: np.ndarray, alpha: float, test_weight: float
) -> float:
    """The weighted split-conformal quantile (Tibshirani et al. 2019): the least score whose
    weighted share, with the test point's weight at +∞, reaches ``1 − alpha``.

    With equal weights it is the usual ⌈(n + 1)(1 − α)⌉-th smallest score.

    Example:
        >>> weighted_conformal_quantile(np.array([0.1, 0.2, 0.3, 0.4]), np.ones(4), 0.5, 1.0)
        0.3
        >>> weighted_conformal_quantile(np.array([0.1, 0.2]), np.ones(2), 0.1, 1.0)
        inf
    """
    order = np.argsort(nonconformity, kind="stable")
    scores, w = nonconformity[order], weights[order]
    share = np.cumsum(w) / (w.sum() + test_weight)
    reached = np.flatnonzero(share >= 1.0 - alpha - 1e-12)
    return float(scores[reached[0]]) if len(reached) else float("inf")


#: Fits of the design bound's calibrator kept for reuse (the most recent): the bound asks for
#: the whole labels' fit a few times in a row and each fold's fit once, so one is enough (each
#: more held 1.1 MB at 200,000 cases through every system's bound, tracemalloc).
FITS_KEPT = 1


def calibrator_fit_predict(
    values: pd.DataFrame, ok: pd.Series, method: str, metrics: list[str], higher: list[bool]
) -> FitPredict:
    """The ``fit_predict`` callable of a check's deciding metric for the design bound.

    Fits a fresh calibrator on the labelled units among ``train`` that have scores and returns
    P(PASS) for every scored unit; labels of one kind only give that constant rate (the machine
    then adds nothing, and λ falls to 0).
    """
    from assay.calibrate import make_calibrator

    positions = _Positions(ok[ok].index)  # a scored unit's row of x_all
    x_all = values.loc[ok].to_numpy()
    # the latest fits only (FITS_KEPT): each is P(PASS) of every scored unit
    cache: OrderedDict[bytes, _Predictions] = OrderedDict()

    def fit_predict(train: dict[Key, int]) -> Mapping[Key, float]:
        key = _labels_digest(train)
        if key in cache:
            cache.move_to_end(key)
        else:
            if len(cache) == FITS_KEPT:
                cache.popitem(last=False)
            use = [k for k in train if k in positions]
            y = [train[k] for k in use]
            if len(set(y)) < 2:
                rate = float(np.mean(y)) if y else 0.5
                cache[key] = _Predictions(positions, np.full(len(positions), rate))
            else:
                calibrator = make_calibrator(method, metrics=metrics, higher_is_better=higher)
                calibrator.fit(x_all[[positions[k] for k in use]], y)
                cache[key] = _Predictions(positions, calibrator.predict_pass_proba(x_all))
        return cache[key]

    return fit_predict


#: Labels hashed at a time by :func:`_labels_digest`.
_DIGEST_SLICE = 10_000


def _labels_digest(train: Mapping[Key, int]) -> bytes:
    """The sha256 of training labels in key order, hashed a slice at a time.

    A digest, not their frozenset (~60 MB at 420,000 labels, kept for every fit of the
    assessment); by slices, not the text of every sorted label at once (~60 MB at 510,000 labels
    while it was built, at each fit of each system's bound).

    Example:
        >>> _labels_digest({("q2", "m"): 0, ("q1", "m"): 1}) == _labels_digest(
        ...     {("q1", "m"): 1, ("q2", "m"): 0})
        True
        >>> _labels_digest({("q1", "m"): 1}) == _labels_digest({("q1", "m"): 0})
        False
    """
    digest = hashlib.sha256()
    ordered = sorted(train)
    for start in range(0, len(ordered), _DIGEST_SLICE):
        labels = [(key, train[key]) for key in ordered[start : start + _DIGEST_SLICE]]
        digest.update(repr(labels).encode())
    return digest.digest()


class _Positions(Mapping[Key, int]):
    """(case id, system) → its row among the scored units: one dict of the distinct case ids
    to their code and a (system × case code) table of rows.

    A dict per system of every unit held ~55 MB at a million units (an entry and an int object
    per unit, with the ids as an object array beside them); the distinct ids are a third of the
    units when three systems answer each case. Built from the index's codes, not by iterating it.
    """

    def __init__(self, keys: pd.MultiIndex) -> None:
        case_ids = keys.levels[0].to_numpy(dtype=object).tolist()
        systems = keys.levels[1].to_numpy(dtype=object).tolist()
        self._case_code = dict(zip(case_ids, range(len(case_ids)), strict=True))
        self._system_code = dict(zip(systems, range(len(systems)), strict=True))
        self._case_ids, self._systems = case_ids, systems
        self._codes = (np.asarray(keys.codes[0]), np.asarray(keys.codes[1]))
        self._rows = np.full((len(systems), len(case_ids)), -1, dtype=np.int32)
        self._rows[self._codes[1], self._codes[0]] = np.arange(len(keys), dtype=np.int32)

    def __getitem__(self, key: Key) -> int:
        row = int(self._rows[self._system_code[key[1]], self._case_code[key[0]]])
        if row < 0:
            raise KeyError(key)
        return row

    def __contains__(self, key: object) -> bool:
        if not (isinstance(key, tuple) and len(key) == 2):
            return False
        system, case = self._system_code.get(key[1]), self._case_code.get(key[0])
        return system is not None and case is not None and bool(self._rows[system, case] >= 0)

    def __iter__(self) -> Iterator[Key]:
        case_ids, systems = self._case_ids, self._systems
        for case, system in zip(self._codes[0].tolist(), self._codes[1].tolist(), strict=True):
            yield case_ids[case], systems[system]

    def __len__(self) -> int:
        return len(self._codes[0])


class _Predictions(Mapping[Key, float]):
    """P(PASS) of each scored unit: one array over positions shared by every fit (a dict of
    floats per fit took ~100 bytes a unit)."""

    def __init__(self, positions: _Positions, p: np.ndarray) -> None:
        self._positions = positions
        self._p = p

    def __getitem__(self, key: Key) -> float:
        return float(self._p[self._positions[key]])

    def __iter__(self) -> Iterator[Key]:
        return iter(self._positions)

    def __len__(self) -> int:
        return len(self._positions)


def curve_data(calibrator: Any, metric: str, table: pd.DataFrame, higher: bool) -> dict[str, Any]:
    """Calibration curve on a score grid with its conformal regions, and scores by human label."""
    scored = table[table["score"].notna()]
    lo, hi = float(scored["score"].min()), float(scored["score"].max())
    if hi <= lo:
        hi = lo + 1.0
    grid = np.linspace(lo, hi, 101)
    p = calibrator.predict_pass_proba(grid[:, None])
    regions: list[str]
    if calibrator.conformal_ is not None:
        sets = calibrator.predict_set(grid[:, None])
        in_pass, in_fail = sets[:, PASS_COLUMN], sets[:, 1 - PASS_COLUMN]
        regions = np.where(
            in_pass & ~in_fail, "PASS", np.where(in_fail & ~in_pass, "FAIL", "REVIEW")
        ).tolist()
    else:
        regions = ["REVIEW"] * len(grid)
    labelled = scored[scored["label"].notna()]
    return {
        "metric": metric,
        "higher_is_better": higher,
        "grid": grid.tolist(),
        "p_pass": [float(v) for v in p],
        "region": regions,
        "scores_pass": labelled.loc[labelled["label"] == 1, "score"].tolist(),
        "scores_fail": labelled.loc[labelled["label"] == 0, "score"].tolist(),
    }
