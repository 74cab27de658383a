"""Retrieval id spaces: disjoint ids are an error with the cause, ids mapped when asked."""

from __future__ import annotations

from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.retrieval import RetrievalMetrics

DOCS = ("functions", "stdtypes", "json", "pathlib")


def _cases() -> list[TestCase]:
    """The system's own chunk ids (``doc::n``) against a generated suite's (``doc.md#n``)."""
    return [
        TestCase(id=f"q{i}", question="?", relevant_ids={f"{doc}.md#{i}": 1},
                 relevant_context=[f"The {doc} module text number {i}."],
                 context_ids=[f"{DOCS[(i + 1) % 4]}::0", f"{doc}::{i + 5}"],
                 retrieved_context=["Something else entirely.",
                                    f"Intro. The {doc} module text number {i}. More."])
        for i, doc in enumerate(DOCS)
    ]


def test_disjoint_id_spaces_are_an_error_naming_the_cause_never_a_zero() -> None:
    results = RetrievalMetrics().evaluate(_cases())
    for result in results:
        outcome = result.outcomes["average_precision"]
        assert outcome.status is Status.ERROR and outcome.value is None
        assert "disjoint id spaces" in (outcome.reason or "")
        assert "id_match=document" in (outcome.reason or "")


def test_ids_mapped_by_document_or_by_text() -> None:
    by_document = RetrievalMetrics(id_match="document").evaluate(_cases())
    by_text = RetrievalMetrics(id_match="text").evaluate(_cases())
    for results in (by_document, by_text):
        assert [r.outcomes["reciprocal_rank"].value for r in results] == [0.5] * 4
        assert [r.outcomes["hit_at_k"].value for r in results] == [1.0] * 4


def test_a_wrong_but_shared_id_space_is_scored_not_refused() -> None:
    cases = [TestCase(id=f"q{i}", context_ids=[f"d{i + 1}"], relevant_ids={f"d{i}": 1})
             for i in range(4)]
    values = [r.outcomes["average_precision"] for r in RetrievalMetrics().evaluate(cases)]
    assert [o.value for o in values] == [0.0] * 4  # d1..d3 are judged ids: a real miss


def test_context_ids_and_retrieved_context_must_align() -> None:
    case = TestCase(id="q", context_ids=["a", "b"], retrieved_context=["only one"],
                    relevant_ids={"a": 1})
    outcome = RetrievalMetrics().evaluate([case])[0].outcomes["average_precision"]
    assert outcome.status is Status.ERROR and "do not describe the same ranking" in str(
        outcome.reason)
