"""Disk full during ``assay run``: a named error, the checkpoint intact, the run resumable."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

from assay.data.case import TestCase
from assay.errors import AssayError
from assay.runner import CallableConnector, RunSettings, run_target


def test_disk_full_mid_run_is_named_and_the_run_resumes(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import assay.runner.checkpoint as checkpoint

    cases = [TestCase(id=f"q{i:02d}", question=f"fee {i}?") for i in range(12)]
    calls: list[str] = []

    def sut(question: str) -> str:
        calls.append(question)
        return question.upper()

    writes = {"n": 0}
    real_fsync = os.fsync

    def fsync(fd: int) -> None:  # the 7th write (header + 6 answers) finds the device full
        writes["n"] += 1
        if writes["n"] == 7:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(checkpoint.os, "fsync", fsync)
    log = tmp_path / "answers.checkpoint.jsonl"
    connector = CallableConnector(sut, name="sut")
    with pytest.raises(AssayError, match=r"No space left on device.*resume"):
        run_target(cases, connector, settings=RunSettings(concurrency=1), checkpoint=log)
    monkeypatch.setattr(checkpoint.os, "fsync", real_fsync)

    recorded = [json.loads(line) for line in log.read_text().split("\n")[1:] if line.strip()]
    assert 5 <= len(recorded) <= 6  # the failed write may have left its line: it is complete
    calls.clear()
    answered = run_target(cases, connector, checkpoint=log)
    assert [c.actual_answer for c in answered] == [(c.question or "").upper() for c in cases]
    assert len(calls) == len(cases) - len(recorded)  # finished answers are not asked again


def test_disk_full_writing_the_answered_suite_keeps_the_checkpoint(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from assay.cli.main import cli
    from assay.data.suite import write_suite

    suite = write_suite([TestCase(id=f"q{i}", question=f"fee {i}?") for i in range(3)],
                        tmp_path / "suite.jsonl")
    (tmp_path / "sut.py").write_text("def answer(question):\n    return question.upper()\n")
    target = tmp_path / "target.json"
    target.write_text(json.dumps({"type": "python", "callable": "sut.py:answer"}))

    def full(*args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    import assay.data as data

    monkeypatch.setattr(data, "write_suite", full)
    out = tmp_path / "answered.jsonl"
    result = CliRunner().invoke(cli, ["run", str(suite), "--target", str(target),
                                      "--out", str(out)])
    assert isinstance(result.exception, AssayError), result.output
    assert "No space left on device" in str(result.exception)
    assert not out.exists()
    log = out.with_name(out.name + ".checkpoint.jsonl")
    assert len(log.read_text().strip().split("\n")) == 4  # header + every answer kept
