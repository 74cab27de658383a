"""The verdict's provenance reads the same whatever order the label sources arrive in."""

from __future__ import annotations

from assay.verdict.design import UNIFORM, UNKNOWN, LabelRecord
from assay.verdict.labels import LabelEvidence
from assay.verdict.plan import parse_plan
from assay.verdict.provenance import provenance

PLAN = """
[run]
suite = "suite.jsonl"
evaluators = ["token_f1"]
[[check]]
dimension = "qa"
name = "correct answers"
label = "correct"
metrics = ["token_f1"]
min_pass_rate = 0.8
"""


def _evidence(order: list[str]) -> LabelEvidence:
    evidence = LabelEvidence()
    for criterion in order:
        evidence.records[criterion] = {
            (f"{criterion}-{i}", "m"): LabelRecord(criterion, 1, design, "store")
            for i, design in enumerate((UNKNOWN, UNIFORM, UNKNOWN))
        }
    return evidence


def test_designs_are_listed_in_one_order_whatever_the_sources_order() -> None:
    plan = parse_plan(PLAN)
    one = provenance(plan, _evidence(["grounded", "correct"])).designs
    other = provenance(plan, _evidence(["correct", "grounded"])).designs
    assert list(one) == list(other) == ["correct", "grounded"]
    assert list(one["correct"].items()) == [(UNIFORM, 1), (UNKNOWN, 2)]
