"""Answer relevancy, similarity and accuracy (with the short-answer fallback)."""

from __future__ import annotations

import pytest

from assay.backends.embed.fake import FakeEmbedder, TableEmbedder
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.embedding_answer import (
    EmbAnswerAccuracy,
    EmbAnswerRelevancy,
    EmbAnswerSimilarity,
    levenshtein,
    short_answer_score,
)

Q = "What is the fee?"
A1, A2 = "The fee is 12 euros monthly.", "Penguins are birds."
E1, E2 = "It costs 12 euros monthly.", "It is waived above 5,000 euros."
TABLE = TableEmbedder(
    {
        Q: [1.0, 0.0, 0.0],
        A1: [0.8, 0.6, 0.0],
        A2: [0.0, 0.0, 1.0],
        f"{A1} {A2}": [0.6, 0.0, 0.8],
        E1: [0.8, 0.6, 0.0],
        E2: [0.0, 0.6, 0.8],
        f"{E1} {E2}": [0.6, 0.8, 0.0],
    }
)


def test_answer_relevancy_max_mean_min() -> None:
    (result,) = EmbAnswerRelevancy(embedder=TABLE).evaluate(
        [TestCase(id="1", question=Q, actual_answer=f"{A1} {A2}")]
    )
    got = {k: o.value for k, o in result.outcomes.items()}
    assert got == pytest.approx(
        {
            "emb_answer_relevancy_max": 0.8,
            "emb_answer_relevancy_mean": 0.4,
            "emb_answer_relevancy_weighted": (6 * 0.8 + 3 * 0.0) / 9,  # word-count weights
            "emb_answer_relevancy_min": 0.0,
        }
    )
    assert A2 in (result.explanation or "")


def test_answer_similarity_whole_and_by_sentence() -> None:
    (result,) = EmbAnswerSimilarity(embedder=TABLE).evaluate(
        [TestCase(id="1", actual_answer=f"{A1} {A2}", expected_answer=f"{E1} {E2}")]
    )
    got = {k: o.value for k, o in result.outcomes.items()}
    assert got["emb_answer_similarity"] == pytest.approx(0.36)
    # A1: max(1.0, 0.48) = 1.0; A2: max(0, 0.8) = 0.8
    assert got["emb_answer_sentence_similarity_mean"] == pytest.approx(0.9)
    assert got["emb_answer_sentence_similarity_min"] == pytest.approx(0.8)
    assert result.details["actual_sentences"][1]["best_expected_sentence"] == E2


def test_accuracy_is_the_min_over_actual_sentences_for_long_answers() -> None:
    (result,) = EmbAnswerAccuracy(embedder=TABLE, short_answer_chars=5).evaluate(
        [TestCase(id="1", actual_answer=f"{A1} {A2}", expected_answer=f"{E1} {E2}")]
    )
    assert result.outcomes["emb_answer_accuracy"].value == pytest.approx(0.8)
    assert result.details["method"] == "embedding"


@pytest.mark.parametrize(
    ("method", "actual", "expected", "value"),
    [
        ("edit", "12 euros", "12 euro", 0.875),
        ("edit", "Paris", "paris.", 1.0),
        ("exact", "The answer: Paris", "paris", 0.0),
        ("exact", "The Paris!", "paris", 1.0),
        ("jaccard", "yes it is free", "it is free", 0.75),
    ],
)
def test_short_answer_fallback(method: str, actual: str, expected: str, value: float) -> None:
    assert short_answer_score(actual, expected, method) == pytest.approx(value)
    (result,) = EmbAnswerAccuracy(embedder=FakeEmbedder(), short_answer_method=method).evaluate(
        [TestCase(id="1", actual_answer=actual, expected_answer=expected)]
    )
    assert result.outcomes["emb_answer_accuracy"].value == pytest.approx(value)
    assert result.details["method"] == method


def test_levenshtein_known_values() -> None:
    assert [
        levenshtein(a, b) for a, b in [("", ""), ("abc", ""), ("flaw", "lawn"), ("abc", "abc")]
    ] == [0, 3, 2, 0]


def test_parameters_are_validated() -> None:
    with pytest.raises(InvalidInputError, match="'short_answer_method' parameter"):
        EmbAnswerAccuracy(short_answer_method="fuzzy")
    with pytest.raises(InvalidInputError, match="'short_answer_chars' parameter"):
        EmbAnswerAccuracy(short_answer_chars=-1)
