"""Conformance of the retrieval evaluator with its reference definitions.

References: the six-dimension validation framework (§1 retrieval: precision = relevant retrieved /
retrieved; recall = relevant retrieved / relevant, counting everything retrieved) and the
RAG-metrics article's worked example (3 retrieved, 1 relevant: precision 1/3; MRR over first
relevant ranks 3, 1, 2 = 0.611). trec_eval's ``P_k`` stays available as ``precision="k"`` (its
parity tests are in tests/evaluators/test_retrieval.py).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pytest

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.embedding_retrieval import SemanticRetrievalMetrics
from assay.evaluators.retrieval import RetrievalMetrics, retrieval_scores


def test_article_precision_is_relevant_retrieved_over_retrieved() -> None:
    # article: 3 chunks retrieved, 1 of them relevant -> precision 0.33 (assay gave 0.10 at k=10)
    s = retrieval_scores(["c1", "c2", "c3"], {"c2": 1}, k=10)
    assert s["precision"] == pytest.approx(1 / 3)
    assert s["precision_at_k"] == pytest.approx(1 / 3)
    assert s["recall"] == 1.0
    assert s["f1"] == pytest.approx(2 * (1 / 3) * 1 / (1 / 3 + 1))
    assert s["f1_at_k"] == pytest.approx(0.5)
    # trec_eval's P_10 divides by k even when only 3 were retrieved
    assert retrieval_scores(["c1", "c2", "c3"], {"c2": 1}, k=10, precision="k")[
        "precision_at_k"
    ] == pytest.approx(0.1)


def test_framework_recall_counts_everything_retrieved() -> None:
    # 2 of 3 relevant chunks retrieved, one beyond the cut-off k=2
    s = retrieval_scores(["a", "x", "b"], {"a": 1, "b": 1, "c": 1}, k=2)
    assert s["recall"] == pytest.approx(2 / 3)  # everything retrieved
    assert s["recall_at_k"] == pytest.approx(1 / 3)  # trec_eval recall_2
    assert s["precision"] == pytest.approx(2 / 3)
    assert s["precision_at_k"] == pytest.approx(1 / 2)


def test_article_mrr_is_0_611() -> None:
    # first relevant results at ranks 3, 1 and 2: MRR = (1/3 + 1 + 1/2) / 3 = 0.611
    cases = [
        TestCase(id="avery", context_ids=["a", "b", "c", "d"], relevant_ids={"c": 1}),
        TestCase(id="homeprotect", context_ids=["e", "f"], relevant_ids={"e": 1}),
        TestCase(id="address", context_ids=["g", "h", "i"], relevant_ids={"h": 1}),
    ]
    rr = [r.outcomes["reciprocal_rank"].value for r in RetrievalMetrics().evaluate(cases)]
    assert rr == pytest.approx([1 / 3, 1.0, 0.5])
    assert round(sum(rr) / 3, 3) == 0.611


def test_average_precision_cg_dcg_idcg_ndcg_by_formula() -> None:
    # graded ranking 3, 2, 0, 1 (article formulas: CG = Σ rel, DCG = Σ rel / log2(i + 1),
    # IDCG = DCG of the ideal order, NDCG = DCG / IDCG; AP = mean precision at relevant ranks)
    ranking = ["d1", "d2", "d3", "d4"]
    grades = {"d1": 3, "d2": 2, "d4": 1, "d5": 0}
    s = retrieval_scores(ranking, grades, k=4)
    rel = [3, 2, 0, 1]
    cg = sum(rel)
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(rel))
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(rel, reverse=True)))
    assert cg == 6
    assert dcg == pytest.approx(3 + 2 / math.log2(3) + 1 / math.log2(5))
    assert s["ndcg"] == pytest.approx(dcg / idcg)
    assert s["average_precision"] == pytest.approx((1 / 1 + 2 / 2 + 3 / 4) / 3)


def test_precision_option_is_validated_and_recorded() -> None:
    with pytest.raises(InvalidInputError, match="'precision' parameter"):
        RetrievalMetrics(precision="R")
    case = TestCase(id="q", context_ids=["a", "b"], relevant_ids={"b": 1})
    ev = RetrievalMetrics(k=5, precision="k")
    assert ev.spec()["params"]["precision"] == "k"
    assert ev.evaluate([case])[0].outcomes["precision_at_k"].value == pytest.approx(1 / 5)
    assert RetrievalMetrics(k=5).evaluate([case])[0].outcomes["precision_at_k"].value == 0.5


class _TableEmbedder:
    """Unit vectors chosen per text, so the similarities of the test are exact."""

    model_id = "table-embedder-for-tests"

    def __init__(self, table: dict[str, list[float]]) -> None:
        self.table = table

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        rows = np.array([self.table[t] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_chunks_without_ids_are_matched_by_similarity() -> None:
    # framework §1: without ids, a retrieved chunk is relevant when it is similar enough to a
    # ground-truth chunk; the threshold is explicit
    table = {
        "fee text": [1, 0, 0],
        "fee text, reworded": [0.95, 0.31, 0],  # cosine 0.95 with "fee text"
        "unrelated": [0, 0, 1],
        "limit text": [0, 1, 0],
    }
    case = TestCase(
        id="q",
        retrieved_context=["unrelated", "fee text, reworded", "fee text"],
        relevant_context=["fee text", "limit text"],
    )
    evaluator = SemanticRetrievalMetrics(embedder=_TableEmbedder(table), threshold=0.9)
    [result] = evaluator.evaluate([case])
    values = {name: o.value for name, o in result.outcomes.items()}
    # ranking: miss, hit of "fee text", a second match of the same chunk (not counted twice)
    assert values["sem_reciprocal_rank"] == 0.5
    assert values["sem_precision"] == pytest.approx(1 / 3)
    assert values["sem_recall"] == 0.5
    assert result.details["threshold"] == 0.9
    strict = SemanticRetrievalMetrics(embedder=_TableEmbedder(table), threshold=0.99)
    [none] = strict.evaluate(
        [case.model_copy(update={"retrieved_context": ["fee text, reworded"]})]
    )
    assert none.outcomes["sem_recall"].value == 0.0
    assert SemanticRetrievalMetrics.primary_metric().name == "sem_average_precision"
    with pytest.raises(InvalidInputError, match="'threshold' parameter"):
        SemanticRetrievalMetrics(threshold=1.5)


def test_missing_ground_truth_texts_are_skipped() -> None:
    evaluator = SemanticRetrievalMetrics(embedder=_TableEmbedder({"a": [1.0, 0.0]}))
    [result] = evaluator.evaluate([TestCase(id="q", retrieved_context=["a"])])
    outcome = result.outcomes["sem_precision"]
    assert outcome.status.value == "skipped" and "relevant_context" in (outcome.reason or "")
