"""Result rows are identical to those of the per-case implementation on a fixed sample
(values bit for bit, statuses, reasons, explanations, details, order; corpus values)."""

from __future__ import annotations

import json

from golden_rows import canonical, current_rows, read_golden


def test_rows_identical_to_the_per_case_implementation() -> None:
    expected, actual = read_golden(), canonical(current_rows())
    for index, (old, new) in enumerate(zip(expected, actual, strict=False)):
        if old != new:
            before, after = json.loads(old), json.loads(new)
            changed = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys()
                       if before.get(k) != after.get(k)}
            raise AssertionError(f"row {index} ({before.get('evaluator')}, "
                                 f"{before.get('case_id')}, {before.get('metric')}) differs: "
                                 f"{changed}")
    assert len(actual) == len(expected)
