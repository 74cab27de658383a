"""Conversation runs through ``assay run``: scripted user turns sent with the history over HTTP
and to a Python callable, simulated users through the (scripted) judge, failures, and a run
killed mid-conversation that resumes without losing or repeating turns."""

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
from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import Turn, read_suite, write_suite
from assay.data.case import TestCase
from assay.runner import CallableConnector, RunSettings, run_target
from assay.runner.conversation import converse

from .chat_bots import TARIFF
from .chat_service import chat_config, serve_chat

_CLI = "from assay.cli.main import main; main()"
HERE = Path(__file__).resolve().parent


def _script(i: int, n_users: int = 3) -> TestCase:
    turns = [Turn(role="system", content="You are the assistant of Northbridge Bank.")]
    for k in range(n_users):
        turns.append(Turn(role="user", content=f"Conversation {i}: question {k + 1} about the fee?"))
        turns.append(Turn(role="assistant", content="an old answer the run replaces"))
    return TestCase(id=f"conv{i:02d}", turns=turns)


def _run(tmp_path: Path, cases: list[TestCase], config: dict[str, object], *extra: str) -> Path:
    suite, out, target = tmp_path / "suite.jsonl", tmp_path / "answered.jsonl", tmp_path / "t.json"
    write_suite(cases, suite)
    target.write_text(json.dumps(config))
    args = ["run", str(suite), "--target", str(target), "--out", str(out), *extra]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (tmp_path / "console.txt").write_text(result.output, encoding="utf-8")
    return out


def test_scripted_conversation_over_http_sends_the_history_each_turn(tmp_path: Path) -> None:
    with serve_chat("steadfast") as chat:
        out = _run(tmp_path, [_script(1), _script(2)], chat_config(chat.url, concurrency=2))
        requests = dict(chat.requests)
    # one request per user turn, each carrying the user turns so far
    assert requests == {(f"conv0{i}", k): 1 for i in (1, 2) for k in (1, 2, 3)}
    answered = read_suite(out)
    for case in answered:
        roles = [t.role for t in case.turns or []]
        assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
        replies = [t.content for t in case.turns or [] if t.role == "assistant"]
        assert replies == [TARIFF["fee"]] * 3  # the old answers are replaced
        assert case.actual_answer == TARIFF["fee"] and case.model == "chat-bot"
        run = case.metadata["run"]
        assert run["status"] == "ok" and run["stop"] == "script_end"
        assert [t["turn"] for t in run["turns"]] == [3, 5, 7]
        assert case.latency_s == round(sum(t["latency_s"] for t in run["turns"]), 6)


def test_python_callable_receives_the_messages(tmp_path: Path) -> None:
    config = {"type": "python", "name": "py-bot", "callable": f"{HERE / 'chat_bots.py'}:gullible"}
    out = _run(tmp_path, [_script(1, n_users=2)], config)
    (case,) = read_suite(out)
    assert [t.content for t in case.turns or [] if t.role == "assistant"] == [TARIFF["fee"]] * 2


def test_openai_chat_target_gets_the_history_after_its_system_prompt(tmp_path: Path) -> None:
    config = {"type": "openai", "name": "chat", "model": "m", "base_url": "",
              "system_prompt": "Be brief.", "price_per_1k_input": 1.0}
    with serve_chat("steadfast") as chat:
        config["base_url"] = f"{chat.url}/v1"
        out = _run(tmp_path, [_script(1, n_users=2)], config)
        histories = chat.histories
    script = _script(1, n_users=2).turns or []
    assert [[m["role"] for m in h] for h in histories] == [
        ["system", "system", "user"], ["system", "system", "user", "assistant", "user"]]
    assert histories[1][1]["content"] == script[0].content  # the suite's own system turn
    assert histories[1][3]["content"] == TARIFF["fee"]  # the target's first reply, not the old one
    (case,) = read_suite(out)
    assert case.metadata["run"]["usage"] == {"prompt_tokens": 20}  # summed over the turns
    assert case.cost_usd == 0.02


def test_command_target_reads_the_history_on_stdin(tmp_path: Path) -> None:
    program = ("import json, sys; m = json.load(sys.stdin); "
               "print(f\"{len(m)} messages, last: {m[-1]['content']}\")")
    config = {"type": "command", "name": "cmd", "command": [sys.executable, "-c", program],
              "stdin": "{{messages}}"}
    turns = [Turn(role="user", content="Fee?"), Turn(role="user", content="Abroad?")]
    (case,) = read_suite(_run(tmp_path, [TestCase(id="c", turns=turns)], config))
    assert [t.content for t in case.turns or [] if t.role == "assistant"] == [
        "1 messages, last: Fee?", "3 messages, last: Abroad?"]


