"""Target config files, response mapping and the checkpoint file format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import read_suite, write_suite
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.runner import Checkpoint, HTTPConnector, build_target, load_target, run_target
from assay.runner.mapping import get_path, render

from .rag_service import http_config, suite


def test_yaml_config_with_env_secret(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAG_TOKEN", "s3cret")
    path = tmp_path / "target.yaml"
    path.write_text(
        "type: http\nname: prod-rag\nurl: http://127.0.0.1:9/ask\n"
        "headers: {Authorization: 'Bearer ${RAG_TOKEN}'}\n"
        "request: {q: '{{question}}', lang: '{{metadata.lang}}'}\n"
        "response: {answer: data.answer}\nconcurrency: 8\ntimeout_s: 2.5\n"
    )
    connector, settings = load_target(path)
    assert isinstance(connector, HTTPConnector)
    assert connector.headers == {"Authorization": "Bearer s3cret"}
    assert settings.concurrency == 8 and settings.timeout_s == 2.5
    assert render(connector.request, {"question": "Fee?", "metadata": {"lang": "en"}}) == {
        "q": "Fee?",
        "lang": "en",
    }


def test_config_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="'type' must be one of"):
        build_target({"type": "grpc"})
    with pytest.raises(InvalidInputError, match=r"unknown key.*urll"):
        build_target({"type": "http", "urll": "http://x"})
    with pytest.raises(InvalidInputError, match="needs the key 'url'"):
        build_target({"type": "http"})
    with pytest.raises(InvalidInputError, match="concurrency"):
        build_target({"type": "http", "url": "http://x", "concurrency": 0})
    with pytest.raises(InvalidInputError, match="MISSING_VAR"):
        build_target({"type": "http", "url": "http://x/${MISSING_VAR}"})
    bad = tmp_path / "t.yaml"
    bad.write_text("type: [http\n")
    with pytest.raises(InvalidInputError, match="cannot parse"):
        load_target(bad)


def test_response_paths() -> None:
    data = {"out": [{"msg": {"parts": ["a", "b"]}}], "n": 3}
    assert get_path(data, "out[0].msg.parts[-1]") == "b"
    assert get_path(data, "out[*].msg.parts[0]") == ["a"]
    with pytest.raises(LookupError, match="no key 'x'"):
        get_path(data, "out[0].x")
    with pytest.raises(InvalidInputError):
        get_path(data, "out..msg")


def test_checkpoint_ignores_torn_line_and_redoes_changed_input(tmp_path: Path) -> None:
    path = tmp_path / "ck.jsonl"
    a, b = TestCase(id="a", question="qa"), TestCase(id="b", question="qb")
    with Checkpoint(path, target="t") as log:
        log.append(a, a.model_copy(update={"actual_answer": "A"}))
        log.append(b, b.model_copy(update={"actual_answer": "B"}))
    with path.open("a") as handle:
        handle.write('{"input_id": "c", "finger')  # torn by a crash
    changed_b = b.model_copy(update={"question": "qb, edited"})
    done = Checkpoint(path, target="t").load([a, changed_b])
    assert set(done) == {"a"}
    with Checkpoint(path, target="t") as log:  # reopening drops the torn line
        log.append(changed_b, changed_b.model_copy(update={"actual_answer": "B2"}))
    assert Checkpoint(path, target="t").load([a, changed_b])["b"].actual_answer == "B2"
    with pytest.raises(InvalidInputError, match="belongs to target 't'"):
        Checkpoint(path, target="other").load([a])


def test_cli_run_writes_answers_and_summary(rag, tmp_path: Path) -> None:
    suite_file, out = tmp_path / "suite.jsonl", tmp_path / "answered.jsonl"
    write_suite(suite(), suite_file)
    target = tmp_path / "target.json"
    target.write_text(json.dumps(http_config(rag.url)))
    result = CliRunner().invoke(
        cli, ["run", str(suite_file), "--target", str(target), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "5 answered, 0 errors" in result.output
    answered = read_suite(out)
    assert len(answered) == 5 and all(c.model == "tiny-rag" for c in answered)


def test_openai_and_command_targets_from_files(rag, tmp_path: Path) -> None:
    (tmp_path / "search.py").write_text(
        "def retrieve(question):\n    return [{'id': 'k1', 'text': 'Cards cost 5 euros a year.'}]\n"
    )
    chat = tmp_path / "chat.yaml"
    chat.write_text(
        f"type: openai\nname: chat-rag\nmodel: tiny\nbase_url: {rag.url}/v1\n"
        "retriever: search.py:retrieve\nprice_per_1k_input: 1.0\nretries: 0\n"
    )
    connector, settings = load_target(chat)
    [done] = run_target(
        [TestCase(id="c", question="What do cards cost?")], connector, settings=settings
    )
    assert done.actual_answer == "Cards cost 5 euros a year." and done.context_ids == ["k1"]
    assert done.cost_usd is not None and done.cost_usd > 0
    command = tmp_path / "cmd.toml"
    command.write_text(
        'type = "command"\nname = "echo"\ncommand = ["python3", "-c", '
        '"import sys; print(sys.stdin.read().upper())"]\nstdin = "{{question}}"\n'
    )
    connector, settings = load_target(command)
    [echoed] = run_target([TestCase(id="e", question="fee?")], connector, settings=settings)
    assert echoed.actual_answer == "FEE?" and echoed.model == "echo"


def test_checkpoint_with_torn_header_starts_afresh(tmp_path: Path) -> None:
    path = tmp_path / "ck.jsonl"
    path.write_text('{"format": "assay-run-ch')  # killed while writing the header
    case = TestCase(id="a", question="q")
    assert Checkpoint(path, target="t").load([case]) == {}
    with Checkpoint(path, target="t") as log:
        log.append(case, case.model_copy(update={"actual_answer": "A"}))
    assert Checkpoint(path, target="t").load([case])["a"].actual_answer == "A"
