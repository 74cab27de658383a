"""Retrieval metrics: trec_eval parity on NIST data, pytrec_eval agreement, hand-computed cases."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from pathlib import Path

import pytest

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.retrieval import RetrievalMetrics, retrieval_scores
from assay.testing import check_evaluator

# trec_eval measure -> (assay metric, k)
TREC_MEASURES = {
    "map": ("average_precision", 10),
    "recip_rank": ("reciprocal_rank", 10),
    "ndcg": ("ndcg", 10),
    "ndcg_cut_10": ("ndcg_at_k", 10),
    "P_5": ("precision_at_k", 5),
    "P_10": ("precision_at_k", 10),
    "recall_100": ("recall_at_k", 100),
    "Rprec": ("r_precision", 10),
}


def _load_trec(folder: Path) -> tuple[dict[str, dict[str, float]], dict[str, list[str]]]:
    qrels: dict[str, dict[str, float]] = defaultdict(dict)
    for line in (folder / "qrels.test").read_text().splitlines():
        qid, _, doc, rel = line.split()
        qrels[qid][doc] = float(rel)
    scored: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in (folder / "results.test").read_text().splitlines():
        qid, _, doc, _rank, score, _tag = line.split()
        scored[qid].append((float(score), doc))
    # trec_eval ranks by descending score, ties broken by descending docid
    runs = {q: [d for _, d in sorted(rows, reverse=True)] for q, rows in scored.items()}
    return qrels, runs


def _expected(path: Path) -> dict[tuple[str, str], float]:
    out = {}
    for line in path.read_text().splitlines():
        measure, qid, value = line.split()
        if measure in TREC_MEASURES:
            out[(measure, qid)] = float(value)
    return out


@pytest.fixture(scope="module")
def trec(shared_data: Path):
    folder = shared_data / "retrieval" / "trec_eval"
    if not (folder / "qrels.test").is_file():
        pytest.skip(f"trec_eval test data not found in {folder}")
    return folder, *_load_trec(folder)


def test_trec_eval_parity_per_query_and_means(trec) -> None:
    folder, qrels, runs = trec
    per_query = _expected(folder / "out.test.aq")
    means = _expected(folder / "out.test")
    assert len(per_query) == 8 * 4  # 3 queries + "all"
    values: dict[str, list[float]] = defaultdict(list)
    for qid, ranking in sorted(runs.items()):
        for measure, (metric, k) in TREC_MEASURES.items():
            value = retrieval_scores(ranking, qrels[qid], k, precision="k")[metric]
            assert abs(value - per_query[(measure, qid)]) < 5e-5 + 1e-12, (measure, qid, value)
            values[measure].append(value)
    for measure, vals in values.items():
        mean = sum(vals) / len(vals)
        assert abs(mean - per_query[(measure, "all")]) < 5e-5, measure
        if (measure, "all") in means:
            assert abs(mean - means[(measure, "all")]) < 5e-5, measure


def test_trec_eval_parity_through_the_evaluator(trec) -> None:
    folder, qrels, runs = trec
    expected = _expected(folder / "out.test.aq")
    cases = [
        TestCase(id=qid, context_ids=ranking, relevant_ids=qrels[qid])
        for qid, ranking in sorted(runs.items())
    ]
    results = RetrievalMetrics(k=10, precision="k").evaluate(cases)
    maps = [r.outcomes["average_precision"].value for r in results]
    assert round(sum(maps) / 3, 4) == expected[("map", "all")]
    ndcg10 = [r.outcomes["ndcg_at_k"].value for r in results]
    assert round(sum(ndcg10) / 3, 4) == expected[("ndcg_cut_10", "all")]
    at5 = [r.details["at"]["5"]["precision"] for r in results]
    assert round(sum(at5) / 3, 4) == expected[("P_5", "all")]


def _random_query(rng: random.Random) -> tuple[dict[str, float], dict[str, float]]:
    pool = [f"d{i}" for i in range(rng.randint(5, 60))]
    judged = rng.sample(pool, rng.randint(1, len(pool)))
    qrel = {d: float(rng.choice([0, 0, 1, 2, 3])) for d in judged}
    if not any(qrel.values()):
        qrel[judged[0]] = 1.0
    retrieved = rng.sample(pool, rng.randint(0, len(pool)))
    run = {d: float(len(retrieved) - i) + rng.random() * 0.1 for i, d in enumerate(retrieved)}
    return qrel, run


def test_agrees_with_pytrec_eval_on_random_runs() -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval", reason="pytrec-eval-terrier not installed")
    rng = random.Random(7)
    qrels, runs = {}, {}
    for q in range(300):
        qrels[f"q{q}"], runs[f"q{q}"] = _random_query(rng)
    runs = {q: r for q, r in runs.items() if r}
    measures = {
        "map",
        "recip_rank",
        "ndcg",
        "ndcg_cut.3,10",
        "P.3,10",
        "recall.3,10",
        "Rprec",
        "success.3,10",
    }
    reference = pytrec_eval.RelevanceEvaluator(
        {q: {d: int(g) for d, g in r.items()} for q, r in qrels.items()}, measures
    ).evaluate(runs)
    checked = 0
    for qid, run in runs.items():
        ranking = sorted(run, key=lambda d: (-run[d], d))
        ref = reference[qid]
        for k in (3, 10):
            ours = retrieval_scores(ranking, qrels[qid], k, precision="k")
            assert math.isclose(ours["precision_at_k"], ref[f"P_{k}"], abs_tol=1e-9)
            assert math.isclose(ours["recall_at_k"], ref[f"recall_{k}"], abs_tol=1e-9)
            assert math.isclose(ours["ndcg_at_k"], ref[f"ndcg_cut_{k}"], abs_tol=1e-9)
            assert ours["hit_at_k"] == ref[f"success_{k}"]
            p, r = ref[f"P_{k}"], ref[f"recall_{k}"]
            assert math.isclose(
                ours["f1_at_k"], 2 * p * r / (p + r) if p + r else 0.0, abs_tol=1e-9
            )
        assert math.isclose(ours["average_precision"], ref["map"], abs_tol=1e-9)
        assert math.isclose(ours["reciprocal_rank"], ref["recip_rank"], abs_tol=1e-9)
        assert math.isclose(ours["ndcg"], ref["ndcg"], abs_tol=1e-9)
        assert math.isclose(ours["r_precision"], ref["Rprec"], abs_tol=1e-9)
        checked += 1
    assert checked > 250


def test_hand_computed_values() -> None:
    s = retrieval_scores(["a", "x", "b", "y"], {"a": 1, "b": 1, "c": 1}, k=2)
    assert s["precision_at_k"] == 0.5
    assert s["recall_at_k"] == pytest.approx(1 / 3)
    assert s["f1_at_k"] == pytest.approx(2 * 0.5 * (1 / 3) / (0.5 + 1 / 3))
    assert s["average_precision"] == pytest.approx((1 + 2 / 3) / 3)
    assert s["r_precision"] == pytest.approx(2 / 3)
    assert s["reciprocal_rank"] == 1.0
    # graded NDCG: gains 3 at rank 2 and 1 at rank 1; ideal 3 then 1
    g = retrieval_scores(["b", "a"], {"a": 3, "b": 1}, k=1)
    dcg = 1 + 3 / math.log2(3)
    idcg = 3 + 1 / math.log2(3)
    assert g["ndcg"] == pytest.approx(dcg / idcg)
    assert g["ndcg_at_k"] == pytest.approx(1 / 3)


def test_duplicates_count_once_and_short_lists_divide_by_k() -> None:
    s = retrieval_scores(["a", "a", "a"], {"a": 1, "b": 1}, k=5, precision="k")
    assert s["precision_at_k"] == pytest.approx(1 / 5)  # trec_eval P_5
    assert retrieval_scores(["a", "a", "a"], {"a": 1, "b": 1}, k=5)["precision_at_k"] == 1.0
    assert s["recall_at_k"] == 0.5


def test_long_rankings_equal_a_plain_per_rank_loop() -> None:
    """Rankings and judgements past the precomputed discount table (1,024 ranks) give exactly
    what trec_eval's per-rank loop gives (same terms, same order)."""
    rng = random.Random(3)
    ranking = [f"d{rng.randrange(5000)}" for _ in range(3000)]  # with repeats
    qrel = {f"d{i}": float(rng.choice([0, 1, 2, 3])) for i in range(0, 5000, 2)}
    ranked = list(dict.fromkeys(ranking))
    hits, ap, dcg = 0, 0.0, 0.0
    for rank, doc in enumerate(ranked, start=1):
        gain = qrel.get(doc, 0.0)
        if gain > 0:
            hits += 1
            ap += hits / rank
        dcg += gain / math.log2(rank + 1)
    ideal = sorted((g for g in qrel.values() if g > 0), reverse=True)
    idcg = 0.0
    for rank, gain in enumerate(ideal, start=1):
        idcg += gain / math.log2(rank + 1)
    s = retrieval_scores(ranking, qrel, k=2000)
    assert len(ranked) > 1024 and len(ideal) > 1024
    assert s["average_precision"] == ap / len(ideal)
    assert s["ndcg"] == dcg / idcg
    assert s["recall"] == hits / len(ideal)


