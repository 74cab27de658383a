"""The README's labelling loop on the demo, through the CLI: add an annotator, label several
criteria, export, calibrate (issue 24 item 3). The labels are the demo's human labels, submitted
through the label store exactly as the web app submits them (the app itself is tested in
tests/label)."""

from __future__ import annotations

import csv
from importlib import resources
from pathlib import Path

import pytest

from assay.label.criteria import parse_criteria
from assay.label.project import LabelProject
from assay.label.store import Store, database_url

from .test_journey import cli

pytestmark = pytest.mark.slow


def test_readme_loop_calibrates_on_a_multi_criterion_export(tmp_path: Path) -> None:
    demo = resources.files("assay.demo")
    suite = Path(str(demo.joinpath("suite.jsonl")))
    with open(str(demo.joinpath("labels.csv")), encoding="utf-8") as handle:
        human = {(r["id"], r["model"]): r for r in csv.DictReader(handle)}
    run = tmp_path / "runs" / "r1"
    cli("evaluate", suite, "-e", "token_f1", "--out", run)
    token = cli("labels", "add-annotator", run, "ada").stdout
    assert token.strip()
    store = Store(database_url(run, None))
    project = LabelProject(run, store, parse_criteria("grounded,quality:1-5"), overlap=1)
    ada = next(a for a in store.annotators() if a["name"] == "ada")
    labelled = 0
    while labelled < 40 and (item_id := store.next_item(ada["id"], overlap=1)) is not None:
        item = store.item(item_id)
        assert item is not None
        row = human.get((item["case_id"], item["model"]))
        if row is None:  # a perturbed copy: not labelled in the demo
            store.submit(item_id, ada["id"], {}, skipped=True, require_lease=True)
            continue
        store.submit(item_id, ada["id"], {"grounded": int(row["grounded"]),
                                          "quality": int(row["quality"])}, require_lease=True)
        labelled += 1
    assert labelled == 40 and project.criteria
    # the README's export: one criterion, which assay calibrate reads as it is
    cli("labels", "export", run, "--criterion", "grounded", "--out", tmp_path / "labels.csv")
    cli("calibrate", run, "--labels", tmp_path / "labels.csv", "--metric", "token_f1")
    assert (run / "calibration" / "calibrator.json").is_file()
    # every criterion in one file: a clear error naming the criteria and the option, then --label
    cli("labels", "export", run, "--out", tmp_path / "all.csv")
    refused = cli("calibrate", run, "--labels", tmp_path / "all.csv", "--metric", "token_f1",
                  check=False)
    assert refused.returncode == 2
    assert "several criteria (grounded, quality): choose one with --label grounded" in (
        refused.stderr)
    cli("calibrate", run, "--labels", tmp_path / "all.csv", "--label", "grounded", "--metric",
        "token_f1", "--out", tmp_path / "cal")
    assert (tmp_path / "cal" / "calibrator.json").is_file()
