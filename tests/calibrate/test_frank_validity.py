"""A quick version of benchmarks/bench_calibration.py on FRANK's real human labels."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from assay.calibrate import IsotonicCalibrator, expected_calibration_error, separation_report
from assay.calibrate.report import split_three


@pytest.fixture(scope="module")
def frank(shared_data: Path) -> pd.DataFrame:
    root = shared_data / "calibration" / "frank"
    human = pd.DataFrame(json.loads((root / "human_annotations.json").read_text()))
    scores = pd.DataFrame(
        json.loads((root / "baseline_factuality_metrics_outputs.json").read_text())
    )
    frame = human.merge(scores, on=["hash", "model_name"], suffixes=("", "_m"))
    frame["label"] = (frame["Factuality"] == 1).astype(int)
    return frame


@pytest.mark.parametrize("metric", ["BertScore P Art", "QAGS"])
def test_isotonic_coverage_and_ece_on_frank(frank: pd.DataFrame, metric: str) -> None:
    s, y = frank[metric].to_numpy(float), frank["label"].to_numpy()
    coverage, ece = [], []
    for seed in range(15):
        fit, conf, test = split_three(y, (0.5, 0.25, 0.25), seed)
        cal = IsotonicCalibrator().fit(s[fit], y[fit]).conformalize(s[conf], y[conf], 0.1)
        coverage.append(cal.conformal_summary(s[test], y[test])["coverage"])
        ece.append(expected_calibration_error(cal.predict_pass_proba(s[test]), y[test]))
    assert abs(np.mean(coverage) - 0.9) < 0.025
    assert np.mean(ece) < 0.055


def test_frank_separation_verdicts(frank: pd.DataFrame) -> None:
    rows = separation_report(
        frank[["BertScore P Art", "BertScore P"]].to_numpy(float),
        frank["label"],
        ["BertScore P Art", "BertScore P"],
        n_boot=500,
    )
    assert [r["verdict"] for r in rows] == ["separates", "undecidable"]
    assert rows[0]["auroc"] == pytest.approx(0.823, abs=0.005)
