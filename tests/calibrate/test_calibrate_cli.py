"""End to end: evaluate → calibrate → thresholds → evaluate --calibrator (CLI and library)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import assay
from assay.calibrate import IsotonicCalibrator, load_calibrator
from assay.cli.main import cli
from assay.errors import InvalidInputError

WORDS = ["the", "monthly", "fee", "is", "twelve", "euros", "and", "waived", "for", "students"]
FILLER = ["perhaps", "maybe", "banana", "river", "window", "purple", "quietly", "seven"]


def _suite(tmp_path: Path, n: int = 240) -> tuple[Path, Path]:
    """A suite whose token F1 tracks a hidden human label, and the label file (CSV)."""
    rng = np.random.default_rng(0)
    cases, labels = [], []
    for i in range(n):
        good = bool(rng.uniform() < 0.6)
        keep = rng.uniform(size=len(WORDS)) < (0.75 if good else 0.4)
        answer = [w for w, k in zip(WORDS, keep, strict=True) if k]
        answer += list(rng.choice(FILLER, size=rng.integers(0, 5)))
        model = "a" if i % 2 else "b"
        cases.append(
            {
                "id": f"q{i}",
                "model": model,
                "question": "fee?",
                "expected_answer": " ".join(WORDS),
                "actual_answer": " ".join(answer) or "x",
                "labels": {"correct": int(good)},
            }
        )
        labels.append({"id": f"q{i}", "model": model, "label": int(good)})
    suite = tmp_path / "suite.jsonl"
    suite.write_text("\n".join(json.dumps(c) for c in cases) + "\n")
    label_file = tmp_path / "labels.csv"
    pd.DataFrame(labels).to_csv(label_file, index=False)
    return suite, label_file


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_cli_end_to_end(tmp_path: Path) -> None:
    suite, labels = _suite(tmp_path)
    run = tmp_path / "run"
    _invoke("evaluate", str(suite), "-e", "token_f1,exact_match", "--out", str(run))
    out = tmp_path / "cal"
    _invoke(
        "calibrate",
        str(run),
        "--labels",
        str(labels),
        "--metric",
        "token_f1",
        "--out",
        str(out),
        "--n-boot",
        "200",
    )
    report = json.loads((out / "calibration.json").read_text())
    assert report["method"] == "isotonic" and report["n"] == 240
    assert report["separation"][0]["verdict"] == "separates"
    assert sum(report["splits"].values()) == 240
    assert 0 <= report["calibration"]["ece"] <= 0.2
    assert "Conformal prediction sets" in (out / "calibration.md").read_text()
    plot = json.loads((out / "calibration_plot.json").read_text())
    assert plot["reliability"] and plot["roc"]["token_f1"]["fpr"][0] == 0.0
    calibrator = load_calibrator(out / "calibrator.json")
    assert calibrator.metrics == ["token_f1"] and calibrator.alpha == 0.1

    _invoke(
        "thresholds",
        str(run),
        "--labels",
        str(labels),
        "--metric",
        "token_f1",
        "--out",
        str(out),
        "--n-boot",
        "20",
        "--risk",
        "high",
    )
    thresholds = json.loads((out / "thresholds.json").read_text())
    methods = {r["method"] for r in thresholds["thresholds"]}
    assert methods == set(assay.calibrate.METHODS) and not thresholds["failed"]
    assert "| token_f1 | conformal |" in (out / "thresholds.md").read_text()

    run2 = tmp_path / "run2"
    _invoke(
        "evaluate",
        str(suite),
        "-e",
        "token_f1",
        "--out",
        str(run2),
        "--calibrator",
        str(out / "calibrator.json"),
    )
    calibrated = pd.read_parquet(run2 / "calibrated.parquet")
    assert len(calibrated) == 240 and (calibrated["status"] == "ok").all()
    assert calibrated["probability"].between(0, 1).all()
    sets = calibrated["prediction_set"].map(json.loads)
    assert sets.map(lambda s: set(s) <= {"PASS", "FAIL"}).all()
    assert (calibrated["needs_review"] == (sets.map(len) != 1)).all()
    manifest = json.loads((run2 / "manifest.json").read_text())
    (entry,) = manifest["calibrators"]
    assert entry["sha256"] == manifest_hash(out / "calibrator.json")
    assert {"calibrated.parquet", "calibrated.csv"} <= set(manifest["files"])


def manifest_hash(path: Path) -> str:
    from assay.fileio import sha256_file

    return sha256_file(path)


def test_suite_labels_and_monotone(tmp_path: Path) -> None:
    pytest.importorskip("lightgbm")
    suite, _ = _suite(tmp_path)
    run = tmp_path / "run"
    _invoke("evaluate", str(suite), "-e", "token_f1,exact_match", "--out", str(run))
    _invoke(
        "calibrate",
        str(run),
        "--label",
        "correct",
        "--metric",
        "token_f1,exact_match",
        "--n-boot",
        "100",
    )
    report = json.loads((run / "calibration" / "calibration.json").read_text())
    assert report["method"] == "monotone" and report["combined"] is not None
    assert report["labels"] == "suite labels[correct]"


def test_library_hook_checks_metrics_and_skips_unmeasured(tmp_path: Path) -> None:
    cases = [
        assay.TestCase(id=str(i), actual_answer="a b", expected_answer="a b c") for i in range(3)
    ] + [assay.TestCase(id="x", actual_answer="a")]
    cal = IsotonicCalibrator(metrics=["token_f1"]).fit([0.1, 0.3, 0.6, 0.9], [0, 0, 1, 1])
    with pytest.raises(InvalidInputError, match="needs metric"):
        assay.evaluate(cases, ["exact_match"], calibrators=[cal])
    run = assay.evaluate(cases, ["token_f1"], calibrators=[cal], out=tmp_path / "r")
    frame = pd.read_csv(tmp_path / "r" / "calibrated.csv")
    skipped = frame[frame["case_id"] == "x"].iloc[0]
    assert skipped["status"] == "skipped" and "token_f1" in skipped["reason"]
    assert frame["prediction_set"].isna().all()  # not conformalized: no sets, no review flag
    assert run.manifest["calibrators"][0]["file"] is None


def test_demo_suite_labels_end_to_end(tmp_path: Path) -> None:
    from assay.demo import demo_suite_path

    suite = assay.read_suite(demo_suite_path())
    if not any(c.labels.get("correct") is not None for c in suite):
        pytest.skip("the demo suite has no human labels yet")
    run = tmp_path / "demo"
    _invoke("evaluate", str(demo_suite_path()), "-e", "token_f1", "--out", str(run))
    _invoke(
        "calibrate",
        str(run),
        "--label",
        "correct",
        "--metric",
        "token_f1",
        "--method",
        "logistic",
        "--n-boot",
        "200",
    )
    report = json.loads((run / "calibration" / "calibration.json").read_text())
    assert report["n"] == sum(c.labels.get("correct") is not None for c in suite)
    assert report["separation"][0]["verdict"] in ("separates", "undecidable", "inverted")
    _invoke(
        "calibrate",
        str(run),
        "--label",
        "quality",
        "--metric",
        "token_f1",
        "--method",
        "ordinal",
        "--pass-at",
        "4",
        "--n-boot",
        "100",
        "--out",
        str(tmp_path / "ordinal"),
    )
    ordinal = json.loads((tmp_path / "ordinal" / "calibration.json").read_text())
    assert set(ordinal["classes"]) <= {"1", "2", "3", "4", "5"} and len(ordinal["classes"]) >= 3
    assert ordinal["separation"] and "confusion_matrix" in ordinal["calibration"]
    _invoke(
        "thresholds",
        str(run),
        "--label",
        "correct",
        "--metric",
        "token_f1",
        "--method",
        "normal,conformal,kde",
        "--n-boot",
        "20",
    )
    assert (run / "calibration" / "thresholds.md").is_file()


def test_cli_errors_are_clear(tmp_path: Path) -> None:
    suite, labels = _suite(tmp_path, n=40)
    run = tmp_path / "run"
    _invoke("evaluate", str(suite), "-e", "token_f1", "--out", str(run))
    result = CliRunner().invoke(
        cli, ["calibrate", str(run), "--labels", str(labels), "--metric", "nope"]
    )
    assert isinstance(result.exception, InvalidInputError)
    assert "not in the run" in str(result.exception)
    result = CliRunner().invoke(cli, ["calibrate", str(run), "--metric", "token_f1"])
    assert "give --labels FILE" in str(result.exception)


def test_n_boot_is_checked_up_front(tmp_path: Path) -> None:
    """calibrate needs a bootstrap (the separation verdict reads its interval); thresholds
    takes 0 to mean "no threshold intervals"."""
    suite, labels = _suite(tmp_path, n=80)
    run = tmp_path / "run"
    _invoke("evaluate", str(suite), "-e", "token_f1", "--out", str(run))
    args = [str(run), "--labels", str(labels), "--metric", "token_f1", "--n-boot", "0"]
    result = CliRunner().invoke(cli, ["calibrate", *args])
    assert result.exit_code == 2 and result.exception is not None
    assert "--n-boot" in result.output and "0 is not in the range x>=1" in result.output
    assert not (run / "calibration").exists()
    _invoke("thresholds", *args, "--method", "normal,kde")
    report = json.loads((run / "calibration" / "thresholds.json").read_text())
    assert [(r["ci_low"], r["ci_high"]) for r in report["thresholds"]] == [(None, None)] * 2
    assert report["separation"][0]["n_boot"] == 200
    assert "0: no intervals" in _invoke("thresholds", "--help")

    from assay.calibrate.report import calibration_report, thresholds_report

    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 40)
    s = rng.normal(size=80) + y
    with pytest.raises(InvalidInputError, match="'n_boot' parameter of calibration_report"):
        calibration_report(s, y, ["m"], n_boot=0)
    with pytest.raises(InvalidInputError, match="'n_boot' parameter of thresholds_report"):
        thresholds_report(s, y, ["m"], n_boot=-1)
