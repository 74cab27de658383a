"""Export: majority and per-annotator files that ``assay calibrate`` reads."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

import assay
from assay.calibrate.dataset import read_labels
from assay.cli.main import cli
from assay.demo import demo_labels_path, demo_suite_path
from assay.errors import InvalidInputError
from assay.label.criteria import parse_criteria
from assay.label.export import export_labels, label_frame, majority
from assay.label.store import Store


def test_majority_and_ties() -> None:
    assert majority([0, 1, 1]) == 1
    assert majority([0, 1]) is None
    assert (majority([0, 1], "low"), majority([0, 1], "high")) == (0, 1)
    assert majority([2, 3, 3, 2, 5], "high") == 3


def test_per_annotator_rows_keep_comments() -> None:
    rows = [
        {
            "case_id": "q1",
            "model": "m",
            "annotator": "a",
            "criterion": "g",
            "value": 1,
            "comment": "<b>ok</b>",
        },
        {
            "case_id": "q1",
            "model": "m",
            "annotator": "b",
            "criterion": "g",
            "value": 0,
            "comment": "",
        },
    ]
    frame, _ = label_frame(rows, ["g"], mode="per-annotator")
    assert frame[["id", "annotator", "g", "label", "comment"]].values.tolist() == [
        ["q1", "a", 1, 1, "<b>ok</b>"],
        ["q1", "b", 0, 0, ""],
    ]
    majority_frame, dropped = label_frame(rows, ["g"])
    assert majority_frame.empty and dropped == {"g": 1}
    with pytest.raises(InvalidInputError, match="no labels"):
        label_frame(rows, ["g"], annotator="zed")


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demo") / "run"
    assay.evaluate(demo_suite_path(), ["token_f1"], out=out)
    return out


def test_labels_entered_by_three_annotators_export_to_a_file_that_calibrates(
    demo_run: Path, tmp_path: Path
) -> None:
    """The demo's human labels, entered by three annotators who each disagree on a few cases:
    the majority export equals the human labels and 'assay calibrate' accepts it as is."""
    truth = pd.read_csv(demo_labels_path(), dtype={"id": str, "model": str})
    store = Store(f"sqlite:///{tmp_path / 'labels.sqlite'}")
    store.migrate()
    store.set_criteria(parse_criteria("grounded,quality:1-5"))
    store.sync_items([(r.id, r.model, i, "b1", False) for i, r in enumerate(truth.itertuples())])
    people = {
        name: store.annotator_for_token(store.add_annotator(name))["id"]  # type: ignore[index]
        for name in ("ada", "bob", "cy")
    }
    items = {}
    with store.transaction() as tx:
        for item_id, case_id, model in tx.fetchall("SELECT id, case_id, model FROM items"):
            items[(case_id, model)] = item_id
    for k, row in enumerate(truth.itertuples()):
        for j, who in enumerate(people.values()):
            wrong = k % 3 == j and k % 5 == 0  # each case: at most one annotator errs
            grounded = 1 - row.grounded if wrong else row.grounded
            store.submit(
                items[(row.id, row.model)],
                who,
                {"grounded": int(grounded), "quality": int(row.quality)},
            )
    result = CliRunner().invoke(
        cli,
        [
            "labels",
            "export",
            str(demo_run),
            "--db",
            store.url,
            "--criterion",
            "grounded",
            "--out",
            str(tmp_path / "l.csv"),
        ],
    )
    assert result.exit_code == 0, result.output
    exported = read_labels(tmp_path / "l.csv")
    merged = exported.merge(truth, left_on=["case_id", "model"], right_on=["id", "model"])
    assert len(merged) == len(truth) == 108
    assert (merged["label"] == merged["grounded"]).all()

    out = tmp_path / "cal"
    result = CliRunner().invoke(
        cli,
        [
            "calibrate",
            str(demo_run),
            "-m",
            "token_f1",
            "--labels",
            str(tmp_path / "l.csv"),
            "--n-boot",
            "50",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads((out / "calibration.json").read_text())
    assert report["n"] == 108
    assert (out / "calibrator.json").is_file()

    # per-annotator, one annotator: also a file calibrate reads (quality with --pass-at)
    path = export_labels(
        store, tmp_path / "ada.csv", criteria=["quality"], mode="per-annotator", annotator="ada"
    ).path
    result = CliRunner().invoke(
        cli,
        [
            "calibrate",
            str(demo_run),
            "-m",
            "token_f1",
            "--labels",
            str(path),
            "--pass-at",
            "4",
            "--n-boot",
            "50",
            "--out",
            str(tmp_path / "cal2"),
        ],
    )
    assert result.exit_code == 0, result.output
