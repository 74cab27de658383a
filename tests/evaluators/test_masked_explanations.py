"""Evaluators that declare ``explanations_masked`` write no sensitive value into an explanation.

The report shows their explanations without scanning them (issue 23), so the claim is checked
here on cases whose answers and references are full of PII and secrets.
"""

from __future__ import annotations

import pytest

from assay.data.case import TestCase
from assay.evaluators import evaluator_class, evaluator_names, get_evaluator
from assay.safety import scrub

#: Raw values that must never appear in an explanation (each is found by the scanners).
SENSITIVE = (
    "jane.doe@example.com",
    "4111 1111 1111 1111",
    "+44 20 7946 0958",
    "GB82 WEST 1234 5698 7654 32",
    "ghp_" + "a1B2" * 9,
    "123-45-6789",
)

MASKED = [n for n in evaluator_names() if evaluator_class(n).explanations_masked]


def _cases() -> list[TestCase]:
    """Answers and references that carry each sensitive value, alone and in sentences."""
    cases = []
    for i, value in enumerate(SENSITIVE):
        cases.append(TestCase(id=f"alone-{i}", actual_answer=value, expected_answer=value))
        cases.append(
            TestCase(
                id=f"prose-{i}",
                question="How do I reach you?",
                actual_answer=f"Write to us, quoting {value}, and we answer within 3 days.",
                expected_answer=[f"Quote {value} when you write.", f"Use {value}."],
                retrieved_context=[f"Customers quote {value} in every letter."],
            )
        )
    return cases


def test_the_lexical_evaluators_declare_it() -> None:
    assert {"rouge", "bleu", "exact_match"} <= set(MASKED)


@pytest.mark.parametrize("name", MASKED)
def test_declared_explanations_hold_no_sensitive_value(name: str) -> None:
    results = get_evaluator(name).evaluate(_cases())
    explained = [r.explanation for r in results if r.explanation]
    assert len(explained) == len(results)  # every case explained: the check looked at each
    for text in explained:
        assert scrub(text) == text, text
        for value in SENSITIVE:
            assert value not in text and value.replace(" ", "") not in text
