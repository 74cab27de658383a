"""Interrupted runs resume without asking finished cases again (counted at the server)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from assay.data import read_suite, write_suite
from assay.data.case import TestCase
from assay.runner import CallableConnector, RunSettings, run_target

from .rag_service import Behaviour, http_config, serve

N_CASES = 60
_CLI = "from assay.cli.main import main; main()"


def _cases(n: int) -> list[TestCase]:
    return [TestCase(id=f"q{i:03d}", question=f"What is the fee? #{i}") for i in range(n)]


def _checkpoint_ids(path: Path) -> set[str]:
    lines = path.read_text(encoding="utf-8").splitlines()[1:]
    ids = set()
    for line in lines:
        with contextlib.suppress(json.JSONDecodeError):  # a line torn by the kill
            ids.add(json.loads(line)["input_id"])
    return ids


def test_sigkilled_cli_run_resumes_without_repeating_finished_cases(tmp_path: Path) -> None:
    suite_file, out = tmp_path / "suite.jsonl", tmp_path / "answered.jsonl"
    write_suite(_cases(N_CASES), suite_file)
    target = tmp_path / "target.json"
    log = tmp_path / "answered.jsonl.checkpoint.jsonl"
    with serve(Behaviour(delay_s=0.1)) as rag:
        target.write_text(json.dumps(http_config(rag.url, concurrency=2)))
        argv = [sys.executable, "-c", _CLI, "run", str(suite_file), "--target", str(target)]
        argv += ["--out", str(out)]
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not log.exists() or len(_checkpoint_ids(log)) < 10):
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert not out.exists(), "a killed run must not leave a complete-looking output"
        finished = _checkpoint_ids(log)
        assert 10 <= len(finished) < N_CASES
        first_run = dict(rag.requests)
        rag.requests.clear()

        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        second_run = dict(rag.requests)
    asked_again = {q for q in second_run if f"q{int(q.split('#')[1]):03d}" in finished}
    assert not asked_again, f"finished cases asked again: {sorted(asked_again)}"
    assert sum(second_run.values()) == N_CASES - len(finished)
    # only the cases in flight at the kill were asked twice
    assert sum(first_run.values()) + sum(second_run.values()) - N_CASES <= 2
    answered = read_suite(out)
    assert [c.id for c in answered] == [c.id for c in _cases(N_CASES)]
    assert all(c.actual_answer and c.metadata["run"]["status"] == "ok" for c in answered)
    assert not log.exists()  # removed after a complete run


class _Boom(Exception):
    pass


def test_exception_mid_run_then_resume_in_process(tmp_path: Path) -> None:
    calls: list[str] = []

    def sut(question: str) -> str:
        calls.append(question)
        return question.upper()

    def progress(task: str, done: int, total: int) -> None:
        if done == 5:
            raise _Boom("interrupted")

    log = tmp_path / "ck.jsonl"
    cases = _cases(12)
    connector = CallableConnector(sut, name="sut")
    with pytest.raises(_Boom):
        run_target(
            cases, connector, settings=RunSettings(concurrency=2), checkpoint=log, progress=progress
        )
    finished = _checkpoint_ids(log)
    assert len(finished) == 5
    assert len(calls) <= 5 + 2 * 2  # queued cases are not started after the interruption
    calls.clear()
    answered = run_target(cases, connector, checkpoint=log)
    assert len(calls) == 7
    assert not {q for q in calls if f"q{int(q.split('#')[1]):03d}" in finished}
    assert [c.actual_answer for c in answered] == [(c.question or "").upper() for c in cases]


def test_errors_are_final_unless_retry_errors(tmp_path: Path) -> None:
    log = tmp_path / "ck.jsonl"
    cases = _cases(3)

    def broken(question: str) -> str:
        raise ValueError("model crashed")

    first = run_target(cases, CallableConnector(broken, name="sut"), checkpoint=log)
    assert {c.metadata["run"]["error"] for c in first} == {"ValueError: model crashed"}
    calls: list[str] = []

    def fixed(question: str) -> str:
        calls.append(question)
        return "ok"

    again = run_target(cases, CallableConnector(fixed, name="sut"), checkpoint=log)
    assert not calls and all(c.actual_answer is None for c in again)
    retried = run_target(
        cases, CallableConnector(fixed, name="sut"), checkpoint=log, retry_errors=True
    )
    assert len(calls) == 3 and all(c.actual_answer == "ok" for c in retried)


@pytest.mark.parametrize(
    ("reply", "field"),
    [
        ({"answer": "x", "cost_usd": float("nan")}, "cost_usd"),
        ({"answer": "x", "cost_usd": -1.0}, "cost_usd"),
        ({"answer": "x" * 2_000_001}, "actual_answer"),
    ],
)
def test_a_reply_validate_would_reject_is_an_error_and_the_run_finishes(
    tmp_path: Path, reply: dict[str, object], field: str
) -> None:
    """A NaN cost used to crash the checkpoint writer on every resume; now it is a bad reply."""
    log = tmp_path / "ck.jsonl"
    cases = _cases(3)

    def sut(question: str) -> object:
        return reply if question.endswith("#1") else {"answer": "fine", "cost_usd": 0.001}

    mapping = {"answer": "answer", "cost_usd": "cost_usd"}
    first = run_target(cases, CallableConnector(sut, name="sut", response=mapping), checkpoint=log)
    bad = [c for c in first if c.metadata["run"]["status"] == "error"]
    assert len(bad) == 1 and field in bad[0].metadata["run"]["error"]
    assert bad[0].metadata["run"]["error_kind"] == "bad_response"
    again = run_target(  # resumes from the checkpoint
        cases, CallableConnector(sut, name="sut", response=mapping), checkpoint=log
    )
    assert [c.actual_answer for c in again] == [c.actual_answer for c in first]
    out = tmp_path / "answered.jsonl"
    write_suite(again, out)
    assert len(read_suite(out).cases) == 3  # what run wrote, validate accepts
