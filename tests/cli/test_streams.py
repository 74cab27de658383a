"""Every command of the CLI, run with stdout and stderr captured apart: results and listings on
stdout (so they pipe), logs, progress and errors on stderr (design guide, convention 17).

The test walks click's command tree: a command added without a stream check here fails
``test_every_command_has_a_stream_check``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from assay.cli.main import cli
from assay.data.suite import read_suite, write_suite
from assay.demo import demo_corpus_dir, demo_labels_path, demo_suite_path

LEXICAL = "token_f1,exact_match,rouge"


def _leaves(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from _leaves(command, (*prefix, name))
        else:
            yield (*prefix, name)


def _run(*args: str | Path, code: int = 0) -> Result:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert result.exit_code == code, (result.stdout, result.stderr, result.exception)
    return result


def _prints_path(result: Result, path: Path) -> None:
    """stdout is the one path written (pipeable: `open $(assay report RUN)`), and it exists."""
    assert result.stdout.splitlines() == [str(path)]
    assert path.exists()


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small demo suite (12 questions x 3 systems, human labels), its run, and a plan."""
    root = tmp_path_factory.mktemp("streams")
    single = [c for c in read_suite(demo_suite_path()) if not (c.turns or c.trajectory)]
    ids = sorted({c.id for c in single if c.labels})[:12]
    suite = write_suite([c for c in single if c.id in ids], root / "suite.jsonl")
    run = root / "run"
    evaluated = _run("evaluate", suite, "-e", LEXICAL, "--out", run)
    _prints_path(evaluated, run / "report.md")
    assert "problems" in evaluated.stderr  # the summary is talk
    plan = root / "plan.toml"
    plan.write_text(
        f'title = "streams"\n[run]\nsuite = "{suite}"\nevaluators = ["token_f1", "rouge"]\n'
        '[labels]\nsource = ["suite", "store"]\n[[check]]\ndimension = "qa"\nname = "correct answers"\n'
        'label = "correct"\nmetrics = ["token_f1"]\nmin_pass_rate = 0.5\n',
        encoding="utf-8",
    )
    return {"root": root, "suite": suite, "run": run, "plan": plan}


def _evaluators(w: dict[str, Path]) -> None:
    table = _run("evaluators")
    assert "rouge" in table.stdout and table.stderr == ""
    rows = json.loads(_run("evaluators", "--format", "json").stdout)
    assert "rouge" in {r["name"] for r in rows}
    assert "| rouge" in _run("evaluators", "--format", "markdown").stdout


def _validate(w: dict[str, Path]) -> None:
    text = _run("validate", w["suite"])
    assert text.stdout.startswith(f"{w['suite']}: 36 valid cases") and text.stderr == ""
    summary = json.loads(_run("validate", w["suite"], "--format", "json").stdout)
    assert summary["cases"] == 36 and summary["fields"]["actual_answer"] == 36


def _evaluate(w: dict[str, Path]) -> None:
    out = w["root"] / "run2"
    result = _run("evaluate", w["suite"], "-e", "exact_match", "--out", out)
    _prints_path(result, out / "report.md")
    assert "Verdict: " in result.stderr and "(implicit plan, report.md)" in result.stderr


def _report(w: dict[str, Path]) -> None:
    result = _run("report", w["run"], "--resamples", "10")
    _prints_path(result, w["run"] / "report.html")
    assert "Wrote" in result.stderr


def _junit(w: dict[str, Path]) -> None:
    out = w["root"] / "junit.xml"
    result = _run("junit", w["run"], "--out", out, "--no-cases")
    _prints_path(result, out)
    assert result.stderr.strip()  # the gate's message


def _calibration_args(w: dict[str, Path], out: str) -> list[str | Path]:
    return [w["run"], "-m", "token_f1", "--labels", demo_labels_path(), "--label", "correct",
            "--out", w["root"] / out]


def _calibrate(w: dict[str, Path]) -> None:
    result = _run("calibrate", *_calibration_args(w, "cal"), "--n-boot", "20")
    paths = [Path(line) for line in result.stdout.splitlines()]
    assert paths and all(p.exists() for p in paths)
    assert "token_f1" in result.stderr


def _thresholds(w: dict[str, Path]) -> None:
    result = _run("thresholds", *_calibration_args(w, "thr"), "--method", "normal")
    paths = [Path(line) for line in result.stdout.splitlines()]
    assert paths and all(p.exists() for p in paths)


def _compare(w: dict[str, Path]) -> None:
    page = _run("compare", w["run"], w["run"], "--resamples", "10")
    assert page.stdout.startswith("#") and "token_f1" in page.stdout
    data = json.loads(_run("compare", w["run"], w["run"], "--resamples", "10",
                           "--format", "json").stdout)
    assert data


def _perturb(w: dict[str, Path]) -> None:
    out = w["root"] / "perturbed.jsonl"
    result = _run("perturb", w["suite"], "--out", out)
    _prints_path(result, out)
    assert "perturbed cases" in result.stderr


