"""Several valid metrics decide together only when their combination beats the best one."""

from __future__ import annotations

import numpy as np
import pandas as pd

from assay.verdict.cases import calibrated_verdicts
from assay.verdict.design import RANDOM, LabelRecord
from assay.verdict.plan import CalibrationSection, Check


def _verdicts(values: dict[str, np.ndarray], y: np.ndarray):  # type: ignore[no-untyped-def]
    n = len(y)
    ids = [f"c{i}" for i in range(n)]
    results = pd.concat(
        pd.DataFrame(
            {
                "case_id": ids,
                "model": "m",
                "metric": name,
                "status": "ok",
                "value": v,
                "passed": None,
            }
        )
        for name, v in values.items()
    )
    keys = pd.MultiIndex.from_arrays([ids, ["m"] * n], names=["case_id", "model"])
    labelled = {  # half the cases labelled, a declared random sample
        (ids[i], "m"): LabelRecord("ok", int(y[i]), RANDOM, "file", 1)
        for i in range(0, n, 2)
    }
    check = Check(dimension="qa", name="c", label="ok", metrics=list(values), min_pass_rate=0.5)
    return calibrated_verdicts(
        check,
        results,
        keys,
        pd.Series(ids, index=keys),
        labelled,
        [],
        dict.fromkeys(values, True),
        CalibrationSection(n_boot=200),
        0.5,
        0,
    )


def test_two_halves_of_the_signal_are_combined() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.random(600), rng.random(600)
    cv = _verdicts({"a": a, "b": b}, (a + b > 1).astype(int))
    assert cv.metric is not None and set(cv.metric.split("+")) == {"a", "b"}
    row = next(v for v in cv.validity if v["metric"] == cv.metric)
    assert row["valid"] and row["auroc"] > 0.95
    assert cv.curve == {}  # no single score axis to draw


def test_a_redundant_second_metric_is_not_combined() -> None:
    rng = np.random.default_rng(1)
    a = rng.random(600)
    y = (a + 0.2 * rng.standard_normal(600) > 0.5).astype(int)
    cv = _verdicts({"a": a, "b": a + 0.001 * rng.standard_normal(600)}, y)
    assert cv.metric in ("a", "b") and cv.curve
