"""Progress off a terminal: plain lines (CI logs), periodic even while one step is slow."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from importlib import resources
from pathlib import Path

import pytest

import assay
from assay.cli import progress as progress_module


def test_plain_lines_first_update_completion_and_heartbeat(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    buffer = io.StringIO()
    # _file, not the file property: restoring the property would pin the console to the stream
    # of this moment (sys.stderr is looked up at each write while _file is None)
    monkeypatch.setattr(progress_module.console, "_file", buffer)
    with progress_module.plain_progress(interval=0.1) as progress:
        progress("scoring", 0, 4)
        progress("scoring", 1, 4)  # within the interval: not written
        time.sleep(0.35)  # one slow step: the heartbeat repeats the state
        progress("scoring", 4, 4)
        progress("scoring", 4, 4)  # finished tasks are written once
    lines = buffer.getvalue().splitlines()
    assert lines[0].startswith("progress: scoring 0/4 (0%)")
    assert any(line.startswith("progress: scoring 1/4 (25%)") for line in lines[1:-1])
    assert lines[-1].startswith("progress: scoring 4/4 (100%)")
    assert sum(line.startswith("progress: scoring 4/4") for line in lines) == 1


def test_evaluate_writes_plain_progress_when_not_a_terminal(tmp_path: Path) -> None:
    suite = Path(str(resources.files("assay.demo").joinpath("suite.jsonl")))
    src = Path(assay.__file__).resolve().parents[1]
    env = {**os.environ, "ASSAY_PROGRESS_INTERVAL": "0",
           "PYTHONPATH": os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-m", "assay.cli.main", "evaluate", str(suite), "-e", "exact_match",
         "--out", str(tmp_path / "run")],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )
    assert result.returncode == 0, result.stderr
    n_cases = sum(1 for line in suite.read_text(encoding="utf-8").splitlines() if line.strip())
    assert f"progress: exact_match {n_cases}/{n_cases} (100%)" in result.stderr
    assert "\x1b[" not in result.stderr and "━" not in result.stderr  # no bar off a terminal
