"""The agent sanity check: artifacts and chat against a specification, and the evaluator."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from assay import evaluate
from assay.agents.sanity import check_artifacts
from assay.agents.spec import ArtifactSpec
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.agent_sanity import AgentSanity
from assay.evaluators.base import Status
from assay.testing.conformance import check_evaluator

from .conftest import pdf_bytes

CHAT = [{"role": "user", "content": "Summarise the fees."},
        {"role": "assistant", "content": "Done: see report.json."}]
SPEC = {
    "artifacts": [
        {"path": "report.json", "fields": [{"path": "status", "one_of": ["done"]},
                                           {"path": "items[*].id", "type": "integer"}]},
        {"path": "tables/*.csv", "columns": ["id", "value"]},
        {"path": "rows.jsonl", "fields": [{"path": "ok", "type": "boolean"}]},
        {"path": "figures/", "min_files": 1},
        {"path": "summary.md"},
        {"path": "optional.md", "required": False},
    ],
    "chat": {"required": True},
}


def by_name(report: object) -> dict[str, list[str]]:
    return {c.name: c.problems for c in report.checks}  # type: ignore[attr-defined]


def test_every_artifact_is_checked_and_problems_name_it(agent_run: Path) -> None:
    pytest.importorskip("pypdf")
    report = check_artifacts([agent_run], ArtifactSpec.from_dict(SPEC), base=agent_run.parent,
                             root=agent_run.parent, chat=CHAT)
    problems = by_name(report)
    ok = {name for name, p in problems.items() if not p}
    assert ok == {"report.json", "tables/fees.csv", "config.yaml", "settings.toml",
                  "figures/plot.png", "figures/", "chat"}
    assert problems["broken.json"][0].startswith("invalid JSON: Expecting")
    assert problems["empty.txt"] == ["the file is empty (0 bytes)"]
    assert problems["script.py"][0].startswith("invalid Python")
    assert problems["tables/ragged.csv"][0].startswith("rows with a different number of cells")
    assert problems["rows.jsonl"] == ["field row 2: ok should be of type boolean; got 'yes'"]
    assert problems["paper.pdf"] == ["empty page(s) without text: [2]"]
    assert problems["summary.md"] == ["expected file is missing"]
    assert "optional.md" not in problems
    assert report.score == pytest.approx(7 / 14)
    summary = report.summary()
    assert summary.startswith("7/14 artifacts meet the specification; failing: ")
    assert "broken.json: invalid JSON" in summary


def test_rules_on_values_and_structure(agent_run: Path) -> None:
    (agent_run / "report.json").write_text(json.dumps({"status": "failed", "items": [{"id": "a"}]}))
    (agent_run / "tables" / "fees.csv").write_text("id,amount\n")
    (agent_run / "figures" / "plot.png").unlink()
    report = check_artifacts([agent_run], ArtifactSpec.from_dict(SPEC), base=agent_run,
                             root=agent_run, chat=CHAT)
    problems = by_name(report)
    assert problems["report.json"] == [
        "field status should be one of ['done']; got 'failed'",
        "field items[0].id should be of type integer; got 'a'",
    ]
    assert problems["tables/fees.csv"] == [
        "a header but no data rows", "missing column(s) ['value']; header is ['id', 'amount']"]
    assert problems["figures/"] == ["the folder is empty", "0 file(s); at least 1 expected"]


def test_glob_without_match_and_parse_all_off(agent_run: Path) -> None:
    spec = ArtifactSpec.from_dict({"artifacts": ["report.json", "out/*.parquet"],
                                   "parse_all": False})
    report = check_artifacts([agent_run], spec, base=agent_run, root=agent_run)
    assert by_name(report) == {"report.json": [],
                               "out/*.parquet": ["no file matches this pattern"]}
    assert report.score == 0.5


def test_list_of_files_is_relative_to_base(agent_run: Path) -> None:
    spec = ArtifactSpec.from_dict({"artifacts": ["run1/report.json", "run1/settings.toml"]})
    report = check_artifacts(["run1/report.json", "run1/broken.json", "run1/nope.json"], spec,
                             base=agent_run.parent, root=agent_run.parent)
    problems = by_name(report)
    assert problems["run1/report.json"] == []
    assert problems["run1/nope.json"] == ["listed artifact does not exist"]
    assert problems["run1/settings.toml"] == ["expected file is missing"]  # not listed
    assert problems["run1/broken.json"][0].startswith("invalid JSON")


def test_path_traversal_is_refused(agent_run: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"password": "x"}')
    os.symlink(secret, agent_run / "link.json")
    report = check_artifacts(["../secret.json", "."], ArtifactSpec(), base=agent_run,
                             root=agent_run)
    problems = by_name(report)
    assert "outside the allowed root" in problems["../secret.json"][0]
    assert "outside the allowed root" in problems["link.json"][0]
    assert not any("password" in str(p) for p in problems.values())
    absolute = check_artifacts([str(secret)], ArtifactSpec(), base=agent_run, root=agent_run)
    assert "path traversal refused" in absolute.checks[0].problems[0]
    allowed = check_artifacts([str(secret)], ArtifactSpec(), base=agent_run, root=tmp_path)
    assert allowed.score == 1.0


@pytest.mark.parametrize(("chat", "problem"), [
    ([{"role": "user", "content": "Hi"}], "the last message is from 'user', not 'assistant'"),
    ([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": " "}],
     "message 2 (assistant) is empty"),
    ([{"role": "robot", "content": "Hi"}, {"role": "assistant", "content": "ok"}],
     "message 1 has role 'robot'"),
    ("not a list", "the chat must be a list of messages; got str"),
    ([], "0 message(s); at least 1 expected"),
])
def test_chat_problems(chat: object, problem: str) -> None:
    report = check_artifacts([], ArtifactSpec(), base=Path("."), root=Path("."), chat=chat)
    assert report.score == 0.0
    assert any(p.startswith(problem) for p in report.checks[0].problems)


def test_tool_call_messages_and_content_parts_are_not_empty() -> None:
    chat = [{"role": "user", "content": [{"type": "text", "text": "Fees?"}]},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "1"}]},
            {"role": "tool", "content": "12 euros"},
            {"role": "assistant", "content": "12 euros."}]
    report = check_artifacts([], ArtifactSpec(), base=Path("."), root=Path("."), chat=chat)
    assert report.score == 1.0


def test_pdf_pages(tmp_path: Path) -> None:
    pytest.importorskip("pypdf")
    (tmp_path / "good.pdf").write_bytes(pdf_bytes(["Page one.", "Page two."]))
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4 garbage")
    (tmp_path / "fake.pdf").write_text("hello")
    spec = ArtifactSpec.from_dict({"artifacts": [{"path": "good.pdf", "min_pages": 3}]})
    problems = by_name(check_artifacts(["."], spec, base=tmp_path, root=tmp_path))
    assert problems["good.pdf"] == ["2 page(s); at least 3 expected"]
    assert problems["bad.pdf"][0].startswith("unreadable PDF")
    assert problems["fake.pdf"] == ["not a PDF (no %PDF- header)"]


def test_evaluator_over_cases(agent_run: Path, tmp_path: Path) -> None:
    (tmp_path / "spec.json").write_text(json.dumps({"artifacts": ["report.json"]}))
    cases = [
        TestCase(id="full", metadata={"artifacts": "run1", "chat": CHAT}),
        TestCase(id="own-spec", metadata={"artifacts": "run1/tables",
                                          "artifact_spec": {"artifacts": ["fees.csv"],
                                                            "parse_all": False}}),
        TestCase(id="chat-only", metadata={"chat": CHAT[:1]}),
        TestCase(id="none"),
        TestCase(id="escape", metadata={"artifacts": ["../../etc/passwd"]}),
        TestCase(id="bad-meta", metadata={"artifacts": {"a": 1}}),
    ]
    evaluator = AgentSanity(artifact_spec="spec.json", base_dir=str(tmp_path))
    results = {c.id: r for c, r in zip(cases, evaluator.evaluate(cases), strict=True)}
    full = results["full"]
    failing = full.outcomes["agent_failing_artifacts"].value or 0.0
    assert full.outcomes["agent_sanity"].value == pytest.approx(
        1 - failing / len(full.details["artifacts"]))
    assert failing >= 5
    assert results["own-spec"].outcomes["agent_sanity"].value == 1.0
    assert results["chat-only"].outcomes["agent_sanity"].value == 0.0
    assert "not 'assistant'" in (results["chat-only"].explanation or "")
    assert results["none"].outcomes["agent_sanity"].status is Status.SKIPPED
    assert results["escape"].outcomes["agent_sanity"].value == 0.0
    assert "outside the allowed root" in (results["escape"].explanation or "")
    assert results["bad-meta"].outcomes["agent_sanity"].status is Status.ERROR
    again = evaluator.evaluate(cases)
    assert [r.outcomes for r in again] == [results[c.id].outcomes for c in cases]
    check_evaluator(evaluator, cases)


def test_evaluator_validates_its_spec_up_front(tmp_path: Path) -> None:
    with pytest.raises(InvalidInputError, match="unknown key"):
        AgentSanity(artifact_spec={"artefacts": []})
    with pytest.raises(InvalidInputError, match="max_files"):
        AgentSanity(max_files=0)


def test_through_the_engine(agent_run: Path, tmp_path: Path) -> None:
    cases = [TestCase(id="1", model="agent", metadata={"artifacts": "run1", "chat": CHAT})]
    run = evaluate(cases, ["agent_sanity"],
                   params={"agent_sanity": {"base_dir": str(tmp_path)}})
    row = next(r for r in run.leaderboard if r["metric"] == "agent_sanity")
    assert 0 < row["value"] < 1


def test_cli_evaluate_with_a_spec_file(agent_run: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from assay.cli.main import cli
    from assay.data.suite import write_suite

    (tmp_path / "spec.yaml").write_text("artifacts:\n  - path: report.json\n"
                                        "    fields: [{path: status, equals: done}]\n"
                                        "parse_all: false\n")
    suite = write_suite([TestCase(id="1", model="agent", metadata={"artifacts": "run1"})],
                        tmp_path / "suite.jsonl")
    result = CliRunner().invoke(cli, [
        "evaluate", str(suite), "-e", "agent_sanity", "--out", str(tmp_path / "run"),
        "--param", "agent_sanity.artifact_spec=spec.yaml",
        "--param", f"agent_sanity.base_dir={tmp_path}"])
    assert result.exit_code == 0, result.output
    board = json.loads((tmp_path / "run" / "leaderboard.json").read_text())
    row = next(r for r in board if r["metric"] == "agent_sanity")
    assert row["value"] == 1.0
