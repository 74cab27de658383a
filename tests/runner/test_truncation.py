"""An answer cut at the system's token limit is recorded as truncated, counted unmeasured by
every evaluator of the answer and shown in problems.json and the report — through the CLI, with
a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import read_suite
from assay.data.case import RUN_TRUNCATED, TRUNCATED_REASON

from .rag_service import loopback


class _Handler(BaseHTTPRequestHandler):
    """Answers every question; stops at its token limit on questions that mention 'long'."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        question = json.loads(self.rfile.read(length))["messages"][-1]["content"]
        cut = "long" in question
        choice = {
            "message": {"role": "assistant", "content": "The fee is" if cut else "The fee is 12 euros."},
            "finish_reason": "length" if cut else "stop",
        }
        body = json.dumps({"choices": [choice]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def server() -> Iterator[str]:
    with loopback(_Handler) as url:
        yield url


def _ask(tmp_path: Path, url: str, *extra: str) -> Path:
    suite = tmp_path / "suite.jsonl"
    rows = [{"id": "short", "question": "What is the fee?", "expected_answer": "12 euros"},
            {"id": "long", "question": "What is the fee, in long?", "expected_answer": "12 euros"}]
    suite.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    config = tmp_path / "target.json"
    config.write_text(json.dumps({"type": "openai", "name": "chat", "model": "m",
                                  "base_url": f"{url}/v1", "retries": 0}), encoding="utf-8")
    answered = tmp_path / "answered.jsonl"
    done = CliRunner().invoke(cli, ["run", str(suite), "--target", str(config), "--out",
                                    str(answered), *extra])
    assert done.exit_code == 0, done.output
    return answered


def test_a_truncated_answer_is_recorded_unmeasured_and_shown(tmp_path: Path,
                                                              server: str) -> None:
    answered = _ask(tmp_path, server)
    cases = {c.id: c for c in read_suite(answered)}
    assert cases["long"].metadata["run"]["status"] == RUN_TRUNCATED
    assert cases["long"].metadata["run"]["reason"] == TRUNCATED_REASON
    assert cases["long"].truncated == TRUNCATED_REASON
    assert cases["short"].metadata["run"]["status"] == "ok" and cases["short"].truncated is None

    run = tmp_path / "run"
    done = CliRunner().invoke(cli, ["evaluate", str(answered), "-e", "token_f1", "--out", str(run)])
    assert done.exit_code == 0, done.output
    results = pd.read_parquet(run / "results.parquet").set_index("case_id")
    assert results.loc["short", "status"] == "ok"
    assert results.loc["long", "status"] == "skipped"  # unmeasured, never a score of a fragment
    assert results.loc["long", "reason"] == TRUNCATED_REASON
    problems = json.loads((run / "problems.json").read_text(encoding="utf-8"))
    shown = [p for p in problems if p.get("problem") == "truncated_answer"]
    assert shown and shown[0]["evidence"]["case_ids"] == ["long"]
    assert "token limit" in (run / "report.md").read_text(encoding="utf-8")


def test_score_truncated_scores_them_and_keeps_the_flag(tmp_path: Path, server: str) -> None:
    answered = _ask(tmp_path, server, "--score-truncated")
    case = {c.id: c for c in read_suite(answered)}["long"]
    assert case.metadata["run"]["status"] == "ok" and case.metadata["run"]["truncated"] is True
    assert case.truncated is None


def test_what_the_answer_does_not_hold_is_still_scored() -> None:
    from assay.data.case import TestCase
    from assay.evaluators.registry import get_evaluator

    run = {"status": RUN_TRUNCATED, "reason": TRUNCATED_REASON, "truncated": True}
    case = TestCase(id="q", question="Fee?", actual_answer="The fee is", expected_answer="12",
                    context_ids=["a"], relevant_ids={"a": 1}, metadata={"run": run})
    [retrieval] = get_evaluator("retrieval").evaluate([case])  # retrieval was complete
    assert retrieval.outcomes["hit_at_k"].value == 1.0
    [f1] = get_evaluator("token_f1").evaluate([case])
    assert f1.outcomes["token_f1"].reason == TRUNCATED_REASON
    assert f1.details["problems"][0]["kind"] == "truncated_answer"


def test_a_truncated_turn_makes_the_conversation_truncated() -> None:
    from assay.data.case import TestCase
    from assay.data.dialogue import Turn
    from assay.runner.connectors import CallableConnector
    from assay.runner.connectors.base import TargetResponse
    from assay.runner.conversation import converse
    from assay.runner.execute import RunSettings

    def bot(question: str) -> TargetResponse:
        return TargetResponse(answer="It is", truncated=True) if "abroad" in question else (
            TargetResponse(answer="12 euros."))

    turns = [Turn(role="user", content="Fee?"), Turn(role="user", content="And abroad?")]
    done = converse(CallableConnector(bot, name="bot"), TestCase(id="c", turns=turns),
                    RunSettings())
    run = done.metadata["run"]
    assert run["status"] == RUN_TRUNCATED and run["truncated_turns"] == [4]  # 1-based position in the turns
    assert run["reason"].startswith("turn 4: ") and done.truncated is not None
    assert [t.content for t in done.turns or [] if t.role == "assistant"] == ["12 euros.", "It is"]
