"""One sanitiser at the suite boundary: every hostile value gets a named error, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.data import read_suite
from assay.errors import InvalidInputError


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "suite.jsonl"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "latency_s": NaN}', "latency_s: not a finite number"),
        ('{"id": "a", "cost_usd": Infinity}', "cost_usd: not a finite number"),
        ('{"id": "a", "question": "x\\ud800y"}', "lone surrogate"),
        ('{"id": "a", "metadata": ' + "[" * 900 + "]" * 900 + "}", "nested deeper than 32"),
        ('{"id": "a", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}", "row 2"),
        ('{"id": ' + "9" * 5000 + "}", "row 2"),
        ('{"id": "a", "labels": {"x": {"y": -Infinity}}}', "labels.x.y: not a finite number"),
    ],
)
def test_hostile_values_are_named_errors(tmp_path: Path, line: str, message: str) -> None:
    path = _write(tmp_path, '{"id": "ok", "question": "fine"}\n' + line + "\n")
    with pytest.raises(InvalidInputError) as err:
        read_suite(path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_ordinary_nesting_and_numbers_still_read(tmp_path: Path) -> None:
    case = {"id": "a", "metadata": {"deep": [[{"k": [1, 2.5]}]]}, "latency_s": 0.3}
    suite = read_suite(_write(tmp_path, json.dumps(case) + "\n"))
    assert suite.cases[0].metadata["deep"][0][0]["k"] == [1, 2.5]