def test_answered_conversations_flow_into_evaluate(tmp_path: Path) -> None:
    turns = [Turn(role="user", content="What is the card fee?"),
             Turn(role="user", content="And cash withdrawals abroad, what do they cost?")]
    with serve_chat("steadfast") as chat:
        out = _run(tmp_path, [TestCase(id="c", turns=turns)], chat_config(chat.url))
    run_dir = tmp_path / "run"
    args = ["evaluate", str(out), "-e", "conversation,judge_conversation_relevancy",
            "--param", "judge_conversation_relevancy.judge=scripted", "--out", str(run_dir)]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    board = json.loads((run_dir / "leaderboard.json").read_text())
    by_metric = {r["metric"]: r for r in board}
    assert by_metric["judge_conversation_relevancy"]["value"] == 1.0  # both replies on topic
    assert by_metric["judge_conversation_relevancy"]["n_ok"] == 1


def test_simulated_user_through_the_scripted_judge(tmp_path: Path) -> None:
    cases = [
        TestCase(id="goal", scenario="Asks the card fee. Then asks about cash abroad.",
                 expected_outcome="Cash withdrawals abroad cost 3 euros each"),
        TestCase(id="never", scenario="Asks the card fee. Then asks about loans. Then asks "
                 "about mortgages.", expected_outcome="a pony"),
    ]  # fmt: skip
    with serve_chat("steadfast") as chat:
        out = _run(tmp_path, cases, chat_config(chat.url), "--judge", "scripted", "--max-turns", "2")
    by_id = {c.id: c for c in read_suite(out)}
    goal = by_id["goal"]
    assert [t.content for t in goal.turns or [] if t.role == "user"] == [
        "Asks the card fee?", "Then asks about cash abroad?"]  # fmt: skip
    assert goal.metadata["run"]["stop"] == "goal_met"
    never = by_id["never"]
    assert sum(t.role == "user" for t in never.turns or []) == 2
    assert never.metadata["run"]["stop"] == "max_turns"
    # asked before each user turn and once after the last (was the goal met?): 3 per case
    console = (tmp_path / "console.txt").read_text(encoding="utf-8")
    assert "2 conversations (4 assistant turns); " in console
    assert "simulated user: 6 judge requests, $0.0000" in console  # scripted: priced at 0


