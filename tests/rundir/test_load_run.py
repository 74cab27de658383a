"""Loading a run directory with or without its findings."""

from __future__ import annotations

import json
from pathlib import Path

import assay
from assay.rundir import load_run
from assay.rundir.layout import PROBLEMS_FILE

DEMO = Path(assay.__file__).resolve().parent / "demo" / "suite.jsonl"


def test_a_run_loaded_without_findings_keeps_everything_else(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assay.evaluate(DEMO, ["exact_match", "token_f1"], out=out, seed=0)
    whole, lean = load_run(out), load_run(out, findings=False)
    assert whole.problems == json.loads((out / PROBLEMS_FILE).read_text(encoding="utf-8"))
    assert whole.problems  # the demo's weak systems have problems to leave out
    assert (lean.problems, lean.insights) == ([], [])
    assert lean.leaderboard == whole.leaderboard
    assert lean.manifest == whole.manifest
    assert lean.result_columns(["case_id", "value"]).equals(
        whole.result_columns(["case_id", "value"])
    )
