"""Per-case verdicts of one check: human labels first, then calibrated conformal sets (HCAT §5).

For a check with a human ``label`` (design note 0063):

1. The deciding metric is the candidate whose AUROC against the labels (all labelled cases) has a
   bootstrap interval above 0.5 in the metric's declared direction, the largest AUROC first
   (metric validity gate).
2. The labels drawn by a design (``uniform``, ``active``, ``random``) are split by question (a
   question's perturbed variants and its answers by every model stay together) into a *fit*, a
   *conformal* and a *test* part. The calibrator (P(human PASS | metric)) is fit on the fit part
   plus every ``unknown``-design label (hand-picked and REVIEW labels may teach it); the
   conformal quantile comes from the conformal part only, weighted for ``active`` draws
   (weighted split-conformal, Tibshirani et al. 2019); the test part measures ECE and coverage.
   Without design labels no conformal set is valid: unlabelled cases go to REVIEW.
3. Labelled cases keep their human verdict. Every other case gets its conformal prediction set:
   {PASS} → PASS, {FAIL} → FAIL, both or none → REVIEW. A case whose metric errored is UNMEASURED;
   one the metric skipped as not applicable is out of the check's scope (listed, not counted).
4. When no metric can decide (none measured, none valid, calibration impossible) the labels
   decide alone: unlabelled cases are REVIEW, and the bound is the design bound with λ = 0 and
   the census of the labels (issue 49).

Without a ``label`` (rule-based checks: leaks, toxicity, attack success) a case PASSes when every
listed metric passes its threshold; the verdict says *uncalibrated*.

Every table row carries ``state`` (human, calibrated, REVIEW, unmeasured, rule) and a ``reason``;
:attr:`CaseVerdicts.excluded` lists the cases of the scope left out, with why.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from assay.errors import InvalidInputError
from assay.verdict.calibration import (
    PASS_COLUMN,
    calibration_problem,
    calibrator_fit_predict,
    compare_combination,
    curve_data,
    design_weight,
    metric_rows,
    score_matrix,
    validity,
    weighted_conformal_quantile,
)
from assay.verdict.design import (
    PROBABILITY_DESIGNS,
    DesignRound,
    Key,
    LabelRecord,
    row_keys,
    unit_keys,
)
from assay.verdict.estimate import FitPredict
from assay.verdict.plan import CalibrationSection, Check

PASS, FAIL, REVIEW, UNMEASURED = "PASS", "FAIL", "REVIEW", "UNMEASURED"
HUMAN, CALIBRATED, RULE, UNLABELLED = "human", "calibrated", "rule", "unlabelled"
#: States of a case in a check (``state`` column); out-of-scope cases are in ``excluded``.
STATE_UNMEASURED, STATE_OUT = "unmeasured", "out of scope"
#: Columns every verdict table has.
COLUMNS = ["case_id", "model", "verdict", "source", "state", "reason", "predicted", "label",
           "split", "score", "p_pass", "design", "round", "probability"]  # fmt: skip


@dataclass
class CaseVerdicts:
    """Per-case verdicts of one check, with what the calibration step measured.

    Attributes:
        table: one row per counted in-scope (case, model): :data:`COLUMNS` (``verdict``,
            ``source`` human / calibrated / rule, ``state``, ``reason``, ``predicted`` — the
            machine's verdict, also for labelled cases —, ``label`` 1 / 0 / NaN, ``split``,
            ``score``, ``p_pass``, and the label's ``design``, ``round``, ``probability``);
            rule checks add ``failed_metric``, ``value``, ``threshold``.
        metric: the deciding metric (None when no candidate was usable).
        calibrated: whether verdicts come from calibration to human labels.
        reason: why the check cannot be decided by a metric, when it cannot.
        validity: AUROC with interval per candidate metric, ECE and coverage on the test split.
        curve: data for the calibration-curve and score-distribution drawings.
        excluded: cases of the check's scope left out of it (``case_id``, ``model``, ``state``,
            ``reason``).
        records: the labels of the check's criterion with their designs (every system).
        rounds: the design rounds drawn for the criterion.
        fit_predict: the deciding metric's calibrator as the design bound cross-fits it.
        threshold: the threshold a rule check applied (None: the evaluators' own, or several).
    """

    table: pd.DataFrame
    metric: str | None
    calibrated: bool
    reason: str | None = None
    validity: list[dict[str, Any]] = field(default_factory=list)
    curve: dict[str, Any] = field(default_factory=dict)
    excluded: pd.DataFrame = field(
        default_factory=lambda: pd.DataFrame(columns=["case_id", "model", "state", "reason"])
    )
    records: dict[Key, LabelRecord] = field(default_factory=dict)
    rounds: list[DesignRound] = field(default_factory=list)
    fit_predict: FitPredict | None = None
    threshold: float | None = None


#: Text columns of a verdict table that hold a few distinct texts (states, sources, reasons).
_FEW_TEXTS = ("model", "verdict", "predicted", "source", "state", "reason", "split", "design",
              "failed_metric")  # fmt: skip


def compact_texts(verdicts: CaseVerdicts) -> CaseVerdicts:
    """The verdicts with their few-valued text columns as ``category``: a byte a row, not a
    pointer or an Arrow string (a rule table of a million cases: 150 MB, 80 after), kept through
    every later check, the bounds and the writing. For a table no code writes into again (a
    new text in a category column raises): after overrules are applied.

    Example:
        >>> table = pd.DataFrame({"case_id": ["a", "b"], "verdict": ["PASS", "FAIL"]})
        >>> compact_texts(CaseVerdicts(table, "f1", False)).table.dtypes.astype(str).tolist()
        ['str', 'category']
    """
    table = verdicts.table
    texts = [
        c for c in _FEW_TEXTS if c in table and not isinstance(table[c].dtype, pd.CategoricalDtype)
    ]
    if not texts:
        return verdicts
    return replace(verdicts, table=table.astype(dict.fromkeys(texts, "category")))


def _pick(texts: list[str | None], codes: np.ndarray) -> np.ndarray:
    """``texts[code]`` for each code, as an object array holding the texts themselves (texts
    chosen by ``np.where`` became one new string object per case: ~36 MB at 700,000 cases)."""
    return np.array(texts, dtype=object)[codes]


def _choose(condition: Any, if_true: str, if_false: str) -> np.ndarray:
    """``if_true`` where ``condition`` holds, else ``if_false``, as :func:`_pick` holds them
    (``np.where`` with texts made a fixed-width text array: 140 MB for a million reasons)."""
    return _pick([if_false, if_true], np.asarray(condition, dtype=bool).astype(np.int64))


def _split_groups(groups: pd.Series, fraction: float, seed: int) -> pd.Series:
    """Assign each group to ``calib`` (a ``fraction`` of groups) or ``test``, reproducibly."""
    unique = np.array(sorted(groups.unique()))
    rng = np.random.default_rng(seed)
    chosen = set(rng.permutation(unique)[: max(1, round(fraction * len(unique)))].tolist())
    return groups.map(lambda g: "calib" if g in chosen else "test")


def _excluded(keys: list[Key], reason: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "case_id": [k[0] for k in keys],
            "model": [k[1] for k in keys],
            "state": STATE_OUT,
            "reason": reason,
        }
    )


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


def _used_threshold(rows: pd.DataFrame, threshold: float | None) -> pd.Series:
    if threshold is not None or "threshold" not in rows:
        return pd.Series(threshold, index=rows.index, dtype=float)
    return rows["threshold"].astype(float)


def rule_verdicts(
    check: Check, results: pd.DataFrame, keys: pd.MultiIndex, direction: dict[str, bool]
) -> CaseVerdicts:
    """A case PASSes when every metric passes; a FAIL fails it; an error leaves it unmeasured."""
    present = [m for m in check.metrics if (results["metric"] == m).any()]
    if not present:
        empty = pd.DataFrame(columns=COLUMNS)
        reason = f"none of {check.metrics} was measured"
        excluded = _excluded(list(unit_keys(keys)), reason)
        return CaseVerdicts(empty, None, False, reason, excluded=excluded)
    if not len(keys):  # no case in the check's scope (e.g. attack success, no attack case)
        return CaseVerdicts(pd.DataFrame(columns=COLUMNS), ",".join(present), False)
    rows = {m: metric_rows(results, m, keys) for m in present}
    skipped = check.skipped == "unmeasured"
    per_metric = pd.concat(
        {
            m: _status_verdicts(rows[m], check.threshold, direction.get(m, True), skipped)
            for m in present
        },
        axis=1,
    )

    # Any FAIL fails, else any UNMEASURED, else a PASS passes; not applicable (None, or NaN once
    # pandas filled the column) is never a PASS. Column-wise: a row-wise apply took seconds.
    verdict = pd.Series(None, index=per_metric.index, dtype=object)
    for state in (PASS, UNMEASURED, FAIL):  # the later wins
        verdict[per_metric.eq(state).any(axis=1)] = state
    first_fail = per_metric.eq(FAIL).idxmax(axis=1).where(verdict == FAIL)
    table = verdict.rename("verdict").to_frame()
    table["failed_metric"] = first_fail
    # The failing metric's value and threshold: every ``rows[m]`` is aligned to ``keys``, the
    # table's index, so by position (a label look-up per failing case scanned the index: hours
    # at a million cases).
    value, threshold = np.full(len(table), np.nan), np.full(len(table), np.nan)
    for m in present:
        chosen = (first_fail == m).to_numpy()
        value[chosen] = rows[m]["value"].to_numpy(dtype=float)[chosen]
        threshold[chosen] = _used_threshold(rows[m], check.threshold).to_numpy(dtype=float)[chosen]
    table["value"] = value
    table["threshold"] = threshold
    out_keys = list(unit_keys(table.index[table["verdict"].isna()]))
    table = table[table["verdict"].notna()].reset_index()
    table["predicted"] = table["verdict"]
    table["source"] = RULE
    unmeasured = table["verdict"] == UNMEASURED
    table["state"] = _choose(unmeasured, STATE_UNMEASURED, RULE)
    table["reason"] = _choose(unmeasured, "a metric could not score this case", "")
    for column in ("label", "score", "p_pass", "probability"):
        table[column] = np.nan
    table["split"] = "none"
    table["design"] = None
    table["round"] = None
    used = {float(t) for m in present for t in _used_threshold(rows[m], check.threshold).dropna()}
    return CaseVerdicts(
        table[[*COLUMNS, "failed_metric", "value", "threshold"]],
        ",".join(present),
        False,
        excluded=_excluded(out_keys, f"not applicable: {', '.join(present)} skipped this case"),
        threshold=used.pop() if len(used) == 1 else None,
    )


def _label_columns(table: pd.DataFrame, records: dict[Key, LabelRecord]) -> pd.DataFrame:
    """Add ``design``, ``round`` and ``probability`` of each labelled case (a row with a
    ``label``; only labelled units have a record)."""
    rows = np.flatnonzero(table["label"].notna().to_numpy())
    # the keys' two columns only: the labelled rows of every column were ~60 MB at a million
    found = [records[k] for k in row_keys(table[["case_id", "model"]].iloc[rows])]
    design = np.full(len(table), None, dtype=object)
    number = np.full(len(table), None, dtype=object)
    probability = np.full(len(table), np.nan)
    design[rows] = [r.design for r in found]
    number[rows] = [r.round for r in found]
    probability[rows] = [r.probability if r.probability else np.nan for r in found]
    # as lists: the columns' types inferred as before (``round`` float where every row has one)
    table["design"], table["round"] = design.tolist(), number.tolist()
    table["probability"] = probability
    return table


def _labels_only(
    keys: pd.MultiIndex,
    records: dict[Key, LabelRecord],
    rounds: list[DesignRound],
    reason: str,
    out_of_scope: list[Key] | None = None,
) -> CaseVerdicts:
    """No metric can decide: the labels decide alone; unlabelled cases await a label (REVIEW)."""
    gone = set(out_of_scope or [])
    counted = [k for k in unit_keys(keys) if k not in gone]
    label = [float(records[k].value) if k in records else np.nan for k in counted]
    table = pd.DataFrame(
        {"case_id": [k[0] for k in counted], "model": [k[1] for k in counted], "label": label}
    )
    labelled = table["label"].notna()
    table["verdict"] = table["label"].map({1.0: PASS, 0.0: FAIL}).where(labelled, REVIEW)
    table["source"] = _choose(labelled, HUMAN, UNLABELLED)
    table["state"] = _choose(labelled, HUMAN, REVIEW)
    table["reason"] = _choose(labelled, "", "no metric can decide this check: a label decides it")
    table["predicted"] = None
    table["split"] = "none"
    table["score"] = np.nan
    table["p_pass"] = np.nan
    table = _label_columns(table, records)
    excluded = _excluded(sorted(gone), "not applicable: the check's metrics skipped this case")
    return CaseVerdicts(
        table[COLUMNS], None, False, reason, excluded=excluded, records=records, rounds=rounds
    )


def calibrated_verdicts(
    check: Check,
    results: pd.DataFrame,
    keys: pd.MultiIndex,
    groups: pd.Series,
    records: dict[Key, LabelRecord],
    rounds: list[DesignRound],
    direction: dict[str, bool],
    calibration: CalibrationSection,
    fraction: float,
    seed: int,
) -> CaseVerdicts:
    """Per-case verdicts of a labelled check (see the module docstring).

    Args:
        keys: the check's units (case id, system).
        groups: the question group of each unit, in the order of ``keys``.
        records: the labels of the check's criterion with their designs (any system).
        rounds: the design rounds drawn for the criterion.
    """
    from assay.calibrate import make_calibrator

    present = [m for m in check.metrics if (results["metric"] == m).any()]
    is_labelled = np.fromiter((k in records for k in unit_keys(keys)), dtype=bool, count=len(keys))
    # the labelled units' index is the keys' own (codes, not a tuple per labelled unit)
    labelled = pd.Series(
        np.fromiter(
            (records[k].value for k in unit_keys(keys[is_labelled])),
            dtype=np.int64,
            count=int(is_labelled.sum()),
        ),
        index=keys[is_labelled],
    )
    decided_by_labels = "; the check is decided from its labels alone"
    if not present:
        reason = f"none of {check.metrics} was measured{decided_by_labels}"
        return _labels_only(keys, records, rounds, reason)
    checked = validity(present, results, labelled, direction, calibration.n_boot, seed)
    valid = sorted((v for v in checked if v["valid"]), key=lambda v: -v["auroc"])
    _, _, skipped_all = score_matrix(results, present, keys)
    unscoped = [k for k in unit_keys(keys[skipped_all.to_numpy()]) if k not in records]
    if not valid:
        shown = "; ".join(
            f"{v['metric']} AUROC {v['auroc']:.2f} [{v['ci_low']:.2f}, {v['ci_high']:.2f}]"
            if v.get("auroc") is not None
            else f"{v['metric']}: {v.get('problem')}"
            for v in checked
        )
        reason = (
            f"no metric separates human PASS from FAIL on {len(labelled)} labels "
            f"(AUROC interval must lie above 0.5): {shown or 'no labelled case was scored'}"
            f"{decided_by_labels}"
        )
        result = _labels_only(keys, records, rounds, reason, unscoped)
        result.validity = checked
        return result
    chosen = [valid[0]["metric"]]
    if len(valid) >= 2:
        combined = compare_combination(
            [v["metric"] for v in valid], results, labelled, direction, calibration, seed
        )
        if combined is not None:
            checked.append(combined)
            if combined["valid"]:
                chosen = combined["metric"].split("+")
    metric = "+".join(chosen)
    values, ok, skipped = score_matrix(results, chosen, keys)
    # one label per unit of ``keys`` (NaN: not labelled): the parts below select by position
    label = np.full(len(keys), np.nan)
    label[is_labelled] = labelled.to_numpy()
    split = _splits(keys, is_labelled, records, groups, fraction, seed)
    fit = (split == "fit") & ok
    conf = (split == "conformal") & ok
    method = calibration.method if len(chosen) == 1 else "logistic"
    higher = [direction.get(m, True) for m in chosen]
    calibrator = make_calibrator(method, metrics=chosen, higher_is_better=higher)
    fit_labels = label[fit.to_numpy()].astype(np.int64).tolist()
    problem = calibration_problem(fit_labels, metric)
    if problem is None:
        try:
            calibrator.fit(values[fit].to_numpy(), fit_labels)
        except InvalidInputError as exc:
            problem = f"the labels could not calibrate it ({exc})"
    if problem is not None:
        reason = f"cannot calibrate {metric}: {problem}{decided_by_labels}"
        out = [k for k in unit_keys(keys[skipped.to_numpy()]) if k not in records]
        result = _labels_only(keys, records, rounds, reason, out)
        result.validity = checked
        return result
    by_number = {r.number: r for r in rounds}
    conformal_reason = _conformalize(calibrator, values, label, records, by_number, conf,
                                     1.0 - calibration.confidence)  # fmt: skip

    table, out_keys = _verdict_table(
        keys, values, chosen[0], ok, skipped if check.skipped == "out_of_scope" else None,
        calibrator, conformal_reason, split, label,
    )  # fmt: skip
    del split, label  # in the table now; the rest of the check reads the table
    table = _label_columns(table, records)
    row = next(v for v in checked if v["metric"] == metric)
    _measure(row, table, records, by_number, calibration.confidence)
    curve = curve_data(calibrator, metric, table, higher[0]) if len(chosen) == 1 else {}
    return CaseVerdicts(
        table[COLUMNS],
        metric,
        True,
        None,
        checked,
        curve,
        excluded=_excluded(out_keys, f"not applicable: {metric} skipped this case"),
        records=records,
        rounds=rounds,
        fit_predict=calibrator_fit_predict(values, ok, method, chosen, higher),
    )


def _verdict_table(
    keys: pd.MultiIndex,
    values: pd.DataFrame,
    score_metric: str,
    ok: pd.Series,
    skipped: pd.Series | None,
    calibrator: Any,
    conformal_reason: str | None,
    split: pd.Series,
    label: np.ndarray,
) -> tuple[pd.DataFrame, list[Key]]:
    """A calibrated check's table of counted units (labels first, then conformal sets) and the
    units left out of scope (``skipped``: the units to leave out, None to count them).

    Each column is an array by position (``ok``, ``skipped`` and ``split`` are in the keys'
    order) and the frame is built once, of the counted units only (a Series per column on the
    keys, then a frame of every unit, peaked 9 MiB higher at 200,000 cases). Its own function so
    that its per-unit transients are freed before the check's measures and its cross-fit
    calibrator are built on the table.
    """
    scored = ok.to_numpy()
    leave_out = np.zeros(len(keys), bool) if skipped is None else skipped.to_numpy()
    predicted = _pick([UNMEASURED, None], leave_out.astype(np.int64))
    why = np.full(len(keys), "the deciding metric could not score this case", dtype=object)
    p_pass = np.full(len(keys), np.nan)
    if scored.any():
        x = values[scored].to_numpy()  # as fitted: the rows' memory order moves the last bit
        p_pass[scored] = calibrator.predict_pass_proba(x)
        if conformal_reason is None:
            sets = calibrator.predict_set(x)
            in_pass, in_fail = sets[:, PASS_COLUMN], sets[:, 1 - PASS_COLUMN]
            only = np.where(in_pass & ~in_fail, 2, np.where(in_fail & ~in_pass, 1, 0))
            predicted[scored] = _pick([REVIEW, FAIL, PASS], only)
            both = (only == 0).astype(np.int64)
            why[scored] = _pick(["", "the conformal set holds both verdicts"], both)
        else:
            predicted[scored] = REVIEW
            why[scored] = conformal_reason
    is_labelled = ~np.isnan(label)
    human = _pick([FAIL, PASS, None], np.where(is_labelled, label, 2).astype(np.int64))
    verdict = np.where(is_labelled, human, predicted)
    why[is_labelled] = ""
    counted = pd.notna(verdict)
    out_keys = list(unit_keys(keys[~counted]))
    rows = slice(None) if counted.all() else counted
    columns = {"predicted": predicted,
               "score": np.where(scored, values[score_metric].to_numpy(float), np.nan),
               "p_pass": p_pass, "split": split.to_numpy(), "reason": why, "label": label,
               "verdict": verdict}  # fmt: skip
    del human, predicted, why, verdict, p_pass
    table = keys[rows].to_frame(index=False)
    for name in list(columns):
        column = columns.pop(name)[rows]
        # texts stay ``object``, as the table's readers expect (not pandas' inferred ``str``)
        texts = column.dtype == object
        table[name] = pd.Series(column, dtype=object, copy=False) if texts else column
    table["source"] = _choose(is_labelled[rows], HUMAN, CALIBRATED)
    verdicts = table["verdict"]
    state = np.select(
        [table["source"] == HUMAN, verdicts == REVIEW, verdicts == UNMEASURED], [1, 2, 3], 0
    )
    table["state"] = _pick([CALIBRATED, HUMAN, REVIEW, STATE_UNMEASURED], state)
    return table, out_keys


def _splits(
    keys: pd.MultiIndex,
    is_labelled: np.ndarray,
    records: dict[Key, LabelRecord],
    groups: pd.Series,
    fraction: float,
    seed: int,
) -> pd.Series:
    """fit / conformal / test for design labels (split by question), fit for the others.

    ``is_labelled`` marks the labelled units among ``keys`` and ``groups`` holds their question
    groups, both in the keys' order: the parts are set by position (a ``.loc`` by key tuples
    built a hash table of every key, cached on the index for as long as the assessment held it).
    """
    split = np.full(len(keys), "none", dtype=object)
    position = np.flatnonzero(is_labelled)
    design = np.fromiter(
        (records[k].design in PROBABILITY_DESIGNS for k in unit_keys(keys[is_labelled])),
        dtype=bool,
        count=len(position),
    )
    split[position[~design]] = "fit"
    if design.any():
        drawn = position[design]
        group = pd.Series(groups.iloc[drawn].to_numpy(), index=drawn)
        part = _split_groups(group, fraction, seed)
        calib = part[part == "calib"].index
        half = _split_groups(group.loc[calib], 0.5, seed + 1)
        split[half[half == "calib"].index] = "fit"
        split[half[half == "test"].index] = "conformal"
        split[part[part == "test"].index] = "test"
    return pd.Series(split, index=keys, dtype=object)


def _conformalize(
    calibrator: Any,
    values: pd.DataFrame,
    label: np.ndarray,
    records: dict[Key, LabelRecord],
    rounds: dict[int, DesignRound],
    conf: pd.Series,
    alpha: float,
) -> str | None:
    """Set the calibrator's conformal quantile from design labels (weighted); or say why not.

    ``label`` holds one label per row of ``values`` and ``conf`` (NaN: not labelled).
    """
    from assay.calibrate.conformal import SplitConformalClassifier, nonconformity_scores

    chosen = conf.to_numpy()
    if not chosen.any():
        return (
            "no label drawn by a design (uniform, active or a declared random sample) is left to "
            "set the conformal threshold: draw a round with `assay labels sample`"
        )
    proba = calibrator.predict_proba(values[chosen].to_numpy())
    codes = label[chosen].astype(np.int64)
    weights = np.fromiter(
        (design_weight(records[k], k[1], rounds) for k in unit_keys(conf.index[chosen])),
        dtype=np.float64,
        count=int(chosen.sum()),
    )
    scores = nonconformity_scores(proba, codes)
    conformal = SplitConformalClassifier(calibrator, alpha=alpha)
    conformal.qhat_ = weighted_conformal_quantile(scores, weights, alpha, float(weights.max()))
    conformal.n_calibration_ = len(codes)
    calibrator.conformal_ = conformal
    return None


def _measure(
    row: dict[str, Any],
    table: pd.DataFrame,
    records: dict[Key, LabelRecord],
    rounds: dict[int, DesignRound],
    confidence: float,
) -> None:
    """ECE and conformal coverage on the test split (design-weighted), and the REVIEW share."""
    from assay.calibrate import expected_calibration_error

    in_test = ((table["split"] == "test") & table["p_pass"].notna()).to_numpy()
    test = table.loc[in_test, ["case_id", "model", "predicted", "label", "p_pass"]]
    if len(test) and test["label"].nunique() == 2:
        row["ece_test"] = expected_calibration_error(test["p_pass"], test["label"])
    if len(test):
        units = zip(test["case_id"], test["model"], strict=True)
        weights = np.array([design_weight(records[(c, m)], m, rounds) for c, m in units])
        covered = (test["predicted"] == REVIEW) | (
            test["predicted"] == test["label"].map({1.0: PASS, 0.0: FAIL})
        )
        row["coverage_test"] = float(np.sum(weights * covered.to_numpy()) / weights.sum())
        row["n_test"] = len(test)
    # a column of the unlabelled rows, not every column (~55 MB at a million cases)
    unlabelled = table["verdict"][(table["source"] == CALIBRATED).to_numpy()]
    row["review_share"] = float((unlabelled == REVIEW).mean()) if len(unlabelled) else 0.0
    row["conformal_confidence"] = confidence
