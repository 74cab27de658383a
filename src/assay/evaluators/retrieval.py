"""Rank-based retrieval metrics from retrieved ids against graded relevance judgements.

Precision is the reference definition of the validation framework and the RAG-metrics article:
relevant retrieved / retrieved, so 1 relevant among 3 retrieved is 1/3 whatever the cut-off ``k``
(with ``k`` the first ``min(k, n_retrieved)`` count). trec_eval's ``P_k`` divides by ``k`` even
when fewer than ``k`` documents were retrieved; it is one parameter away (``precision="k"``).
``precision``, ``recall`` and ``f1`` (no cut-off) count everything retrieved, as the framework's
recall does. Every other definition follows trec_eval (usnistgov/trec_eval), so values equal its
output:

* the ranking is ``context_ids`` in order; repeated ids count once, at their first rank;
* a document is relevant when its grade in ``relevant_ids`` is > 0 (grade 0 = judged
  non-relevant, as in TREC qrels); ``R`` is the number of relevant documents;
* recall@k divides by ``R`` (``recall_k``); R-precision is precision at rank ``R`` (``Rprec``);
* average precision sums the precision at the rank of each retrieved relevant document and divides
  by ``R`` (``map``); reciprocal rank is 1 / rank of the first relevant document (``recip_rank``);
* NDCG uses the grade as gain and a ``log2(rank + 1)`` discount; the ideal ranking orders every
  relevant document by grade (``ndcg``); NDCG@k cuts both at ``k`` (``ndcg_cut_k``).

MRR and MAP are the means of ``reciprocal_rank`` and ``average_precision`` over cases (the mean
aggregation of the run). A case without ids, or whose judgements hold no relevant document, is
skipped with the reason: nothing is ever guessed from texts unless asked (``id_match="text"``).
Ids are compared as they are by default; ``id_match="document"`` or ``"text"`` matches a
system's own chunk ids to the suite's (:mod:`assay.evaluators.retrieval_ids`). A batch whose
retrieved and relevant ids never meet, or a case whose ``context_ids`` and
``retrieved_context`` differ in length, is an error with the reason, never a score of 0.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from functools import partial
from itertools import accumulate, compress, count, islice
from operator import truediv
from typing import Any

from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, MetricSpec, Status, field_present
from assay.evaluators.batch import BatchBuilder, LazyColumn, ResultBatch, without_cyclic_gc
from assay.evaluators.registry import register
from assay.evaluators.retrieval_ids import ID_MATCHES, disjoint_spaces, judgement, misaligned
from assay.params import check, check_choice, check_int

#: Metric names, in the order :func:`retrieval_scores` returns them.
RETRIEVAL_METRICS = (
    "precision",
    "recall",
    "f1",
    "precision_at_k",
    "recall_at_k",
    "f1_at_k",
    "hit_at_k",
    "ndcg_at_k",
    "r_precision",
    "reciprocal_rank",
    "average_precision",
    "ndcg",
)


#: ``_DISCOUNT[r]`` is ``log2(r + 1)``, the DCG discount of rank ``r``; replaced, never mutated,
#: when a longer ranking comes (so a thread reading the old table still reads right values).
_DISCOUNT = [math.log2(r + 1) for r in range(1025)]


def _discounts(n: int) -> list[float]:
    """A discount table covering ranks 1..n (the same ``math.log2`` values, computed once)."""
    global _DISCOUNT
    table = _DISCOUNT
    if len(table) <= n:
        table = _DISCOUNT = [math.log2(r + 1) for r in range(2 * n + 1)]
    return table


class _Ranked:
    """One ranking reduced to the ranks of its relevant ids, so every cut-off costs O(log hits).

    Only relevant ids change a metric, so all the work runs in C builtins: one dict of first
    ranks over the ranking (``dict.fromkeys`` dedupes only when an id repeats), a set
    intersection with the judged ids, ``map`` / ``filter`` over the judged ids only, and
    ``accumulate`` (running sums over the hits). The sums add the same terms in the same order
    as trec_eval's per-rank loop (a non-relevant rank adds 0.0, which changes no float): values
    stay identical.
    """

    def __init__(self, ranking: Sequence[str], relevance: Mapping[str, float]) -> None:
        positive = (0.0).__lt__  # grade > 0: relevant (NaN is not)
        grades = sorted(filter(positive, relevance.values()), reverse=True)
        self.n_rel = len(grades)
        if self.n_rel == 0:
            raise ValueError("no relevant document among the judgements")
        first = dict(zip(ranking, count(1)))
        if len(first) != len(ranking):  # repeated ids count once, at their first rank
            first = dict(zip(dict.fromkeys(ranking), count(1)))
        self.n_retrieved = len(first)
        hits = sorted(relevance.keys() & first.keys(), key=first.__getitem__)
        gains = list(map(relevance.__getitem__, hits))
        if self.n_rel != len(relevance):  # judged non-relevant ids among the hits
            relevant = list(map(positive, gains))
            hits, gains = list(compress(hits, relevant)), list(compress(gains, relevant))
        #: ranks (1-based) of the relevant retrieved ids, best first
        self.ranks: list[int] = list(map(first.__getitem__, hits))
        discount = _discounts(max(self.n_retrieved, self.n_rel))
        # running sums with accumulate, never sum(): Python 3.12's sum() compensates rounding,
        # which trec_eval's plain loop does not
        self.ap = list(accumulate(map(truediv, count(1), self.ranks), initial=0.0))[-1]
        #: dcg[j]: DCG of the ranking down to its j-th hit
        self.dcg = list(accumulate(
            map(truediv, gains, map(discount.__getitem__, self.ranks)), initial=0.0,
        ))  # fmt: skip
        #: idcg[i]: DCG of the ideal ranking's first i ids
        self.idcg = list(accumulate(
            map(truediv, grades, islice(discount, 1, None)), initial=0.0,
        ))  # fmt: skip

    @property
    def n_hits(self) -> int:
        """Relevant ids retrieved anywhere."""
        return len(self.ranks)

    def hits_at(self, k: int) -> int:
        return bisect_right(self.ranks, k)

    def ndcg_at(self, k: int) -> float:
        return self.dcg[self.hits_at(k)] / self.idcg[min(k, self.n_rel)]

    def precision_at(self, k: int, denominator: str) -> float:
        """Hits in the first ``k`` over ``k`` (trec_eval) or over the ids retrieved there."""
        hits = self.hits_at(k)
        shown = k if denominator == "k" else min(k, self.n_retrieved)
        return hits / shown if shown else 0.0

    def at(self, k: int, denominator: str = "retrieved") -> dict[str, float]:
        return {
            "precision": self.precision_at(k, denominator),
            "recall": self.hits_at(k) / self.n_rel,
            "ndcg": self.ndcg_at(k),
        }


def _f1(precision: float, recall: float) -> float:
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def _score_row(r: _Ranked, k: int, precision_denominator: str) -> tuple[float, ...]:
    """Every metric of one ranking, in :data:`RETRIEVAL_METRICS` order."""
    hits = r.hits_at(k)
    precision, recall = r.precision_at(k, precision_denominator), hits / r.n_rel
    set_precision = r.precision_at(r.n_retrieved, "retrieved")
    set_recall = r.n_hits / r.n_rel
    return (
        set_precision,
        set_recall,
        _f1(set_precision, set_recall),
        precision,
        recall,
        _f1(precision, recall),
        float(hits > 0),
        r.ndcg_at(k),
        r.hits_at(r.n_rel) / r.n_rel,
        1.0 / r.ranks[0] if r.ranks else 0.0,
        r.ap / r.n_rel,
        r.dcg[-1] / r.idcg[-1],
    )


#: Denominators of precision@k: the ids retrieved in the first k (reference) or k (trec_eval P_k).
PRECISION_DENOMINATORS = ("retrieved", "k")


def retrieval_scores(
    ranking: Sequence[str],
    relevance: Mapping[str, float],
    k: int = 10,
    precision: str = "retrieved",
) -> dict[str, float]:
    """All retrieval metrics of one ranked list against graded judgements.

    Args:
        ranking: Retrieved ids, best first.
        relevance: Id → grade; grades > 0 are relevant. Must hold at least one relevant id.
        k: The cut-off of the ``@k`` metrics.
        precision: Denominator of precision@k: ``"retrieved"`` (relevant retrieved / retrieved
            among the first ``k``, the reference definition) or ``"k"`` (trec_eval's ``P_k``).

    Returns:
        A dict keyed by :data:`RETRIEVAL_METRICS`.

    Raises:
        ValueError: When ``relevance`` holds no relevant id (the metrics are undefined).

    Example:
        >>> s = retrieval_scores(["d3", "d1", "d7"], {"d1": 2, "d2": 1, "d3": 0}, k=2)
        >>> s["precision_at_k"], s["recall_at_k"], s["reciprocal_rank"], s["average_precision"]
        (0.5, 0.5, 0.5, 0.25)
        >>> retrieval_scores(["a", "b", "c"], {"b": 1}, k=10)["precision_at_k"]  # 1 of 3
        0.3333333333333333
        >>> retrieval_scores(["a", "b", "c"], {"b": 1}, k=10, precision="k")["precision_at_k"]
        0.1
    """
    _check_precision(precision, "retrieval_scores")
    return dict(zip(RETRIEVAL_METRICS, _score_row(_Ranked(ranking, relevance), k, precision),
                    strict=True))


def _check_precision(precision: str, owner: str) -> None:
    check_choice(precision, PRECISION_DENOMINATORS, "precision", owner)


def _spec(name: str, description: str, **kw: Any) -> MetricSpec:
    return MetricSpec(name, description, **kw)


@register
class RetrievalMetrics(Evaluator):
    """Precision, recall and F1 of everything retrieved; precision, recall, F1, hit rate and NDCG
    at ``k``; R-precision, reciprocal rank, average precision and NDCG of ``context_ids`` against
    ``relevant_ids`` (reference precision; trec_eval definitions otherwise, ``P_k`` as an option).

    Metric names are fixed; the cut-off is the parameter ``k`` (recorded in the run manifest and in
    each case's details). To report several cut-offs, run the evaluator once per ``k`` in separate
    runs, or read ``details["at"]``, which holds precision, recall and NDCG at every cut-off of
    ``report_ks``.

    Args:
        k: The cut-off of the ``*_at_k`` metrics.
        report_ks: Extra cut-offs reported in each case's details.
        precision: ``"retrieved"`` (default: relevant retrieved / retrieved among the first
            ``k``, the framework's and the RAG-metrics article's definition) or ``"k"``
            (trec_eval's ``P_k``, which divides by ``k`` even when fewer were retrieved).
        id_match: ``"id"`` (default: ids compared as they are), ``"document"`` (both sides
            mapped to their document: ``doc::3`` and ``doc.md#1`` are ``doc``) or ``"text"``
            (retrieved chunks matched to ``relevant_context`` texts by containment).

    Example:
        >>> case = TestCase(id="q", context_ids=["a", "b"], relevant_ids={"b": 1})
        >>> RetrievalMetrics(k=1).evaluate([case])[0].outcomes["reciprocal_rank"].value
        0.5
    """

    name = "retrieval"
    family = "retrieval"
    description = (
        "Rank metrics of retrieved ids against graded relevant ids (P/R/F1 of all retrieved, "
        "P/R/F1/hit/NDCG@k, R-precision, RR, AP, NDCG; trec_eval P@k as an option)."
    )
    requires = ("context_ids", "relevant_ids")
    metrics = (
        _spec("precision", "relevant retrieved ids / retrieved ids (all retrieved)"),
        _spec("recall", "relevant retrieved ids / relevant ids (all retrieved)"),
        _spec("f1", "harmonic mean of precision and recall (all retrieved)"),
        _spec(
            "precision_at_k",
            "relevant ids among the first k retrieved / ids retrieved there (or k: trec_eval)",
        ),
        _spec("recall_at_k", "share of the relevant ids retrieved in the first k", threshold=0.5),
        _spec("f1_at_k", "harmonic mean of precision@k and recall@k"),
        _spec("hit_at_k", "1 if any relevant id is among the first k retrieved"),
        _spec("ndcg_at_k", "graded NDCG of the first k retrieved ids", threshold=0.5),
        _spec("r_precision", "precision at rank R, the number of relevant ids"),
        _spec("reciprocal_rank", "1 / rank of the first relevant id (mean: MRR)", threshold=0.5),
        _spec(
            "average_precision",
            "mean precision at the ranks of the relevant ids (mean: MAP)",
            threshold=0.5,
            primary=True,
        ),
        _spec("ndcg", "graded NDCG of the whole ranking, log2 discount", threshold=0.5),
    )

    def __init__(
        self,
        k: int = 10,
        report_ks: Sequence[int] = (1, 3, 5, 10, 20, 100),
        precision: str = "retrieved",
        id_match: str = "id",
    ) -> None:
        check_int(k, "k", "RetrievalMetrics")
        check_choice(id_match, ID_MATCHES, "id_match", "RetrievalMetrics")
        check(
            all(isinstance(x, int) and not isinstance(x, bool) and x >= 1 for x in report_ks),
            "report_ks", "RetrievalMetrics", "a sequence of positive integers", report_ks,
        )  # fmt: skip
        _check_precision(precision, "RetrievalMetrics")
        self.k = k
        self.report_ks = tuple(report_ks)
        self.precision = precision
        self.id_match = id_match

    def missing_fields(self, case: TestCase) -> list[str]:
        """Required fields that ``case`` lacks (texts, not ids, when matching by text)."""
        if self.id_match == "text":
            return [f for f in ("retrieved_context", "relevant_context")
                    if not field_present(case, f)]
        return super().missing_fields(case)

    def score(self, cases: Sequence[TestCase]) -> ResultBatch:
        """The batch's columns: one row of values per scored case; explanations and details
        filled from the kept rankings when a row is read (design note 0036)."""
        judgements = [judgement(case, self.id_match) for case in cases]
        disjoint = disjoint_spaces(judgements) if self.id_match != "text" else None
        out = BatchBuilder(self.metric_names())
        ranked: list[_Ranked] = []
        with without_cyclic_gc():  # rankings reduced to lists of numbers, no cycles
            for case, judged in zip(cases, judgements, strict=True):
                ranking, relevance = judged.ranking, judged.relevance
                problem = judged.error or misaligned(case) or (
                    disjoint if ranking and relevance else None)
                if problem is not None:
                    out.not_scored(Status.ERROR, problem)
                elif max(relevance.values(), default=0.0) <= 0:
                    out.not_scored(Status.SKIPPED, _NO_RELEVANT)
                else:
                    one = _Ranked(ranking, relevance)
                    out.ok(_score_row(one, self.k, self.precision))
                    ranked.append(one)
        return out.build(
            LazyColumn(len(ranked), partial(_explanation, ranked, self.k)),
            LazyColumn(len(ranked), partial(_details, ranked, self.k, self.id_match,
                                            self.precision, self.report_ks)),
        )  # fmt: skip


_NO_RELEVANT = "relevant_ids holds no relevant id (no grade > 0): undefined"


def _explanation(ranked: Sequence[_Ranked], k: int, index: int) -> str:
    """The explanation of the ``index``-th scored case."""
    one = ranked[index]
    hit_ranks = one.ranks
    return (
        f"{len(hit_ranks)} of {one.n_rel} relevant ids retrieved"
        + (f", first at rank {hit_ranks[0]}" if hit_ranks else "")
        + f"; {one.hits_at(k)} in the top {k}"
    )


def _details(
    ranked: Sequence[_Ranked],
    k: int,
    id_match: str,
    precision: str,
    report_ks: Sequence[int],
    index: int,
) -> dict[str, Any]:
    """The drill-down details of the ``index``-th scored case."""
    one = ranked[index]
    return {
        "k": k,
        "id_match": id_match,
        "n_retrieved": one.n_retrieved,
        "n_relevant": one.n_rel,
        "relevant_ranks": one.ranks[:100],
        "at": {str(cut): one.at(cut, precision) for cut in report_ks},
    }
