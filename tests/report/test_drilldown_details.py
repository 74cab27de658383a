"""Drill-down evidence: the size check skips writing back short evidence, with the same result."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from assay.report.drilldown import MAX_TEXT, _details, finite


def _always_measured(raw: str) -> Any:
    """The drill-down's evidence as before: every value written back to measure its size."""
    value = finite(json.loads(raw))
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > 4 * MAX_TEXT:
        return {"truncated": True, "preview": text[: 4 * MAX_TEXT]}
    return value


def _grows(n: int) -> str:
    """Compact JSON of ``n`` items that grow most when written back (``9e15`` is read as
    9000000000000000.0, each comma and colon gains a space)."""
    return json.dumps({"v": [9e15] * n}, separators=(",", ":")).replace("9000000000000000.0", "9e15")


@pytest.mark.parametrize(
    "raw",
    [
        _grows(3_000),  # ~16,000 characters: the longest text the check lets through unmeasured
        _grows(3_300),  # past it: measured
        _grows(15_000),  # shorter than the limit as stored, oversized once written back
        _grows(20_000),
        json.dumps({"s": "x" * 100_000}),
        json.dumps({"nan": float("nan"), "inf": [float("inf")] * 5}),
        '{"a":NaN,"b":-Infinity,"c":"\\u00e9\\ud83d\\ude00"}',
    ],
)
def test_evidence_as_when_every_value_was_measured(raw: str) -> None:
    assert _details(raw) == _always_measured(raw)


def test_random_evidence_as_when_every_value_was_measured() -> None:
    rng = random.Random(0)
    atoms = ["1e15", "-1e-7", "0", "true", "null", "NaN", '"\\u00e9"', '"a b"', "123456789e7"]
    for _ in range(300):
        items = ",".join(rng.choice(atoms) for _ in range(rng.randrange(1, 4_000)))
        raw = f'{{"k":[{items}]}}'
        assert _details(raw) == _always_measured(raw)
