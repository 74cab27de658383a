"""Bad input: a named error (file, row, field) through the CLI, never a traceback.

Each hostile suite line is given to ``assay validate`` and ``assay evaluate`` as a user would:
both must exit with status 2 and a message naming the file, the row and the field, and nothing
may reach the run directory. Hostile command-line values (``--threshold m=nan``, ``--param`` JSON
with commas) are refused or read whole.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay import TestCase
from assay.data.suite import write_suite

from .helpers import run_assay

_GOOD = '{"id": "ok", "question": "q", "expected_answer": "a", "actual_answer": "a"}'
HOSTILE = {
    "metadata 900 deep": ('{"id": "x", "actual_answer": "a", "metadata": {"k": '
                          + "[" * 900 + "]" * 900 + "}}", "metadata"),
    "metadata 100,000 deep": ('{"id": "x", "actual_answer": "a", "metadata": {"k": '
                              + "[" * 100_000 + "]" * 100_000 + "}}", "nested deeper"),
    "lone surrogate": ('{"id": "x", "actual_answer": "bad \\ud800 text"}', "actual_answer"),
    "5,000-digit id": ('{"id": ' + "9" * 5000 + ', "actual_answer": "a"}', ""),
    "NaN latency": ('{"id": "x", "actual_answer": "a", "latency_s": NaN}', "latency_s"),
    "Infinity latency": ('{"id": "x", "actual_answer": "a", "latency_s": Infinity}',
                         "latency_s"),
    "negative cost": ('{"id": "x", "actual_answer": "a", "cost_usd": -1}', "cost_usd"),
}


@pytest.mark.parametrize("command", ["validate", "evaluate"])
@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_line_is_a_named_error(tmp_path: Path, name: str, command: str) -> None:
    line, field = HOSTILE[name]
    suite = tmp_path / "suite.jsonl"
    suite.write_text(_GOOD + "\n" + line + "\n", encoding="utf-8")
    args = [command, str(suite)]
    if command == "evaluate":
        args += ["-e", "exact_match", "--out", str(tmp_path / "run")]
    result = run_assay(*args)
    output = result.stdout + result.stderr
    assert result.returncode == 2, (name, output[-500:])
    assert "Traceback" not in output  # a handled, named error
    assert "suite.jsonl" in output and "row 2" in output, output[-500:]
    assert field in output
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN", "Infinity", "x"])
def test_a_non_finite_threshold_is_refused_up_front(tmp_path: Path, value: str) -> None:
    suite = write_suite([TestCase(id="1", actual_answer="a", expected_answer="a")],
                        tmp_path / "suite.jsonl")
    result = run_assay("evaluate", str(suite), "-e", "exact_match", "--out",
                       str(tmp_path / "run"), "--threshold", f"exact_match={value}")
    output = result.stdout + result.stderr
    assert result.returncode == 2 and "threshold" in output.lower(), output
    assert "Traceback" not in output
    assert not (tmp_path / "run").exists()


def test_a_param_json_with_commas_is_read_whole(tmp_path: Path) -> None:
    suite = write_suite([TestCase(id="1", actual_answer='{"fee": 4.5, "currency": "EUR"}')],
                        tmp_path / "suite.jsonl")
    schema = {"type": "object", "required": ["fee", "currency"]}
    result = run_assay("evaluate", str(suite), "-e", "json_schema", "--out",
                       str(tmp_path / "run"), "--param", f"json_schema.schema={json.dumps(schema)}")
    assert result.returncode == 0, result.stdout + result.stderr
    board = json.loads((tmp_path / "run" / "leaderboard.json").read_text())
    assert next(r for r in board if r["metric"] == "json_schema_valid")["value"] == 1.0
