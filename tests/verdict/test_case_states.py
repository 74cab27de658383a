"""Per-case verdicts of a labelled check: every case counted with its state, conformal sets from
design labels only, calibration problems in words (design note 0063, issue 49)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assay.calibrate.conformal import conformal_quantile
from assay.errors import InvalidInputError
from assay.verdict.calibration import weighted_conformal_quantile
from assay.verdict.cases import REVIEW, calibrated_verdicts, rule_verdicts
from assay.verdict.decide import decide_check
from assay.verdict.design import RANDOM, UNKNOWN, DesignRound, Draw, Key, LabelRecord
from assay.verdict.looks import LookLedger
from assay.verdict.plan import CalibrationSection, Check

N = 300


def _results(rng: np.random.Generator) -> tuple[pd.DataFrame, np.ndarray]:
    score = rng.random(N)
    truth = (rng.random(N) < score).astype(int)
    status = np.array(["ok"] * N, dtype=object)
    status[:6] = "error"  # the metric failed on six cases
    status[6:10] = "skipped"  # and does not apply to four
    frame = pd.DataFrame(
        {
            "case_id": [f"c{i}" for i in range(N)],
            "model": "m",
            "metric": "score",
            "status": status,
            "value": np.where(status == "ok", score, np.nan),
            "passed": None,
        }
    )
    return frame, truth


def _keys() -> pd.MultiIndex:
    return pd.MultiIndex.from_arrays(
        [[f"c{i}" for i in range(N)], ["m"] * N], names=["case_id", "model"]
    )


def _verdicts(records: dict[Key, LabelRecord], rounds: list[DesignRound], results: pd.DataFrame,  # type: ignore[no-untyped-def]
              keys: pd.MultiIndex | None = None):  # fmt: skip
    keys = _keys() if keys is None else keys
    check = Check(dimension="qa", name="ok", label="ok", metrics=["score"], min_pass_rate=0.3)
    groups = pd.Series([f"c{i}" for i in range(N)], index=keys)
    cv = calibrated_verdicts(
        check, results, keys, groups, records, rounds, {"score": True},
        CalibrationSection(n_boot=200), 0.5, 0,
    )  # fmt: skip
    return check, cv


def _random_labels(truth: np.ndarray, ids: range) -> tuple[dict[Key, LabelRecord], DesignRound]:
    records = {
        (f"c{i}", "m"): LabelRecord("ok", int(truth[i]), RANDOM, "file", 1)
        for i in ids
    }
    draws = tuple(Draw(c, m, float("nan")) for c, m in records)
    return records, DesignRound(1, "ok", "all", RANDOM, "", frozenset(), {}, draws)


def test_every_case_in_scope_is_counted_with_its_state() -> None:
    results, truth = _results(np.random.default_rng(0))
    records, rnd = _random_labels(truth, range(10, 130))
    check, cv = _verdicts(records, [rnd], results)
    table = cv.table
    assert set(table["state"]) <= {"human", "calibrated", "REVIEW", "unmeasured"}
    assert (table["state"] == "unmeasured").sum() == 6
    assert list(cv.excluded["state"].unique()) == ["out of scope"] and len(cv.excluded) == 4
    assert len(table) + len(cv.excluded) == N
    human = table[table["state"] == "human"]
    assert len(human) == 120 and set(human["design"]) == {RANDOM} and set(human["round"]) == {1}
    review = table[table["state"] == "REVIEW"]
    assert (review["reason"] != "").all()
    decision = decide_check(check, cv, "m")
    assert decision.n_cases == N - 4 and decision.n_out_of_scope == 4
    assert decision.method == "design-normal" and decision.n_design == 120
    assert decision.lower is not None and decision.lower <= truth[10:].mean() + 0.1


def test_hand_picked_labels_calibrate_but_set_no_conformal_threshold() -> None:
    results, truth = _results(np.random.default_rng(1))
    records = {
        (f"c{i}", "m"): LabelRecord("ok", int(truth[i]), UNKNOWN, "store")
        for i in range(10, 130)
    }
    check, cv = _verdicts(records, [], results)
    assert cv.calibrated and cv.metric == "score"
    machine = cv.table[cv.table["source"] == "calibrated"]
    assert (machine.loc[machine["state"] != "unmeasured", "verdict"] == REVIEW).all()
    assert machine["p_pass"].notna().sum() > 100  # the calibrator still learnt from them
    assert "assay labels sample" in machine["reason"].iloc[-1]
    decision = decide_check(check, cv, "m")
    passes = sum(r.value for r in records.values())
    assert decision.method == "census" and decision.lower == passes / (N - 4)


def test_labels_of_one_kind_are_explained_in_words_and_still_decide() -> None:
    results, _ = _results(np.random.default_rng(2))
    records, rnd = _random_labels(np.zeros(N, dtype=int), range(10, 60))  # every label FAIL
    check, cv = _verdicts(records, [rnd], results)
    assert not cv.calibrated and cv.reason is not None
    assert "IsotonicCalibrator" not in cv.reason and "labels" in cv.reason
    decision = decide_check(check, cv, "m")
    assert decision.decision == "FAIL"  # 50 of 50 random labels FAIL: below 0.3 for sure


def test_weighted_conformal_quantile_with_equal_weights_is_split_conformal() -> None:
    rng = np.random.default_rng(3)
    for n in (5, 19, 100):
        scores = rng.random(n)
        for alpha in (0.05, 0.1, 0.3):
            assert weighted_conformal_quantile(scores, np.ones(n), alpha, 1.0) == (
                conformal_quantile(scores, alpha)
            )


def test_the_ledger_of_looks_persists(tmp_path: Path) -> None:
    ledger = LookLedger(tmp_path)
    assert ledger.look("c", "m", "a") == 1 and ledger.look("c", "m", "b") == 2
    ledger.save()
    again = LookLedger(tmp_path)
    assert again.look("c", "m", "b") == 2 and again.look("c", "m", "c") == 3
    assert json.loads((tmp_path / "looks.json").read_text())["looks"]["c"]["m"] == ["a", "b"]
    (tmp_path / "looks.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(InvalidInputError, match=r"looks\.json"):
        LookLedger(tmp_path)


def test_the_verdicts_leave_no_tuple_per_case_cached_on_the_keys() -> None:
    """Iterating a (case id, system) index caches a tuple per row on it (~150 MB at a million
    units, design note 0065): the verdicts read the keys through ``unit_keys``."""
    results, truth = _results(np.random.default_rng(0))
    records, rnd = _random_labels(truth, range(10, 130))
    keys = _keys()
    _, cv = _verdicts(records, [rnd], results, keys)
    assert len(cv.table) + len(cv.excluded) == N
    assert "_values" not in keys._cache
    rule = Check(dimension="qa", name="ok", metrics=["score"], threshold=0.5, min_pass_rate=0.3)
    assert len(rule_verdicts(rule, results, keys, {"score": True}).table) == N - 4
    assert "_values" not in keys._cache


def test_row_keys_share_one_string_per_system() -> None:
    """A table's keys read as texts share each system's name (an Arrow-backed column read row by
    row made a new string per row, every time a check's keys were read)."""
    from assay.verdict.design import row_keys

    table = pd.DataFrame({"case_id": ["a", "b", "c"], "model": ["m", "m", "n"]})
    keys = list(row_keys(table))
    assert keys == [("a", "m"), ("b", "m"), ("c", "n")]
    assert keys[0][1] is keys[1][1]