def _attack(w: dict[str, Path]) -> None:
    out = w["root"] / "attacks.jsonl"
    result = _run("attack", w["suite"], "--out", out, "--max-cases", "3")
    _prints_path(result, out)
    assert result.stderr.strip()


def _turns(w: dict[str, Path]) -> None:
    out = w["root"] / "turns.jsonl"
    result = _run("turns", demo_suite_path(), "--out", out)
    _prints_path(result, out)
    assert "turn cases from" in result.stderr


def _traces_import(w: dict[str, Path]) -> None:
    messages = [{"role": "user", "parts": [{"type": "text", "content": "Card fee?"}]}]
    answer = [{"role": "assistant", "parts": [{"type": "text", "content": "12 euros."}]}]
    span = {"traceId": "t1", "spanId": "s1", "name": "chat", "startTimeUnixNano": "1",
            "attributes": [
                {"key": "gen_ai.input.messages", "value": {"stringValue": json.dumps(messages)}},
                {"key": "gen_ai.output.messages", "value": {"stringValue": json.dumps(answer)}}]}
    otlp = w["root"] / "trace.json"
    otlp.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}))
    out = w["root"] / "traced.jsonl"
    result = _run("traces", "import", otlp, "--out", out)
    _prints_path(result, out)
    assert "1 cases (1 single-turn" in result.stderr


def _plan(w: dict[str, Path]) -> None:
    out = w["root"] / "starter.toml"
    result = _run("plan", w["suite"], "--out", out)
    _prints_path(result, out)


def _assess(w: dict[str, Path]) -> None:
    out = w["root"] / "assessment"
    result = CliRunner().invoke(cli, ["assess", str(w["plan"]), "--out", str(out)])
    assert result.exit_code in (0, 1, 3), (result.stdout, result.stderr)
    _prints_path(result, out / "verdict.md")
    assert "Verdict:" in result.stderr
    # the verdict page states the exit code once: the command's own
    stated = re.findall(r"Exit code (\d)", (out / "verdict.md").read_text(encoding="utf-8"))
    assert stated == [str(result.exit_code)]


