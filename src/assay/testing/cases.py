"""A small, varied set of cases that every evaluator must handle (used by conformance checks)."""

from __future__ import annotations

from assay.data.case import TestCase

_CONTEXT = [
    "The Premier current account has a monthly fee of 12 euros. The fee is waived when the "
    "balance stays above 5,000 euros.",
    "Card payments abroad cost 1.5% of the amount. Cash withdrawals abroad cost 3 euros each.",
    "Customers can close the account online at any time without charge.",
]


def sample_cases() -> list[TestCase]:
    """Cases with every field set, plus edge cases (empty answer, unicode, repetition, ids only).

    Example:
        >>> len(sample_cases()) >= 6
        True
    """
    base = {
        "question": "What is the monthly fee of the Premier account?",
        "expected_answer": "The Premier account costs 12 euros a month, waived above 5,000 euros.",
        "retrieved_context": _CONTEXT,
        "context_ids": ["fees-1", "fees-2", "close-1"],
        "relevant_ids": {"fees-1": 2.0, "fees-3": 1.0},
        "condition": '"12 euros" AND NOT regexp("(?i)free")',
        "topic": "fees",
        "query_type": "factual",
    }
    return [
        TestCase(
            id="s1",
            model="good",
            actual_answer="The Premier account has a monthly fee of "
            "12 euros. It is waived when your balance stays above 5,000 euros.",
            **base,
        ),
        TestCase(
            id="s1",
            model="bad",
            actual_answer="The Premier account is free. Call us at "
            "+44 20 7946 0958 or write to jane.doe@example.com.",
            **base,
        ),
        TestCase(id="s1", model="terse", actual_answer="12 euros.", **base),
        TestCase(id="s1", model="empty", actual_answer="", **base),
        TestCase(
            id="s2",
            model="good",
            question="Can I close my account online?",
            expected_answer="Yes, online at any time and free of charge.",
            retrieved_context=_CONTEXT[2:],
            context_ids=["close-1"],
            relevant_ids=["close-1"],
            actual_answer="Yes. Yes. Yes. Yes. You can close it "
            "online at any time, free of charge. You can close it online at any time.",
            topic="accounts",
            query_type="yes/no",
        ),
        TestCase(
            id="s3",
            model="good",
            question="Wie hoch ist die Gebühr? 💶",
            expected_answer="Zwölf Euro pro Monat.",
            retrieved_context=["Gebühr: 12 €."],
            context_ids=["de-1"],
            relevant_ids=["de-1"],
            actual_answer="Die Gebühr beträgt zwölf Euro (12 €) pro Monat.",
            topic="fees",
            query_type="factual",
        ),
        TestCase(
            id="s4",
            model="good",
            question="What does a withdrawal abroad cost?",
            expected_answer="3 euros per withdrawal.",
            retrieved_context=_CONTEXT[1:2],
            context_ids=["fees-2"],
            relevant_ids=["fees-2"],
            relevant_context=_CONTEXT[1:2],
            actual_answer="Each cash withdrawal abroad costs 3 euros.",
            topic="fees",
            query_type="factual",
            perturbation="typos",
            parent_id="s1",
        ),
    ]
