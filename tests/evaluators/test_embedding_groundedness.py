"""Embedding groundedness and completeness: hand-checked values, explanations, dedup, pickling."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

from assay.backends.embed.fake import FakeEmbedder, TableEmbedder
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.embedding_completeness import (
    EmbCompleteness,
    cost_matrix,
    wasserstein_approx,
    wasserstein_exact,
)
from assay.evaluators.embedding_groundedness import EmbGroundedness

C1, C2, C3 = "The fee is 12 euros.", "It is waived above 5,000 euros.", "Cards cost 1.5% abroad."
A1, A2 = "The fee is twelve euros.", "Penguins live in Antarctica."
TABLE = TableEmbedder(
    {
        C1: [1.0, 0.0, 0.0],
        C2: [0.0, 1.0, 0.0],
        C3: [0.0, 0.0, 1.0],
        A1: [0.8, 0.6, 0.0],  # cos 0.8 with C1, 0.6 with C2
        A2: [0.0, 0.6, -0.8],  # cos 0.6 with C2, -0.8 with C3
    }
)


def case(answer: str, context: list[str] | None = None, **kw: object) -> TestCase:
    kw.setdefault("id", "c")
    return TestCase(actual_answer=answer, retrieved_context=context or [f"{C1} {C2}", C3], **kw)  # type: ignore[arg-type]


def values(result: object) -> dict[str, float | None]:
    return {k: o.value for k, o in result.outcomes.items()}  # type: ignore[attr-defined]


def test_groundedness_is_the_mean_and_min_of_per_sentence_max_similarity() -> None:
    (result,) = EmbGroundedness(embedder=TABLE).evaluate([case(f"{A1} {A2}")])
    assert values(result) == pytest.approx(
        {"emb_groundedness_mean": 0.7, "emb_groundedness_min": 0.6}
    )
    assert result.details["least_grounded"] == {"index": 1, "sentence": A2}
    assert result.details["answer_sentences"][0]["best_context_sentence"] == C1
    assert result.details["answer_sentences"][0]["chunk"] == 0
    assert A2 in (result.explanation or "") and "0.60" in (result.explanation or "")


def test_faithful_answer_scores_higher_than_an_unrelated_one() -> None:
    faithful, unrelated = EmbGroundedness(embedder=FakeEmbedder()).evaluate(
        [case("The fee is 12 euros."), case("Penguins like cold water.")]
    )
    assert (
        values(faithful)["emb_groundedness_mean"]
        > 0.9
        > 0.5
        > values(unrelated)["emb_groundedness_mean"]
    )


def test_empty_texts_are_skipped_with_a_reason() -> None:
    no_answer, no_context = EmbGroundedness(embedder=FakeEmbedder()).evaluate(
        [case(""), case("Fine.", context=["", "  "])]
    )
    assert {o.status for o in no_answer.outcomes.values()} == {Status.SKIPPED}
    assert "answer has no sentences" in (no_answer.outcomes["emb_groundedness_mean"].reason or "")
    assert "context has no sentences" in (no_context.outcomes["emb_groundedness_min"].reason or "")


def test_sentences_are_deduplicated_across_the_batch_and_cases_scored_once() -> None:
    fake = FakeEmbedder()
    evaluator = EmbGroundedness(embedder=fake)
    batch = [case(f"{A1} {A2}", id=str(i)) if i % 2 else case(A1) for i in range(50)]
    results = evaluator.evaluate(batch)
    assert fake.calls == 1 and fake.texts_encoded == 5  # 3 context + 2 answer sentences
    assert values(results[1]) == values(results[49]) and values(results[0]) == values(results[2])
    evaluator.evaluate(batch)
    assert fake.calls == 1  # second batch: all from memory


def test_evaluator_pickles_without_the_loaded_embedder() -> None:
    evaluator = EmbGroundedness(embedder="fake")
    evaluator.evaluate([case(A1)])
    assert "_resolved" in evaluator.__dict__
    clone = pickle.loads(pickle.dumps(evaluator))
    assert "_resolved" not in clone.__dict__ and clone.embedder == "fake"
    assert values(clone.evaluate([case(A1)])[0]) == values(evaluator.evaluate([case(A1)])[0])


def test_bad_embedder_parameter_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="'embedder' parameter of EmbGroundedness"):
        EmbGroundedness(embedder=3.5)  # type: ignore[arg-type]


def test_completeness_per_context_sentence_and_weights() -> None:
    evaluator = EmbCompleteness(embedder=TABLE, weights=[1.0, 3.0, 0.0])
    (result,) = evaluator.evaluate([case(f"{A1} {A2}")])
    got = values(result)
    # context maxima: C1 0.8, C2 0.6, C3 0.0 (A1 gives 0, A2 gives -0.8)
    assert got["emb_completeness_mean"] == pytest.approx((0.8 + 0.6 + 0.0) / 3)
    assert got["emb_completeness_weighted"] == pytest.approx((0.8 + 3 * 0.6) / 4)
    assert result.details["least_covered"][0]["sentence"] == C3
    assert (
        0 <= got["emb_completeness_wasserstein"] <= got["emb_completeness_wasserstein_approx"] <= 2
    )


def test_wasserstein_exact_matches_an_assignment_for_equal_sizes() -> None:
    rng = np.random.default_rng(1)
    for n in (1, 3, 6):
        costs = rng.random((n, n)) * 2
        rows, cols = linear_sum_assignment(costs)
        assert wasserstein_exact(costs) == pytest.approx(costs[rows, cols].mean())
        assert wasserstein_approx(costs, "nearest") <= wasserstein_exact(costs) + 1e-12
        assert wasserstein_exact(costs) <= wasserstein_approx(costs) + 1e-12


def test_wasserstein_of_identical_sets_is_zero_and_costs_are_bounded() -> None:
    sims = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for cost in ("cosine", "euclidean"):
        costs = cost_matrix(sims, cost)
        assert costs.max() == pytest.approx(2.0) and costs.min() == 0.0
        assert wasserstein_exact(costs) == pytest.approx(0.0)
    with pytest.raises(InvalidInputError, match="'cost' parameter"):
        EmbCompleteness(cost="manhattan")
    with pytest.raises(InvalidInputError, match="'weights' parameter"):
        EmbCompleteness(weights=[-1.0])


def test_euclidean_cost_changes_only_the_wasserstein_metrics() -> None:
    cos, euc = (
        values(EmbCompleteness(embedder=TABLE, cost=c).evaluate([case(f"{A1} {A2}")])[0])
        for c in ("cosine", "euclidean")
    )
    assert cos["emb_completeness_mean"] == euc["emb_completeness_mean"]
    assert cos["emb_completeness_wasserstein"] != euc["emb_completeness_wasserstein"]


def test_exact_wasserstein_equals_pot_for_any_sizes() -> None:
    pytest.importorskip("ot")
    from assay.evaluators.embedding_completeness import wasserstein_pot

    rng = np.random.default_rng(7)
    for n, m in [(1, 1), (2, 3), (5, 4), (7, 11), (13, 1)]:
        costs = rng.random((n, m)) * 2
        assert wasserstein_exact(costs) == pytest.approx(wasserstein_pot(costs), abs=1e-12)
        assert wasserstein_exact(costs, assignment_limit=0) == pytest.approx(wasserstein_pot(costs))