def test_no_hit_gives_zeros_not_skips() -> None:
    s = retrieval_scores(["x", "y"], {"a": 2}, k=10)
    assert s == {
        **s,
        "reciprocal_rank": 0.0,
        "average_precision": 0.0,
        "ndcg": 0.0,
        "hit_at_k": 0.0,
    }


def test_missing_or_unjudged_ids_are_skipped_with_reason() -> None:
    ev = RetrievalMetrics()
    cases = [
        TestCase(id="no-ids", relevant_ids=["a"], retrieved_context=["a text that says a"]),
        TestCase(id="no-rel", context_ids=["a"], relevant_ids={"a": 0}),
        TestCase(id="empty", context_ids=["a"], relevant_ids={}),
        TestCase(id="empty-run", context_ids=[], relevant_ids=["a"]),
    ]
    results = ev.evaluate(cases)
    assert results[0].outcomes["ndcg"].status is Status.SKIPPED
    assert "context_ids" in results[0].outcomes["ndcg"].reason
    for r in results[1:3]:
        assert r.outcomes["ndcg"].status is Status.SKIPPED
        assert "no relevant id" in r.outcomes["ndcg"].reason
    assert results[3].outcomes["ndcg"].value == 0.0


def test_details_and_explanation() -> None:
    case = TestCase(id="q", context_ids=["x", "a", "b"], relevant_ids={"a": 1, "c": 1})
    result = RetrievalMetrics(k=2, report_ks=(1, 2)).evaluate([case])[0]
    assert result.details["relevant_ranks"] == [2]
    assert result.details["at"]["1"]["precision"] == 0.0
    assert result.details["at"]["2"]["recall"] == 0.5
    assert "1 of 2 relevant ids retrieved, first at rank 2" in result.explanation


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_k_is_validated(bad) -> None:
    with pytest.raises(InvalidInputError, match="'k' parameter of RetrievalMetrics"):
        RetrievalMetrics(k=bad)


def test_conformance() -> None:
    check_evaluator(RetrievalMetrics())
