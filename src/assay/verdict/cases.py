"""Per-case verdicts of one check: human labels first, then calibrated conformal sets (HCAT §5).

For a check with a human ``label``:

1. The labelled cases are split by question (a question's perturbed variants and its answers by
   every model stay together) into a *calibration* part and a *test* part; the calibration part is
   split again into a *fit* half (the calibrator learns P(human PASS | metric)) and a *conformal*
   half (the split-conformal quantile). The test part is never used to fit anything: it measures
   the calibration (ECE, conformal coverage) and rectifies the predictions in the rate bound.
2. The deciding metric is the candidate whose AUROC against the labels (all labelled cases) has a
   bootstrap interval above 0.5 in the metric's declared direction, the largest AUROC first
   (metric validity gate). None valid: the check cannot be decided by a metric.
3. Labelled cases keep their human verdict. Every other case gets its conformal prediction set:
   {PASS} → PASS, {FAIL} → FAIL, both or none → REVIEW. A case whose metric errored is UNMEASURED;
   one the metric skipped as not applicable is out of the check's scope.

Without a ``label`` (rule-based checks: leaks, toxicity, attack success) a case PASSes when every
listed metric passes its threshold; the verdict says *uncalibrated*.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from assay.errors import InvalidInputError
from assay.verdict.labels import Key
from assay.verdict.plan import CalibrationSection, Check

PASS, FAIL, REVIEW, UNMEASURED = "PASS", "FAIL", "REVIEW", "UNMEASURED"
HUMAN, CALIBRATED, RULE = "human", "calibrated", "rule"
#: Column of PASS in a binary calibrator's probabilities and sets (classes FAIL, PASS).
_PASS_COLUMN = 1


@dataclass
class CaseVerdicts:
    """Per-case verdicts of one check, with what the calibration step measured.

    Attributes:
        table: one row per in-scope (case, model): ``case_id``, ``model``, ``verdict``,
            ``source`` (human / calibrated / rule), ``predicted`` (the machine's verdict, also for
            labelled cases), ``label`` (1 / 0 / NaN), ``split`` (fit / conformal / test / none),
            ``score`` and ``p_pass``.
        metric: the deciding metric (None when no candidate was usable).
        calibrated: whether verdicts come from calibration to human labels.
        reason: why the check cannot be decided by a metric, when it cannot.
        validity: AUROC with interval per candidate metric, ECE and coverage on the test split.
        curve: data for the calibration-curve and score-distribution drawings.
    """

    table: pd.DataFrame
    metric: str | None
    calibrated: bool
    reason: str | None = None
    validity: list[dict[str, Any]] = field(default_factory=list)
    curve: dict[str, Any] = field(default_factory=dict)


def _split_groups(groups: pd.Series, fraction: float, seed: int) -> pd.Series:
    """Assign each group to ``calib`` (a ``fraction`` of groups) or ``test``, reproducibly."""
    unique = np.array(sorted(groups.unique()))
    rng = np.random.default_rng(seed)
    chosen = set(rng.permutation(unique)[: max(1, round(fraction * len(unique)))].tolist())
    return groups.map(lambda g: "calib" if g in chosen else "test")


def _metric_rows(results: pd.DataFrame, metric: str, keys: pd.MultiIndex) -> pd.DataFrame:
    rows = results[results["metric"] == metric].set_index(["case_id", "model"])
    rows = rows[~rows.index.duplicated(keep="last")].reindex(keys)
    rows.attrs["metric"] = metric
    return rows


def _status_verdicts(
    rows: pd.DataFrame, threshold: float | None, higher: bool, skipped_unmeasured: bool = False
) -> pd.Series:
    """Rule verdict of one metric per case: PASS / FAIL / UNMEASURED / None (not applicable).

    ``threshold`` (the check's) overrides the evaluator's per-case ``passed``. A skipped case is
    not applicable, or UNMEASURED with ``skipped_unmeasured``; any other status but ``ok`` is
    UNMEASURED.
    """
    status = rows["status"].astype(object)
    if threshold is not None:
        value = rows["value"].astype(float)
        passed = (value >= threshold) if higher else (value <= threshold)
        passed = passed.astype(object).where(value.notna(), None)
    else:
        passed = rows["passed"].astype(object)
    out = pd.Series(None, index=rows.index, dtype=object)
    ok = status == "ok"
    out[status.notna() & ~ok & (skipped_unmeasured | (status != "skipped"))] = UNMEASURED
    out[ok & (passed == True)] = PASS  # noqa: E712 — object column holding True / False / None
    out[ok & (passed == False)] = FAIL  # noqa: E712
    if (ok & passed.isna()).any():
        raise InvalidInputError(
            f"metric {rows.attrs.get('metric')!r} has no threshold: give the check a 'threshold' "
            "or set it in [run.thresholds]"
        )
    return out


def rule_verdicts(
    check: Check, results: pd.DataFrame, keys: pd.MultiIndex, direction: dict[str, bool]
) -> CaseVerdicts:
    """A case PASSes when every metric passes; a FAIL fails it; an error leaves it unmeasured."""
    present = [m for m in check.metrics if (results["metric"] == m).any()]
    if not present:
        empty = pd.DataFrame(columns=["case_id", "model", "verdict", "source", "predicted"])
        return CaseVerdicts(empty, None, False, f"none of {check.metrics} was measured")
    per_metric = pd.concat(
        {
            m: _status_verdicts(
                _metric_rows(results, m, keys),
                check.threshold,
                direction.get(m, True),
                check.skipped == "unmeasured",
            )
            for m in present
        },
        axis=1,
    )

    def combine(row: pd.Series) -> str | None:
        # Not applicable is None or, once pandas has filled the column, NaN: never a PASS.
        values = [v for v in row.tolist() if isinstance(v, str)]
        if not values:
            return None
        if FAIL in values:
            return FAIL
        if UNMEASURED in values:
            return UNMEASURED
        return PASS

    verdict = per_metric.apply(combine, axis=1)
    table = verdict.rename("verdict").to_frame()
    table = table[table["verdict"].notna()].reset_index()
    table["predicted"] = table["verdict"]
    table["source"] = RULE
    table["label"] = np.nan
    table["split"] = "none"
    return CaseVerdicts(table, ",".join(present), False)


def _validity(
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
        scores = _metric_rows(results, metric, labelled.index)
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
        except InvalidInputError as exc:
            row.update({"auroc": None, "ci_low": None, "ci_high": None, "problem": str(exc)})
        row["valid"] = bool(row.get("ci_low") is not None and row["ci_low"] > 0.5)
        rows.append(row)
    return rows


def calibrated_verdicts(
    check: Check,
    results: pd.DataFrame,
    keys: pd.MultiIndex,
    groups: pd.Series,
    labels: dict[Key, int],
    direction: dict[str, bool],
    calibration: CalibrationSection,
    fraction: float,
    seed: int,
) -> CaseVerdicts:
    """Per-case verdicts of a labelled check (see the module docstring)."""
    from assay.calibrate import expected_calibration_error, make_calibrator

    present = [m for m in check.metrics if (results["metric"] == m).any()]
    labelled_keys = [k for k in keys if k in labels]
    labelled = pd.Series(
        [labels[k] for k in labelled_keys],
        index=pd.MultiIndex.from_tuples(labelled_keys, names=["case_id", "model"]),
        dtype=np.int64,
    )
    if not present:
        return _labels_only(keys, labelled, f"none of {check.metrics} was measured")
    validity = _validity(present, results, labelled, direction, calibration.n_boot, seed)
    valid = sorted((v for v in validity if v["valid"]), key=lambda v: -v["auroc"])
    if not valid:
        shown = "; ".join(
            f"{v['metric']} AUROC {v['auroc']:.2f} [{v['ci_low']:.2f}, {v['ci_high']:.2f}]"
            if v.get("auroc") is not None
            else f"{v['metric']}: {v.get('problem')}"
            for v in validity
        )
        reason = (
            f"no metric separates human PASS from FAIL on {len(labelled)} labels "
            f"(AUROC interval must lie above 0.5): {shown or 'no labelled case was scored'}"
        )
        result = _labels_only(keys, labelled, reason)
        result.validity = validity
        return result
    chosen = [valid[0]["metric"]]
    if len(valid) >= 2:
        combined = _compare_combination(
            [v["metric"] for v in valid], results, labelled, direction, calibration, seed
        )
        if combined is not None:
            validity.append(combined)
            if combined["valid"]:
                chosen = combined["metric"].split("+")
    metric = "+".join(chosen)
    values, ok, skipped = _score_matrix(results, chosen, keys)
    split = pd.Series("none", index=keys, dtype=object)
    part = _split_groups(groups.loc[labelled.index], fraction, seed)
    calib_keys = part[part == "calib"].index
    half = _split_groups(groups.loc[calib_keys], 0.5, seed + 1)
    split.loc[half[half == "calib"].index] = "fit"
    split.loc[half[half == "test"].index] = "conformal"
    split.loc[part[part == "test"].index] = "test"

    score = values[chosen[0]].where(ok)
    fit = (split == "fit") & ok
    conf = (split == "conformal") & ok
    calibrator = make_calibrator(
        calibration.method if len(chosen) == 1 else "logistic",
        metrics=chosen,
        higher_is_better=[direction.get(m, True) for m in chosen],
    )
    try:
        calibrator.fit(values[fit].to_numpy(), labelled.loc[fit[fit].index].tolist())
        calibrator.conformalize(
            values[conf].to_numpy(),
            labelled.loc[conf[conf].index].tolist(),
            alpha=1.0 - calibration.confidence,
        )
    except Exception as exc:  # any calibration failure makes the check undecidable
        reason = f"cannot calibrate {metric} on {int(fit.sum())} + {int(conf.sum())} labels: {exc}"
        result = _labels_only(keys, labelled, reason)
        result.validity = validity
        return result

    p_pass = pd.Series(np.nan, index=keys)
    predicted = pd.Series(UNMEASURED, index=keys, dtype=object)
    if check.skipped == "out_of_scope":
        predicted[skipped] = None
    if ok.any():
        x = values[ok].to_numpy()
        p_pass[ok] = calibrator.predict_pass_proba(x)
        sets = calibrator.predict_set(x)
        in_pass, in_fail = sets[:, _PASS_COLUMN], sets[:, 1 - _PASS_COLUMN]
        predicted[ok] = np.where(
            in_pass & ~in_fail, PASS, np.where(in_fail & ~in_pass, FAIL, REVIEW)
        )
    table = pd.DataFrame(
        {"predicted": predicted, "score": score, "p_pass": p_pass, "split": split},
        index=keys,
    )
    table["label"] = labelled.reindex(keys).astype(float)
    is_labelled = table["label"].notna()
    table["verdict"] = table["predicted"].where(
        ~is_labelled, table["label"].map({1.0: PASS, 0.0: FAIL})
    )
    table["source"] = np.where(is_labelled, HUMAN, CALIBRATED)
    table = table[table["verdict"].notna()].reset_index()

    test = table[(table["split"] == "test") & table["p_pass"].notna()]
    validity_row = next(v for v in validity if v["metric"] == metric)
    if len(test) and test["label"].nunique() == 2:
        validity_row["ece_test"] = expected_calibration_error(test["p_pass"], test["label"])
    if len(test):
        covered = (test["predicted"] == REVIEW) | (
            test["predicted"] == test["label"].map({1.0: PASS, 0.0: FAIL})
        )
        validity_row["coverage_test"] = float(covered.mean())
        validity_row["n_test"] = len(test)
    unlabelled = table[table["source"] == CALIBRATED]
    validity_row["review_share"] = (
        float((unlabelled["verdict"] == REVIEW).mean()) if len(unlabelled) else 0.0
    )
    validity_row["conformal_confidence"] = calibration.confidence
    # drawings only for a single deciding metric (a combination has no one score axis)
    curve = (
        _curve_data(calibrator, metric, table, direction.get(metric, True))
        if len(chosen) == 1
        else {}
    )
    return CaseVerdicts(table, metric, True, None, validity, curve)


def _score_matrix(
    results: pd.DataFrame, metrics: list[str], keys: pd.MultiIndex
) -> tuple[pd.DataFrame, pd.Series, pd.Series]:
    """Scores of ``metrics`` per case, whether all were measured, and whether any was skipped."""
    rows = {m: _metric_rows(results, m, keys) for m in metrics}
    values = pd.DataFrame({m: r["value"].astype(float) for m, r in rows.items()}, index=keys)
    status = pd.DataFrame({m: r["status"] for m, r in rows.items()}, index=keys)
    ok = (status == "ok").all(axis=1) & values.notna().all(axis=1)
    skipped = (status == "skipped").any(axis=1) & ~ok
    return values, ok, skipped


def _compare_combination(
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

    values, ok, _ = _score_matrix(results, metrics, labelled.index)
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


def _labels_only(keys: pd.MultiIndex, labelled: pd.Series, reason: str) -> CaseVerdicts:
    """Only the human-labelled cases have a verdict; the check cannot use a metric."""
    table = pd.DataFrame({"label": labelled.astype(float)})
    table["verdict"] = table["label"].map({1.0: PASS, 0.0: FAIL})
    table["predicted"] = None
    table["source"] = HUMAN
    table["split"] = "none"
    return CaseVerdicts(table.reset_index(), None, False, reason)


def _curve_data(calibrator: Any, metric: str, table: pd.DataFrame, higher: bool) -> dict[str, Any]:
    """Calibration curve on a score grid with its conformal regions, and scores by human label."""
    scored = table[table["score"].notna()]
    lo, hi = float(scored["score"].min()), float(scored["score"].max())
    if hi <= lo:
        hi = lo + 1.0
    grid = np.linspace(lo, hi, 101)
    p = calibrator.predict_pass_proba(grid[:, None])
    sets = calibrator.predict_set(grid[:, None])
    in_pass, in_fail = sets[:, _PASS_COLUMN], sets[:, 1 - _PASS_COLUMN]
    region = np.where(in_pass & ~in_fail, PASS, np.where(in_fail & ~in_pass, FAIL, REVIEW))
    labelled = scored[scored["label"].notna()]
    return {
        "metric": metric,
        "higher_is_better": higher,
        "grid": grid.tolist(),
        "p_pass": [float(v) for v in p],
        "region": region.tolist(),
        "scores_pass": labelled.loc[labelled["label"] == 1, "score"].tolist(),
        "scores_fail": labelled.loc[labelled["label"] == 0, "score"].tolist(),
    }
