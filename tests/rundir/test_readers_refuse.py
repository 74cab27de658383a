"""Every reader of a run directory refuses an incomplete or altered run with a named error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay import TestCase
from assay.errors import IncompleteRunError
from assay.label.project import LabelProject
from assay.label.store import Store
from assay.rundir import RESULTS_FILE, SUITE_FILE

SRC = Path(assay.__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A run missing its results (as a kill during the former commit left it) and a run whose
    suite copy was altered after sealing."""
    root = tmp_path_factory.mktemp("runs")
    cases = [TestCase(id=str(i), actual_answer="a", expected_answer="a", labels={"ok": 1})
             for i in range(4)]  # fmt: skip
    out = {}
    for name in ("missing", "altered"):
        out[name] = root / name
        assay.evaluate(cases, ["exact_match"], out=out[name])
    (out["missing"] / RESULTS_FILE).unlink()
    with (out["altered"] / SUITE_FILE).open("a", encoding="utf-8") as handle:
        handle.write("\n")
    return out


COMMANDS = {
    "report": ["report", "{run}"],
    "junit": ["junit", "{run}", "--out", "{tmp}/junit.xml"],
    "compare": ["compare", "{run}", "{run}", "--out", "{tmp}/cmp"],
    "calibrate": ["calibrate", "{run}", "-m", "exact_match", "--label", "ok", "--out", "{tmp}/c"],
}


@pytest.mark.parametrize("kind", ["missing", "altered"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_cli_readers_refuse(runs: dict[str, Path], tmp_path: Path, command: str, kind: str) -> None:
    args = [a.format(run=runs[kind], tmp=tmp_path) for a in COMMANDS[command]]
    done = subprocess.run(
        [sys.executable, "-m", "assay.cli.main", *args],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(SRC)},
    )  # fmt: skip
    assert done.returncode == 2, (done.stdout, done.stderr)
    name = RESULTS_FILE if kind == "missing" else SUITE_FILE
    assert name in done.stderr and "Traceback" not in done.stderr, done.stderr


@pytest.mark.parametrize("kind", ["missing", "altered"])
def test_labeling_project_refuses(runs: dict[str, Path], tmp_path: Path, kind: str) -> None:
    store = Store(f"sqlite:///{tmp_path / 'labels.sqlite'}")
    with pytest.raises(IncompleteRunError):
        LabelProject(runs[kind], store, overlap=1)
