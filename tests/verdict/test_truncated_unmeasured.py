"""An answer cut at the system's token limit is unmeasured in every check, plan or no plan."""

from __future__ import annotations

from pathlib import Path

import assay
from assay import TestCase
from assay.verdict.assess import decide_run
from assay.verdict.implicit import assess_run
from assay.verdict.plan import parse_plan

CUT = {"run": {"status": "truncated", "reason": "finish_reason 'length'"}}


def _cases() -> list[TestCase]:
    return [TestCase(id=f"q{i}", model="m", question="Fee?", expected_answer="5 euros",
                     actual_answer="5 euros" if i >= 2 else "5", metadata=CUT if i < 2 else {})
            for i in range(20)]  # fmt: skip


def test_a_plans_check_counts_truncated_answers_as_unmeasured(tmp_path: Path) -> None:
    cases = _cases()
    run = assay.evaluate(cases, ["exact_match"])
    plan = parse_plan(f"""
[run]
suite = "{tmp_path / 's.jsonl'}"
evaluators = ["exact_match"]
[labels]
source = "none"
[[check]]
dimension = "qa"
name = "exact"
metrics = ["exact_match"]
min_pass_rate = 0.5
""")
    [decision] = decide_run(plan, run, cases).decisions
    assert decision.n_unmeasured == 2 and decision.n_cases == 20  # not out of scope
    assert decision.decision == "INCONCLUSIVE" and "unmeasured on 2 of 20" in decision.reason


def test_a_conditional_metric_of_the_implicit_plan_still_counts_them() -> None:
    cases = [c.model_copy(update={"retrieved_context": ["The fee is 5 euros."],
                                  "actual_answer": "The fee is 5 euros."}) for c in _cases()]
    verdict = assess_run(assay.evaluate(cases, ["unsupported_facts"]), cases=cases)
    [decision] = verdict.assessment.decisions  # facts_support: out of scope when no fact stated
    assert decision.metric == "facts_support" and decision.n_unmeasured == 2
