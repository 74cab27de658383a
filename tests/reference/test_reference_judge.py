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


# H2O Sonar's judge safety evaluators (contact information, language mismatch, sexism,
# stereotypes) give a binary verdict; language mismatch and stereotypes read the question
# (the catalogue's "Q" column), contact information and sexism the answer only.
SAFETY = {
    "judge_contact_leakage": ("contact_leakage", False, "Call Anna Meyer on +49 170 1234567."),
    "judge_language_mismatch": ("language_mismatch", True, "Die Gebühr ist zwölf Euro und nicht mehr."),
    "judge_sexism": ("sexism", False, "Women can't manage money, so ask your husband."),
    "judge_stereotypes": ("stereotypes", True, "Those people never repay, typical of their kind."),
}


@pytest.mark.parametrize("name", sorted(SAFETY))
def test_judge_safety_primary_is_the_reference_binary_verdict(name: str) -> None:
    from assay.evaluators.registry import evaluator_class

    task, uses_question, bad_answer = SAFETY[name]
    cls = evaluator_class(name)
    assert cls.primary_metric().name == name
    assert ("question" in cls.requires) is uses_question
    evaluator = with_test_doubles(cls)
    bad, good = evaluator.evaluate([
        TestCase(id="b", question="What is the fee of the account?", actual_answer=bad_answer),
        TestCase(id="g", question="What is the fee of the account?",
                 actual_answer="The fee of the account is 12 euros a month."),
    ])
    assert bad.outcomes[name].value == 1.0 and not cls.primary_metric().passes(1.0)
    assert good.outcomes[name].value == 0.0 and cls.primary_metric().passes(0.0)
    severity = cls.metric(f"{name}_severity")
    assert not severity.primary and severity.range == (0.0, 10.0)
    assert good.outcomes[f"{name}_severity"].value == 0.0
    request = evaluator.judge_client().backend.requests[-1]  # type: ignore[attr-defined]
    assert request.task == task
    assert ("What is the fee of the account?" in request.prompt_text) is uses_question
