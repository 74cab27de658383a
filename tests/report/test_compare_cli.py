"""``assay compare``: regressions first, JSON and Markdown outputs, CI exit status."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

import assay
from assay import TestCase
from assay.cli.main import cli


def _run(out: Path, wrong: int) -> Path:
    cases = [
        TestCase(
            id=str(i), model="m", expected_answer="yes", actual_answer="no" if i < wrong else "yes"
        )
        for i in range(30)
    ]
    assay.evaluate(cases, ["exact_match", "token_f1"], out=out)
    return out


def test_compare_lists_regressions_first_and_writes_json_and_markdown(tmp_path: Path) -> None:
    a, b = _run(tmp_path / "a", 2), _run(tmp_path / "b", 15)
    runner = CliRunner()
    result = runner.invoke(
        cli, ["compare", str(a), str(b), "--out", str(tmp_path / "cmp"), "--resamples", "200"]
    )
    assert result.exit_code == 0, result.output
    table = [line for line in result.output.splitlines() if line.startswith("| ")]
    assert table[1].startswith("| regression | m | exact_match")
    data = json.loads((tmp_path / "cmp" / "comparison.json").read_text())
    assert data["summary"]["regression"] == 2 and data["changes"][0]["delta"] < 0
    assert (tmp_path / "cmp" / "comparison.md").read_text().startswith("# assay run comparison")
    as_json = runner.invoke(
        cli, ["compare", str(a), str(b), "--format", "json", "--resamples", "200"]
    )
    parsed = json.loads(as_json.stdout)  # the console (stderr) carries the summary line
    assert parsed["changes"][0]["kind"] == "regression"
    gate = runner.invoke(
        cli, ["compare", str(a), str(b), "--fail-on-regression", "--resamples", "200"]
    )
    assert gate.exit_code == 1
    same = runner.invoke(
        cli, ["compare", str(a), str(a), "--fail-on-regression", "--resamples", "200"]
    )
    assert same.exit_code == 0
