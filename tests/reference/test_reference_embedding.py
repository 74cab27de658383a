"""Embedding evaluators against their reference definitions.

References: the HCAT paper §3.3.2 (completeness as the Wasserstein distance between context and
answer sentence embeddings, approximated by the mean of all pairwise distances,
(1/nk) Σᵢ Σⱼ d(cᵢ, aⱼ)); HCAT §3.4 (answer relevancy: each answer sentence's max similarity over
the question's sentences, and its weighted form); H2O Sonar's "answer relevancy (sentence
similarity)" (max over the answer's sentences of the similarity to the question).
"""

from __future__ import annotations

import numpy as np
import pytest

from assay.backends.embed.fake import TableEmbedder
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.embedding_answer import EmbAnswerRelevancy
from assay.evaluators.embedding_completeness import (
    EmbCompleteness,
    wasserstein_approx,
    wasserstein_exact,
)

WORKED = np.array([[0.0, 1.0], [1.0, 0.5]])


def test_hcat_3_3_2_approximation_is_the_mean_of_all_pairwise_distances() -> None:
    # (1/nk) Σᵢ Σⱼ d(cᵢ, aⱼ) = (0 + 1 + 1 + 0.5) / 4
    assert wasserstein_approx(WORKED) == pytest.approx(0.625)
    assert EmbCompleteness().approx == "pairwise"


def test_hcat_3_3_2_approximation_on_unequal_sizes() -> None:
    costs = np.array([[0.2, 0.4, 0.9], [1.0, 0.0, 0.3]])  # n = 2 context, k = 3 answer sentences
    expected = sum(sum(row) for row in costs.tolist()) / (2 * 3)
    assert wasserstein_approx(costs) == pytest.approx(expected)


def test_exact_distance_is_kept_and_lies_between_the_two_approximations() -> None:
    assert wasserstein_exact(WORKED) == pytest.approx(0.25)
    assert wasserstein_approx(WORKED, "nearest") == pytest.approx(0.25)
    rng = np.random.default_rng(7)
    for shape in ((3, 5), (4, 4), (1, 6)):
        costs = rng.random(shape) * 2
        exact = wasserstein_exact(costs)
        assert wasserstein_approx(costs, "nearest") <= exact + 1e-12
        assert exact <= wasserstein_approx(costs) + 1e-12


def test_unknown_approximation_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="'approx' parameter of EmbCompleteness"):
        EmbCompleteness(approx="sinkhorn")


Q1, Q2 = "I have a current account.", "What is the monthly fee?"
A1, A2 = "The monthly fee is 12 euros.", "Penguins are birds."
RELEVANCY_TABLE = TableEmbedder(
    {
        Q1: [0.0, 1.0, 0.0],
        Q2: [1.0, 0.0, 0.0],
        A1: [0.8, 0.6, 0.0],  # cos 0.8 with Q2, 0.6 with Q1
        A2: [0.0, 0.6, 0.8],  # cos 0.0 with Q2, 0.6 with Q1
    }
)


def _relevancy(**params: object) -> dict[str, float | None]:
    evaluator = EmbAnswerRelevancy(embedder=RELEVANCY_TABLE, **params)  # type: ignore[arg-type]
    (result,) = evaluator.evaluate(
        [TestCase(id="r", question=f"{Q1} {Q2}", actual_answer=f"{A1} {A2}")]
    )
    return {k: o.value for k, o in result.outcomes.items()}


def test_hcat_3_4_answer_sentence_relevance_is_the_max_over_question_sentences() -> None:
    got = _relevancy()
    # per answer sentence: A1 max(0.6, 0.8) = 0.8, A2 max(0.6, 0.0) = 0.6
    assert got["emb_answer_relevancy_mean"] == pytest.approx((0.8 + 0.6) / 2)
    assert got["emb_answer_relevancy_min"] == pytest.approx(0.6)
    # H2O Sonar "answer relevancy (sentence similarity)": max over answer sentences
    assert got["emb_answer_relevancy_max"] == pytest.approx(0.8)


def test_hcat_3_4_weighted_form() -> None:
    # word-count weights by default: A1 has 6 words, A2 3
    assert _relevancy()["emb_answer_relevancy_weighted"] == pytest.approx((6 * 0.8 + 3 * 0.6) / 9)
    explicit = _relevancy(weights=[1.0, 3.0])["emb_answer_relevancy_weighted"]
    assert explicit == pytest.approx((0.8 + 3 * 0.6) / 4)


C1, C2 = "The fee is 12 euros a month.", "Cards are free."
GROUNDEDNESS_TABLE = TableEmbedder(
    {
        C1: [1.0, 0.0, 0.0],
        C2: [0.0, 1.0, 0.0],
        A1: [0.8, 0.6, 0.0],  # cos 0.8 with C1, 0.6 with C2
        A2: [0.0, 0.6, 0.8],  # cos 0.0 with C1, 0.6 with C2
    }
)


def test_h2o_sonar_groundedness_primary_is_the_min_over_answer_sentences() -> None:
    from assay.evaluators.embedding_groundedness import EmbGroundedness

    evaluator = EmbGroundedness(embedder=GROUNDEDNESS_TABLE)  # type: ignore[arg-type]
    (result,) = evaluator.evaluate(
        [TestCase(id="g", actual_answer=f"{A1} {A2}", retrieved_context=[f"{C1} {C2}"])]
    )
    # per answer sentence, max over context sentences: A1 0.8, A2 0.6; the least grounded wins
    assert EmbGroundedness.primary_metric().name == "emb_groundedness_min"
    assert result.outcomes["emb_groundedness_min"].value == pytest.approx(0.6)
    assert result.outcomes["emb_groundedness_mean"].value == pytest.approx(0.7)
    assert EmbGroundedness.metric("emb_groundedness_min").passes(0.6) is True  # threshold 0.5
