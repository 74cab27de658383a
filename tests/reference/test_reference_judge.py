"""Judge evaluators against their reference definitions, on the scripted judge (no network).

Reference: RAGAS (Es et al.; H2O Sonar's RAGAS evaluator), which reports faithfulness, answer
relevancy, context precision and context recall beside their harmonic mean.
"""

from __future__ import annotations

import pytest

from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.judge_ragas import JudgeRagas
from assay.testing import with_test_doubles

CASE = TestCase(
    id="q1",
    question="What does the Premier account cost?",
    expected_answer="It costs 12 euros a month. The fee is waived above 5,000 euros.",
    retrieved_context=["Premier costs 12 euros monthly.", "The fee is waived above 5,000 euros."],
    actual_answer="The Premier account costs 12 euros a month. It is free for students.",
)
COMPONENTS = {
    "judge_ragas_faithfulness": "judge_faithfulness",
    "judge_ragas_answer_relevancy": "judge_answer_relevancy",
    "judge_ragas_context_precision": "judge_context_precision",
    "judge_ragas_context_recall": "judge_context_recall",
}


def test_ragas_components_are_metrics_beside_the_harmonic_mean() -> None:
    [result] = with_test_doubles(JudgeRagas).evaluate([CASE])
    parts = result.details["components"]
    for metric, component in COMPONENTS.items():
        assert result.outcomes[metric].status is Status.OK
        assert result.outcomes[metric].value == pytest.approx(parts[component])
    values = [max(result.outcomes[m].value or 0.0, 0.0) for m in COMPONENTS]
    expected = 0.0 if min(values) == 0 else 4 / sum(1 / v for v in values)
    assert result.outcomes["judge_ragas"].value == pytest.approx(expected)
