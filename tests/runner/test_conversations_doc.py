"""The worked example of docs/conversations.md runs as written: its files are written, its
``assay`` commands run through the CLI in order, and the leaderboard rows it shows are the ones
the run produces."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from assay.cli.main import cli
from assay.data import read_suite

DOC = Path(__file__).resolve().parents[2] / "docs" / "conversations.md"
_BLOCK = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _worked_example() -> list[tuple[str, str, str]]:
    """``(language, info, body)`` of each fenced block of the worked-example section."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## Worked example", 1)[1].split("\n## ", 1)[0]
    return [(m.group(1), m.group(2).strip(), m.group(3)) for m in _BLOCK.finditer(section)]


def test_the_worked_example_runs_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = _worked_example()
    assert blocks, "no worked example in docs/conversations.md"
    shown = 0
    for language, info, body in blocks:
        if info.startswith("file="):
            Path(info.removeprefix("file=")).write_text(body, encoding="utf-8")
        elif language == "bash":
            for line in body.strip().splitlines():
                argv = shlex.split(line)
                assert argv[0] == "assay", line
                result = CliRunner().invoke(cli, argv[1:], catch_exceptions=False)
                assert result.exit_code == 0, (line, result.output)
        elif info.startswith("from="):
            produced = Path(info.removeprefix("from=")).read_text(encoding="utf-8").splitlines()
            for row in body.strip().splitlines():
                assert row in produced, f"{info}: the doc shows a row the run did not give: {row}"
                shown += 1
    assert shown >= 6
    stops = {c.id: c.metadata["run"]["stop"] for c in read_suite(tmp_path / "answered.jsonl")}
    assert stops == {"fees": "script_end", "sim-abroad": "goal_met"}  # as the doc says
