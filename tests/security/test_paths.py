"""Path traversal: every file a suite can name stays inside the allowed root.

A suite is untrusted input. The agent sanity check reads the files a case names
(``metadata.artifacts``, ``metadata.artifact_spec``); the JSON Schema check resolves the ``$ref`` of
a case's ``metadata.json_schema``. None of them may read outside the allowed root, leak a fragment
of a file into results or reports, or reveal whether a file outside the root exists.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from assay import TestCase, evaluate
from assay.data.suite import write_suite

from .helpers import every_text, invoke

OUTSIDE = ["/etc/passwd", "../../../../../../etc/passwd", "/proc/self/environ",
           "/etc/no-such-file-here.json", "../outside.json"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An allowed root holding an agent's output, with a readable secret file just outside."""
    inside = tmp_path / "root"
    (inside / "out").mkdir(parents=True)
    (inside / "out" / "answer.json").write_text('{"answer": "42"}')
    (tmp_path / "outside.json").write_text('{"artifacts": ["SECRET-OUTSIDE"]}')
    (inside / "link.json").symlink_to(tmp_path / "outside.json")
    return inside


def _sanity(cases: list[TestCase], root: Path) -> list[dict[str, Any]]:
    run = evaluate(cases, ["agent_sanity"], params={"agent_sanity": {"base_dir": str(root)}})
    rows = run.results
    return rows[rows["metric"] == "agent_sanity"].to_dict("records")


@pytest.mark.parametrize("spec", [*OUTSIDE, "link.json"])
def test_a_case_spec_outside_the_root_is_refused_without_reading_it(root: Path, spec: str) -> None:
    [row] = _sanity([TestCase(id="c", model="m",
                              metadata={"artifacts": "out", "artifact_spec": spec})], root)
    assert row["status"] == "error"
    assert "outside the allowed root" in row["reason"]
    assert "root:" not in row["reason"] and "SECRET-OUTSIDE" not in row["reason"]
    assert "not found" not in row["reason"] and "parse" not in row["reason"]


def test_existing_and_missing_files_outside_get_the_same_answer(root: Path) -> None:
    """The message differs only by the path given: it cannot tell whether the file exists."""
    rows = _sanity([TestCase(id=str(i), model="m", metadata={"artifacts": "out",
                                                             "artifact_spec": s})
                    for i, s in enumerate(["/etc/passwd", "/etc/no-such-file-here"])], root)
    reasons = [r["reason"].replace(s, "PATH").replace(f"case {i}:", "case:") for i, (r, s) in
               enumerate(zip(rows, ["/etc/passwd", "/etc/no-such-file-here"], strict=True))]
    assert reasons[0] == reasons[1]


def test_a_spec_inside_the_root_still_works(root: Path) -> None:
    (root / "spec.json").write_text(json.dumps({"artifacts": ["answer.json"]}))
    [row] = _sanity([TestCase(id="c", model="m", metadata={"artifacts": "out",
                                                           "artifact_spec": "spec.json"})], root)
    assert row["status"] == "ok" and row["value"] == 1.0


@pytest.mark.parametrize(("name", "text"), [
    ("bad.yaml", "artifacts: [\n  password: hunter2-SECRET\n  - {"),
    ("bad.json", '{"artifacts": ["x"], password: "hunter2-SECRET"'),
    ("bad.toml", 'artifacts = "hunter2-SECRET'),
])
def test_parse_errors_give_the_position_never_the_content(root: Path, name: str,
                                                          text: str) -> None:
    (root / name).write_text(text)
    [row] = _sanity([TestCase(id="c", model="m", metadata={"artifacts": "out",
                                                           "artifact_spec": name})], root)
    assert row["status"] == "error" and "cannot parse" in row["reason"]
    assert "hunter2" not in row["reason"]


@pytest.mark.parametrize("artifacts", ["/etc", "../../../../../../etc", "/proc/self",
                                       ["/etc/passwd"], ["link.json"]])
def test_artifacts_outside_the_root_are_refused(root: Path, artifacts: Any) -> None:
    [row] = _sanity([TestCase(id="c", model="m", metadata={"artifacts": artifacts})], root)
    assert row["status"] == "ok" and row["value"] == 0.0
    assert "root:x" not in json.dumps(row, default=str)


def test_through_the_cli_nothing_outside_reaches_any_output(root: Path) -> None:
    cases = [TestCase(id=str(i), model="m", question="q", actual_answer="a",
                      metadata={"artifacts": "out", "artifact_spec": spec})
             for i, spec in enumerate(OUTSIDE)]
    suite = write_suite(cases, root / "suite.jsonl")
    out = root.parent / "run"
    result = invoke("evaluate", str(suite), "-e", "agent_sanity", "--out", str(out),
                    "--param", f"agent_sanity.base_dir={root}")
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    text = every_text(out) + result.output
    assert "root:x:0:0" not in text and "SECRET-OUTSIDE" not in text
    for key in ("PATH=", "HOME="):  # /proc/self/environ
        assert f"{key}{os.environ.get(key[:-1], '@@')}" not in text


@pytest.mark.parametrize("ref", ["file:///etc/passwd", "http://127.0.0.1:9/schema.json",
                                 "https://example.com/schema.json"])
def test_a_case_json_schema_ref_reads_no_file_and_opens_no_connection(
        ref: str, network_attempts: list[Any]) -> None:
    cases = [TestCase(id="hostile", model="m", actual_answer='{"a": 1}',
                      metadata={"json_schema": {"$ref": ref}}),
             TestCase(id="fine", model="m", actual_answer='{"a": 1}',
                      metadata={"json_schema": {"$defs": {"o": {"type": "object"}},
                                                "$ref": "#/$defs/o"}})]
    rows = evaluate(cases, ["json_schema"]).results
    hostile = rows[(rows["case_id"] == "hostile") & (rows["metric"] == "json_schema_valid")]
    fine = rows[(rows["case_id"] == "fine") & (rows["metric"] == "json_schema_valid")]
    assert list(hostile["status"]) == ["error"]
    assert "cannot be resolved" in hostile["reason"].iloc[0]
    assert list(fine["status"]) == ["ok"] and list(fine["value"]) == [1.0]  # one bad case only
    assert network_attempts == []
