"""Unsupported facts: extraction, normalisation and the evidence listed."""

from __future__ import annotations

import pytest

from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.unsupported_facts import UnsupportedFacts
from assay.text.facts import context_keys, extract_facts, normalise_number

CONTEXT = [
    "Anna Berg opened the Premier account in March 2021. The fee is 12 euros; it is waived above 5,000 euros."
]


def score(answer: str, context: list[str] | None = None) -> object:
    return UnsupportedFacts().evaluate(
        [TestCase(id="1", actual_answer=answer, retrieved_context=context or CONTEXT)]
    )[0]


def test_a_supported_paraphrase_of_facts_is_fully_supported() -> None:
    result = score(
        "In March 2021 Anna Berg opened a Premier account; its fee is twelve euros, waived above 5000 euros."
    )
    assert result.outcomes["facts_support"].value == 1.0  # type: ignore[attr-defined]
    assert result.outcomes["facts_unsupported_count"].value == 0.0  # type: ignore[attr-defined]


def test_a_changed_number_and_name_are_listed() -> None:
    result = score("Anna Smith opened the Premier account in May 2021. The fee is 15 euros.")
    unsupported = {(u["text"], u["kind"]) for u in result.details["unsupported"]}  # type: ignore[attr-defined]
    assert unsupported == {("Smith", "name"), ("May", "date"), ("15", "number")}
    outcomes = result.outcomes  # type: ignore[attr-defined]
    assert outcomes["facts_numbers_support"].value == pytest.approx(1 / 3)  # 2021 kept; May, 15 not
    assert outcomes["facts_names_support"].value == pytest.approx(1 / 2)  # Premier kept, Smith not
    assert outcomes["facts_key_unsupported_count"].value == 3.0
    assert "'15' (number)" in result.explanation  # type: ignore[attr-defined]


def test_an_inserted_negation_is_unsupported_when_the_context_has_none() -> None:
    result = score("The fee is not waived.")
    kinds = [u["kind"] for u in result.details["unsupported"]]  # type: ignore[attr-defined]
    assert kinds == ["negation"]


def test_kinds_without_facts_are_skipped_per_metric() -> None:
    result = score("The fee is waived.")
    outcomes = result.outcomes  # type: ignore[attr-defined]
    assert outcomes["facts_support"].value == 1.0
    assert outcomes["facts_numbers_support"].status is Status.SKIPPED
    assert "no number or date" in (outcomes["facts_numbers_support"].reason or "")
    empty = score("It is.")
    assert empty.outcomes["facts_support"].status is Status.SKIPPED  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("raw", "norm"),
    [("5,000", "5000"), ("1,234,567.50", "1234567.5"), ("007", "7"), ("2.0", "2"), ("1,5", "1.5")],
)
def test_number_normalisation(raw: str, norm: str) -> None:
    assert normalise_number(raw) == norm


def test_stemming_and_case_make_support_robust() -> None:
    keys = context_keys(["Customers closed their accounts."])
    facts = extract_facts("The customer closes the account.")
    assert {f.key for f in facts} <= keys


def test_negation_is_checked_against_the_matching_context_sentence() -> None:
    context = ["The fee is waived above 5,000 euros.", "Cards are not accepted abroad."]
    negated_claim = score("The fee is not waived above 5,000 euros.", context)
    faithful = score("Cards are not accepted abroad.", context)
    assert [u["kind"] for u in negated_claim.details["unsupported"]] == ["negation"]  # type: ignore[attr-defined]
    assert faithful.outcomes["facts_support"].value == 1.0  # type: ignore[attr-defined]


def test_numbers_anywhere_in_a_sentence_are_kept() -> None:
    facts = extract_facts("2021 was good. Not in 2022 though, nor 15 times.")
    assert [(f.text, f.kind) for f in facts if f.kind in ("number", "negation")] == [
        ("2021", "number"),
        ("Not", "negation"),
        ("2022", "number"),
        ("15", "number"),
    ]
