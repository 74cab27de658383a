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


def test_the_quick_scan_finds_a_problem_wherever_the_named_walk_does() -> None:
    """A case passes the quick scan only when the walk naming a problem's path finds none."""
    import random

    from assay.data import case as case_module

    rng = random.Random(5)
    bad = [float("nan"), float("-inf"), "é\ud800", "\udfff"]
    good = [1, 2.5, True, None, "plain", "é accent", ""]

    def nested(depth: int) -> object:
        kind = rng.random()
        if depth >= 36 or kind < 0.45:
            return rng.choice(bad) if rng.random() < 0.03 else rng.choice(good)
        if kind < 0.75:
            return [nested(depth + 1) for _ in range(rng.randint(0, 3))]
        return {f"k{i}": nested(depth + 1) for i in range(rng.randint(0, 3))}

    def deep(depth: int) -> object:
        return [] if depth == 0 else [deep(depth - 1)]

    walked = 0
    for _ in range(3000):
        data = {"id": "a", "metadata": nested(0), "labels": nested(rng.randint(0, 30))}
        if rng.random() < 0.05:
            data["metadata"] = deep(rng.randint(30, 35))
        named = case_module._first_problem(data)
        assert case_module._sound(data) == (named is None)
        walked += named is not None
    assert 100 < walked < 2900  # both kinds of case were met
