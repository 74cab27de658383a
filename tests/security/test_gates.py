"""Gates: nothing unmeasured is ever reported as fine.

A judge evaluator whose judge fails on 10 of 14 cases (garbage replies from a loopback
OpenAI-compatible server), or on all 14, is run through the CLI as a CI job would:
``assay evaluate`` must not print "0 problems", ``assay junit --check`` must not exit 0 and the
reports must not call the metric a pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay import TestCase
from assay.data.suite import write_suite
from judge._servers import FakeOpenAI  # tests/judge: the loopback OpenAI-compatible server

from .helpers import invoke


def _suite(path: Path) -> Path:
    cases = [TestCase(id=f"c{i:02d}", model="m", question=f"Q{i:02d}: what is the fee?",
                      expected_answer="4.50 euros", actual_answer="The fee is 4.50 euros.")
             for i in range(14)]
    return write_suite(cases, path)


@pytest.mark.parametrize("n_bad", [10, 14])
def test_a_mostly_or_wholly_errored_judge_run_never_reads_as_a_pass(
        tmp_path: Path, n_bad: int, monkeypatch: pytest.MonkeyPatch) -> None:
    bad = {f"Q{i:02d}:" for i in range(n_bad)}

    def reply(payload: dict[str, Any]) -> str:
        prompt = json.dumps(payload["messages"])
        return "no idea" if any(b in prompt for b in bad) else '{"score": 1.0, "reason": "ok"}'

    suite = _suite(tmp_path / "suite.jsonl")
    run = tmp_path / "run"
    with FakeOpenAI(reply) as server:
        monkeypatch.setenv("ASSAY_JUDGE", json.dumps({
            "provider": "openai_compat", "model": "m", "max_retries": 0,
            "base_url": f"{server.url}/v1"}))
        result = invoke("evaluate", str(suite), "-e", "judge_qa_accuracy", "--out", str(run))
    assert result.exit_code == 0, result.output  # evaluate measured; the gate decides
    assert "0 problems" not in result.output
    problems = json.loads((run / "problems.json").read_text())
    assert any("judge_qa_accuracy" in json.dumps(p) for p in problems)

    gate = invoke("junit", str(run), "--check")
    assert gate.exit_code == 3, gate.output  # INCONCLUSIVE: unmeasured beyond the tolerance
    xml = (run / "junit.xml").read_text()
    assert "error" in xml and ("failure" in xml or "errors=" in xml)

    board = json.loads((run / "leaderboard.json").read_text())
    [row] = [r for r in board if r["metric"] == "judge_qa_accuracy"]
    assert row["n_error"] == n_bad and row["passed"] is not True
    assert "**Verdict: INCONCLUSIVE**" in (run / "report.md").read_text()
    assert 'Verdict: <span class="badge inconclusive">' in (run / "report.html").read_text()
    said = f"unmeasured on {n_bad} of 14" if n_bad < 14 else "none of the 14 cases has a PASS"
    assert any(p["kind"] == "verdict_inconclusive" and said in p["message"] for p in problems)