def _run_target(w: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    module = w["root"] / "streams_target.py"
    module.write_text("def answer(question):\n    return 'We do not know.'\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(w["root"]))
    out = w["root"] / "answered.jsonl"
    result = _run("run", w["suite"], "--target", "python:streams_target:answer", "--out", out)
    _prints_path(result, out)
    assert result.stderr.strip()  # the run's summary


def _generate(w: dict[str, Path]) -> None:
    out = w["root"] / "generated.jsonl"
    result = _run("generate", demo_corpus_dir(), "--out", out, "-n", "4", "--judge", "scripted",
                  "--embedder", "fake", "--k", "2")
    _prints_path(result, out)
    assert "suite" not in result.stderr.split()  # the other sidecars are listed on stderr


def _judge_estimate(w: dict[str, Path]) -> None:
    args = ("judge-estimate", w["suite"], "-e", "judge_qa_accuracy", "--judge",
            "openai:gpt-4o-mini")
    assert "judge calls" in _run(*args).stdout
    data = json.loads(_run(*args, "--format", "json").stdout)
    assert data["calls"] == 36


def _judge_serve(w: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The server is faked (no llama.cpp); the command stops on SIGTERM as it would."""
    import assay.backends.llm.local_server as local_server

    @contextlib.contextmanager
    def fake_server(*args: object, **kwargs: object) -> Iterator[str]:
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        yield "http://127.0.0.1:9/v1"

    monkeypatch.setattr(local_server, "llama_server", fake_server)
    monkeypatch.setattr(local_server, "decode_speed", lambda url, alias: 30.0)
    result = _run("judge-serve")
    assert json.loads(result.stdout) == {"base_url": "http://127.0.0.1:9/v1", "model": "local"}
    assert "speed check" in result.stderr and "server stopped" in result.stderr


def _label(w: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The web server is not started (it blocks); everything before it runs."""
    import assay.label.server as server

    served: list[object] = []
    monkeypatch.setattr(server, "serve", lambda *args, **kwargs: served.append(args))
    result = _run("label", w["run"], "--db", w["root"] / "serve.sqlite")
    assert served and result.stdout == "" and "Open http://" in result.stderr


def _labels(w: dict[str, Path]) -> None:
    db = w["root"] / "labels.sqlite"
    first = _run("labels", "add-annotator", w["run"], "ada", "--db", db).stdout.strip()
    assert len(first) >= 30 and "\n" not in first
    token = _run("labels", "reset-token", w["run"], "ada", "--db", db).stdout.strip()
    assert len(token) >= 30 and token != first
    assert _run("labels", "annotators", w["run"], "--db", db).stdout.startswith("ada\t0 labelled")
    rows = json.loads(_run("labels", "annotators", w["run"], "--db", db, "--format",
                           "json").stdout)
    assert [(r["name"], r["labels"]) for r in rows] == [("ada", 0)]
    from assay.label.criteria import parse_criteria
    from assay.label.store import Store

    store = Store(f"sqlite:///{db}")  # what annotators do in 'assay label': one label
    store.set_criteria(parse_criteria("grounded"))
    store.sync_items([("q01", "faithful", 0, "all", False)])
    item = store.next_item(store.annotator_for_token(token)["id"], overlap=1)  # type: ignore[index]
    assert item is not None
    store.submit(item, store.annotators()[0]["id"], {"grounded": 1})
    out = w["root"] / "labels.csv"
    result = _run("labels", "export", w["run"], "--db", db, "--out", out,
                  "--criterion", "grounded")
    _prints_path(result, out)
    assert "rows" in result.stderr


def _labels_sample(w: dict[str, Path]) -> None:
    cases = list(read_suite(w["suite"]))  # a quarter of the cases unlabelled: a round to draw
    half = [c.model_copy(update={"labels": {}}) if i % 4 == 1 else c for i, c in enumerate(cases)]
    suite = write_suite(half, w["root"] / "partly-labelled.jsonl")
    plan = w["root"] / "sample-plan.toml"
    plan.write_text(w["plan"].read_text().replace(str(w["suite"]), str(suite)), encoding="utf-8")
    out = w["root"] / "sampled"
    assert CliRunner().invoke(cli, ["assess", str(plan), "--out", str(out)]).exit_code in (0, 1, 3)
    result = _run("labels", "sample", out, "--budget", "6", "--design", "uniform", "--seed", "1")
    assert result.stdout.startswith("round 1: uniform")  # the round drawn is the result
    assert "assay label" in result.stderr  # the hint is talk


def _review_overrule(w: dict[str, Path]) -> None:
    plan = w["root"] / "rule-plan.toml"
    plan.write_text(
        f'[run]\nsuite = "{w["suite"]}"\nevaluators = ["pii_leakage"]\n[[check]]\n'
        'dimension = "risk"\nname = "no PII leak"\nmetrics = ["pii_generation_leak"]\n'
        "max_fail_rate = 0.0\n",
        encoding="utf-8",
    )
    out = w["root"] / "ruled"
    assert CliRunner().invoke(cli, ["assess", str(plan), "--out", str(out)]).exit_code in (0, 1, 3)
    result = _run("review", "overrule", out, "--check", "no PII leak", "--case", "q01",
                  "--model", "faithful", "--verdict", "PASS", "--by", "ada", "--reason", "read")
    _prints_path(result, out / "overrules.jsonl")
    assert "Recorded" in result.stderr


def _no_output_error(w: dict[str, Path]) -> None:
    """A usage error: nothing on stdout, the message on stderr."""
    result = _run("report", w["root"] / "missing", code=2)
    assert result.stdout == "" and "does not exist" in result.stderr


CHECKS: dict[tuple[str, ...], Callable[..., None]] = {
    ("assess",): _assess,
    ("attack",): _attack,
    ("calibrate",): _calibrate,
    ("compare",): _compare,
    ("evaluate",): _evaluate,
    ("evaluators",): _evaluators,
    ("generate",): _generate,
    ("judge-estimate",): _judge_estimate,
    ("judge-serve",): _judge_serve,
    ("junit",): _junit,
    ("label",): _label,
    ("labels", "add-annotator"): _labels,
    ("labels", "annotators"): _labels,
    ("labels", "export"): _labels,
    ("labels", "reset-token"): _labels,
    ("labels", "sample"): _labels_sample,
    ("perturb",): _perturb,
    ("plan",): _plan,
    ("report",): _report,
    ("review", "overrule"): _review_overrule,
    ("run",): _run_target,
    ("thresholds",): _thresholds,
    ("traces", "import"): _traces_import,
    ("turns",): _turns,
    ("validate",): _validate,
}
#: Commands whose full run is too slow to repeat here, checked where they are tested already.
ELSEWHERE = {("demo",): Path(__file__).parents[1] / "test_demo.py"}


def test_every_command_has_a_stream_check() -> None:
    leaves = set(_leaves(cli))
    assert leaves == set(CHECKS) | set(ELSEWHERE)
    for path in ELSEWHERE.values():
        assert "result.stdout" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "check", sorted(set(CHECKS.values()), key=lambda f: f.__name__), ids=lambda f: f.__name__
)
def test_output_goes_to_stdout_and_talk_to_stderr(
    check: Callable[..., None], work: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_patch = "monkeypatch" in check.__code__.co_varnames[: check.__code__.co_argcount]
    check(work, monkeypatch) if needs_patch else check(work)


def test_a_usage_error_writes_nothing_on_stdout(work: dict[str, Path]) -> None:
    _no_output_error(work)
