"""Embedding context relevancy, soft recall/precision and context MRR, checked by hand."""

from __future__ import annotations

import pytest

from assay.backends.embed.fake import FakeEmbedder, TableEmbedder
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.embedding_context import EmbContextMRR, EmbContextRelevancy

Q1, Q2 = "What is the fee?", "Can I close it online?"
QUESTION = f"{Q1} {Q2}"
S1, S2, S3 = "The fee is 12 euros.", "Cards cost 1.5% abroad.", "Close it online anytime."
TABLE = TableEmbedder(
    {
        QUESTION: [0.6, 0.0, 0.8],
        Q1: [1.0, 0.0, 0.0],
        Q2: [0.0, 0.0, 1.0],
        S1: [0.9, 0.0, 0.43588989],  # cos 0.9 with Q1
        S2: [0.0, 1.0, 0.0],  # unrelated to everything
        S3: [0.0, 0.6, 0.8],  # cos 0.8 with Q2
        f"{S1} {S3}": [0.8, 0.0, 0.6],  # the whole chunk: cos 0.96 with the whole question
    }
)


def case(chunks: list[str], question: str = QUESTION) -> TestCase:
    return TestCase(id="q", question=question, retrieved_context=chunks)


def test_relevancy_mean_weighted_minimax_and_soft_recall_precision() -> None:
    evaluator = EmbContextRelevancy(embedder=TABLE, weights=[3.0, 1.0])
    (result,) = evaluator.evaluate([case([S2, f"{S1} {S3}"])])
    got = {k: o.value for k, o in result.outcomes.items()}
    # validation framework: mean over chunks of cos(question, chunk) = (0 + 0.96) / 2
    assert got["emb_context_relevancy"] == pytest.approx((0.0 + 0.96) / 2)
    assert got["emb_context_relevancy_mean"] == pytest.approx((0.9 + 0.8) / 2)
    assert got["emb_context_relevancy_weighted"] == pytest.approx((3 * 0.9 + 0.8) / 4)
    assert got["emb_context_relevancy_minimax"] == pytest.approx(0.8)
    # whole question vs sentences: S1 0.54 + 0.3487 = 0.8887, S3 0.64, S2 0 -> chunks [0, 0.8887]
    assert got["emb_context_soft_recall"] == pytest.approx(0.54 + 0.8 * 0.43588989)
    assert got["emb_context_soft_precision"] == pytest.approx((0.54 + 0.8 * 0.43588989) / 2)
    assert result.details["question_sentences"][1]["best_context_sentence"] == S3
    assert "least covered question sentence (0.80)" in (result.explanation or "")


def test_length_weights_favour_longer_question_sentences() -> None:
    (result,) = EmbContextRelevancy(embedder=TABLE).evaluate([case([S1, S3])])
    # Q1 has 4 words, Q2 has 5 words
    assert result.outcomes["emb_context_relevancy_weighted"].value == pytest.approx(
        (4 * 0.9 + 5 * 0.8) / 9
    )


def test_relevant_context_beats_irrelevant_with_the_fake_embedder() -> None:
    good, bad = EmbContextRelevancy(embedder=FakeEmbedder()).evaluate(
        [
            case(["The monthly fee of the account is 12 euros."], "What is the monthly fee?"),
            case(["Penguins swim in cold water."], "What is the monthly fee?"),
        ]
    )
    key = "emb_context_relevancy_mean"
    assert good.outcomes[key].value > bad.outcomes[key].value  # type: ignore[operator]


def test_mrr_finds_the_first_chunk_above_the_threshold() -> None:
    evaluator = EmbContextMRR(embedder=TABLE, relevance_threshold=0.6)
    first, second, none = evaluator.evaluate([case([S1, S2]), case([S2, S3, S1]), case([S2, S2])])
    assert first.outcomes["emb_context_mrr"].value == 1.0
    assert second.outcomes["emb_context_mrr"].value == pytest.approx(1 / 2)
    assert second.details["first_relevant_rank"] == 2
    assert none.outcomes["emb_context_mrr"].value == 0.0 and "no chunk" in (none.explanation or "")


def test_mrr_rank_cut_off() -> None:
    (result,) = EmbContextMRR(embedder=TABLE, relevance_threshold=0.6, k=2).evaluate(
        [case([S2, S2, S1])]
    )
    assert result.outcomes["emb_context_mrr"].value == 0.0
    assert len(result.details["chunk_relevancy"]) == 2


def test_parameters_are_validated_and_empty_context_skipped() -> None:
    with pytest.raises(InvalidInputError, match="'k' parameter"):
        EmbContextMRR(k=0)
    with pytest.raises(InvalidInputError, match="'relevance_threshold' parameter"):
        EmbContextMRR(relevance_threshold=2)
    with pytest.raises(InvalidInputError, match="'weights' parameter"):
        EmbContextRelevancy(weights="by-vibes")
    (result,) = EmbContextRelevancy(embedder=FakeEmbedder()).evaluate([case(["", " "])])
    assert result.outcomes["emb_context_soft_recall"].status is Status.SKIPPED
