"""The starter plan runs as written: ``assay plan`` then ``assay assess`` never exits 2."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.demo import demo_suite_path


def _demo_rows(questions: int = 12) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in demo_suite_path().read_text("utf-8").splitlines()]
    keep = {r["id"] for r in rows if "turns" not in r and "trajectory" not in r}
    keep = set(sorted(k for k in keep if "~" not in k)[:questions])
    return [r for r in rows if r["id"].split("~")[0] in keep and "turns" not in r]


def _without(*fields: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in fields} for r in _demo_rows()]


SUITES = {
    "demo": lambda: _demo_rows(),
    "no labels": lambda: _without("labels"),
    "no expected answers": lambda: _without("labels", "expected_answer"),
    "no contexts": lambda: _without("retrieved_context", "context_ids", "relevant_ids"),
}


@pytest.mark.parametrize("kind", list(SUITES))
def test_the_starter_plan_runs_as_written(kind: str, tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl"
    suite.write_text("".join(json.dumps(r) + "\n" for r in SUITES[kind]()), encoding="utf-8")
    runner = CliRunner()
    plan = tmp_path / "plan.toml"
    made = runner.invoke(cli, ["plan", str(suite), "--out", str(plan)])
    assert made.exit_code == 0, made.output
    data = tomllib.loads(plan.read_text(encoding="utf-8"))
    assert "store" in data["labels"]["source"] and data["labels"]["design"] == "unknown"
    labelled = [c for c in data["check"] if c.get("label")]
    assert labelled, "labelled checks ready for the app's labels"
    if "expected_answer" not in SUITES[kind]()[0]:
        assert data["run"]["params"]["perturbation_robustness"] == {"base": "lexical_groundedness"}
    robust = [c for c in data["check"] if c["dimension"] == "robustness"]
    assert robust and robust[0]["metrics"] == ["robust_pass_kept"]
    result = runner.invoke(cli, ["assess", str(plan), "--out", str(tmp_path / "a")])
    assert result.exit_code in (0, 1, 3), result.output
    verdict = json.loads((tmp_path / "a" / "verdict.json").read_text(encoding="utf-8"))
    assert verdict["exit_code"] == result.exit_code
    assert {c["check"] for c in verdict["checks"]} == {c["name"] for c in data["check"]}