def test_simulated_cases_without_a_judge_are_refused_up_front(tmp_path: Path) -> None:
    suite, target = tmp_path / "s.jsonl", tmp_path / "t.json"
    write_suite([TestCase(id="sim", scenario="Asks the fee.")], suite)
    target.write_text(json.dumps({"type": "python", "callable": "os.path:basename"}))
    env = {k: v for k, v in os.environ.items() if k != "ASSAY_JUDGE"}
    args = ["run", str(suite), "--target", str(target), "--out", str(tmp_path / "o.jsonl")]
    done = subprocess.run([sys.executable, "-c", _CLI, *args], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 2
    assert "error: no judge configured" in done.stderr and "ASSAY_JUDGE" in done.stderr


def test_a_failing_turn_ends_the_conversation_as_an_error_keeping_the_input() -> None:
    def bot(messages: list[dict[str, str]]) -> str:
        if len(messages) > 3:
            raise RuntimeError("model crashed")
        return "fine"

    case = _script(1)
    done = converse(CallableConnector(bot, name="b"), case, RunSettings(retries=0))
    run = done.metadata["run"]
    assert run["status"] == "error" and run["error"] == "turn 5: RuntimeError: model crashed"
    assert done.turns == case.turns and done.actual_answer is None  # nothing scored as complete
    assert [t["content"] for t in run["partial_turns"]][-1] == "fine"
    assert len(run["partial_turns"]) == 3  # system, user, assistant


def test_interrupted_conversation_resumes_from_its_last_completed_turn(tmp_path: Path) -> None:
    calls: list[int] = []

    def bot(messages: list[dict[str, str]]) -> str:
        calls.append(len(messages))
        return f"reply to {len(messages)}"

    log = tmp_path / "ck.jsonl"
    case = _script(1, n_users=4)

    def failing(messages: list[dict[str, str]]) -> str:
        return bot(messages) if len(calls) < 2 else _boom()

    # first run: two turns answered, then the target fails the third
    first = CallableConnector(failing, name="b")
    answered = run_target([case], first, checkpoint=log, settings=RunSettings(retries=0))
    assert answered[0].metadata["run"]["status"] == "error"
    assert len(calls) == 2
    calls.clear()
    again = run_target([case], CallableConnector(bot, name="b"), checkpoint=log,
                       retry_errors=True)
    # the two answered turns are not asked again: the history sent starts at turn 3
    assert calls == [6, 8]
    replies = [t.content for t in again[0].turns or [] if t.role == "assistant"]
    assert replies == ["reply to 2", "reply to 4", "reply to 6", "reply to 8"]
    assert again[0].metadata["run"]["resumed_at_turn"] == 6


def _boom() -> str:
    raise RuntimeError("down")


def _checkpoint(path: Path) -> list[dict[str, object]]:
    records = []
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:
        with contextlib.suppress(json.JSONDecodeError):  # a line torn by the kill
            records.append(json.loads(line))
    return records


def test_sigkilled_run_resumes_conversations_without_losing_or_repeating_turns(
    tmp_path: Path,
) -> None:
    n_conv, n_users = 6, 4
    cases = [_script(i, n_users) for i in range(n_conv)]
    suite_file, out, target = tmp_path / "s.jsonl", tmp_path / "a.jsonl", tmp_path / "t.json"
    write_suite(cases, suite_file)
    log = tmp_path / "a.jsonl.checkpoint.jsonl"
    argv = [sys.executable, "-c", _CLI, "run", str(suite_file), "--target", str(target),
            "--out", str(out)]
    with serve_chat("steadfast", delay_s=0.15) as chat:
        target.write_text(json.dumps(chat_config(chat.url, concurrency=2)))
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            records = _checkpoint(log) if log.exists() else []
            if sum(bool(r.get("partial")) for r in records) >= 5:
                break
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert not out.exists()
        records = _checkpoint(log)
        partial = [r for r in records if r.get("partial")]
        assert partial, "the kill came before any completed turn"
        # at least one conversation was cut in the middle
        finished = {r["input_id"] for r in records if not r.get("partial")}
        assert {r["input_id"] for r in partial} - finished
        first = dict(chat.requests)
        chat.requests.clear()
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        second = dict(chat.requests)
    # turns completed before the kill (a partial record) are never asked again
    completed = {(r["input_id"], sum(t["role"] == "user" for t in r["case"]["turns"]))
                 for r in partial}  # type: ignore[index]
    for conv, k in completed:
        assert (conv, k) not in second, f"{conv} turn {k} asked again"
    # every turn was asked; only those in flight at the kill (at most concurrency) twice
    every = {(f"conv{i:02d}", k) for i in range(n_conv) for k in range(1, n_users + 1)}
    assert set(first) | set(second) == every
    assert sum(first.values()) + sum(second.values()) - len(every) <= 2
    answered = read_suite(out)
    assert [c.id for c in answered] == [c.id for c in cases]
    for case in answered:
        roles = [t.role for t in case.turns or []]
        assert roles == ["system"] + ["user", "assistant"] * n_users, case.id
        users = [t.content for t in case.turns or [] if t.role == "user"]
        assert users == [t.content for t in _script(int(case.id[4:]), n_users).turns or []
                         if t.role == "user"]
        assert case.metadata["run"]["status"] == "ok"
    assert not log.exists()


def test_an_interrupted_run_stops_conversations_between_turns_and_resumes_them(
    tmp_path: Path,
) -> None:
    """Ctrl-C (here: an exception from the progress callback) must not wait for every running
    conversation to play out all its turns; the resumed run continues from the last one."""
    sent: list[int] = []

    def bot(messages: list[dict[str, str]]) -> str:
        sent.append(len(messages))
        time.sleep(0.05)
        return f"reply {len(messages)}"

    class Interrupt(Exception):
        pass

    def progress(task: str, done: int, total: int) -> None:
        if done == 1:  # the short conversation finished: interrupt the run
            raise Interrupt

    short, long_ = _script(1, n_users=1), _script(2, n_users=20)
    log = tmp_path / "ck.jsonl"
    connector = CallableConnector(bot, name="b")
    with pytest.raises(Interrupt):
        run_target([short, long_], connector, settings=RunSettings(concurrency=2),
                   checkpoint=log, progress=progress)
    first = len(sent)
    assert first < 8, f"the long conversation went on for {first - 1} turns after the interrupt"
    sent.clear()
    answered = run_target([short, long_], connector, checkpoint=log)
    assert len(sent) == 20 - (first - 1)  # only the turns not completed before
    replies = [t.content for t in answered[1].turns or [] if t.role == "assistant"]
    assert replies == [f"reply {2 * k}" for k in range(1, 21)]


def test_a_simulated_conversation_resumes_without_asking_the_simulator_again(
    tmp_path: Path,
) -> None:
    from assay.backends.llm import make_judge
    from assay.runner.simulated_user import SimulatedUser

    case = TestCase(id="sim", scenario="Asks the card fee. Then asks about loans. Then asks "
                    "about savings.", expected_outcome="never met")
    sent: list[str] = []

    def flaky(messages: list[dict[str, str]]) -> str:
        sent.append(messages[-1]["content"])
        if len(sent) == 2:
            raise RuntimeError("down")
        return "noted"

    log = tmp_path / "ck.jsonl"
    judge = make_judge("scripted")
    first = run_target([case], CallableConnector(flaky, name="b"), checkpoint=log,
                       settings=RunSettings(retries=0), user=SimulatedUser(judge))
    assert first[0].metadata["run"]["error"].startswith("turn 4: RuntimeError")
    asked_before = judge.stats.requests
    sent.clear()
    def fixed(messages: list[dict[str, str]]) -> str:
        sent.append(messages[-1]["content"])
        return "noted"

    again = run_target([case], CallableConnector(fixed, name="b"), checkpoint=log,
                       retry_errors=True, user=SimulatedUser(judge))
    # the first user turn is neither written nor sent again
    assert sent == ["Then asks about loans?", "Then asks about savings?"]
    assert judge.stats.requests - asked_before == 3  # turns 2 and 3, then "stop"
    users = [t.content for t in again[0].turns or [] if t.role == "user"]
    assert users == ["Asks the card fee?", "Then asks about loans?", "Then asks about savings?"]
    assert again[0].metadata["run"]["stop"] == "user_stopped"
