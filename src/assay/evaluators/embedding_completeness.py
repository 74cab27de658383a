"""Embedding completeness: how much of the context the answer covers.

Per context sentence, the best similarity to any answer sentence (mean and weighted mean), and
the Wasserstein distance between the context's and the answer's sentence distributions (uniform
weights on sentences): the exact optimal-transport distance (POT's ``emd2``) and an
approximation. By default the approximation is HCAT §3.3.2's: the mean of all pairwise distances,
``(1/nk) sum_i sum_j d(c_i, a_j)`` (the cost of the independent coupling, so never below the exact
distance). ``approx="nearest"`` gives the older nearest-neighbour form, the mean of every
sentence's distance to its nearest sentence on the other side in both directions (each direction
is a relaxed transport problem, so never above the exact distance).

With uniform weights on ``n`` and ``m`` sentences the transport problem has an integral optimum
on ``L = lcm(n, m)`` mass units, so it is exactly an ``L x L`` assignment problem: when ``L`` is at
most ``assignment_limit`` the exact distance is computed with scipy's ``linear_sum_assignment``
(tested equal to POT), otherwise with POT's network simplex. Importing POT costs seconds, which
would dominate a run whose embeddings come from the cache.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, Embedder
from assay.errors import require
from assay.evaluators.base import CaseResult, MetricSpec, Outcome, Status
from assay.evaluators.embedding_base import (
    AnswerAgainstContext,
    SentenceVectors,
    WeightedEmbeddingEvaluator,
    cosine_matrix,
    cosine_metric,
    sentence_weights,
    stack,
)
from assay.evaluators.explain import quote, rounded
from assay.evaluators.registry import register
from assay.params import check_choice

COSTS = ("cosine", "euclidean")
APPROXIMATIONS = ("pairwise", "nearest")


def cost_matrix(sims: np.ndarray, cost: str) -> np.ndarray:
    """Transport cost from cosine similarities of unit vectors: ``1 - sim`` or the Euclidean
    distance ``sqrt(2 - 2 sim)``; both lie in [0, 2].

    Example:
        >>> cost_matrix(np.array([[1.0, 0.0]]), "euclidean").round(4).tolist()
        [[0.0, 1.4142]]
    """
    if cost == "cosine":
        return np.clip(1.0 - sims, 0.0, 2.0)
    return np.sqrt(np.clip(2.0 - 2.0 * sims, 0.0, 4.0))


def wasserstein_approx(costs: np.ndarray, approx: str = "pairwise") -> float:
    """Approximate Wasserstein distance from a context x answer cost matrix.

    ``"pairwise"`` (HCAT §3.3.2): the mean of all pairwise costs, an upper bound of the exact
    distance. ``"nearest"``: the mean of the average nearest-neighbour cost from each side, a
    lower bound.

    Example:
        >>> costs = np.array([[0.0, 1.0], [1.0, 0.5]])
        >>> wasserstein_approx(costs), wasserstein_approx(costs, "nearest")
        (0.625, 0.25)
    """
    if approx == "pairwise":
        return float(costs.mean())
    return float((costs.min(axis=1).mean() + costs.min(axis=0).mean()) / 2.0)


def wasserstein_exact(costs: np.ndarray, assignment_limit: int = 720) -> float:
    """Exact optimal-transport distance with uniform weights on rows and columns: an assignment
    on ``lcm(n, m)`` mass units when that is at most ``assignment_limit``, else POT ``emd2``.

    Example:
        >>> wasserstein_exact(np.array([[0.0, 1.0], [1.0, 0.5]]))
        0.25
        >>> round(wasserstein_exact(np.array([[0.0, 1.0, 2.0]])), 6)
        1.0
    """
    n, m = costs.shape
    units = math.lcm(n, m)
    if units <= assignment_limit:
        from scipy.optimize import linear_sum_assignment

        big = np.repeat(np.repeat(costs, units // n, axis=0), units // m, axis=1)
        rows, cols = linear_sum_assignment(big)
        return float(big[rows, cols].sum() / units)
    return wasserstein_pot(costs)


def wasserstein_pot(costs: np.ndarray) -> float:
    """Exact optimal-transport distance with uniform weights, by POT's ``emd2``."""
    ot = require("ot", extra="embed", package="pot")
    n, m = costs.shape
    a, b = np.full(n, 1.0 / n), np.full(m, 1.0 / m)
    return float(ot.emd2(a, b, np.ascontiguousarray(costs, dtype=np.float64)))  # type: ignore[attr-defined]


@register
class EmbCompleteness(AnswerAgainstContext, WeightedEmbeddingEvaluator):
    """Coverage of the context by the answer, sentence by sentence and as distributions."""

    name = "emb_completeness"
    description = (
        "Per context sentence, max similarity to an answer sentence (mean, weighted mean); "
        "Wasserstein distance between context and answer sentences (exact OT and approximation)."
    )
    metrics = (
        cosine_metric("emb_completeness_mean",
                      "mean over context sentences of the max similarity to an answer sentence",
                      threshold=0.5, primary=True),
        cosine_metric("emb_completeness_weighted",
                      "weighted mean over context sentences (weights parameter) of the max "
                      "similarity"),
        MetricSpec(
            "emb_completeness_wasserstein",
            "exact optimal-transport distance between context and answer sentences",
            higher_is_better=False,
            range=(0.0, 2.0),
        ),
        MetricSpec(
            "emb_completeness_wasserstein_approx",
            "approximate Wasserstein distance: mean of all pairwise distances (HCAT §3.3.2; "
            "approx parameter)",
            higher_is_better=False,
            range=(0.0, 2.0),
        ),
    )

    def __init__(
        self,
        embedder: str | Embedder = DEFAULT_SPEC,
        weights: str | Sequence[float] = "length",
        cost: str = "cosine",
        approx: str = "pairwise",
    ) -> None:
        super().__init__(embedder, weights)
        check_choice(cost, COSTS, "cost", type(self).__name__)
        check_choice(approx, APPROXIMATIONS, "approx", type(self).__name__)
        self.cost = cost
        self.approx = approx

    def score_sentences(self, answer: list[str], context: list[str], owners: list[int],
                        vectors: SentenceVectors) -> CaseResult:
        sims = cosine_matrix(stack(vectors, context), stack(vectors, answer))
        best = sims.max(axis=1)
        weights = sentence_weights(context, self.weights, self.name)
        costs = cost_matrix(sims, self.cost)
        outcomes = {
            "emb_completeness_mean": Outcome(Status.OK, float(best.mean())),
            "emb_completeness_weighted": Outcome(
                Status.OK, float(np.average(best, weights=weights))
            ),
            "emb_completeness_wasserstein_approx": Outcome(
                Status.OK, wasserstein_approx(costs, self.approx)
            ),
        }
        try:
            outcomes["emb_completeness_wasserstein"] = Outcome(
                Status.OK, min(max(wasserstein_exact(costs), 0.0), 2.0)
            )
        except ImportError as exc:
            outcomes["emb_completeness_wasserstein"] = Outcome(Status.ERROR, None, str(exc))
        order = np.argsort(best)
        missed = [
            {"sentence": quote(context[int(i)]), "max_sim": round(float(best[i]), 4)}
            for i in order[:3]
        ]
        explanation = (
            f"{len(context)} context sentences, answer covers them at {best.mean():.2f} on "
            f"average; least covered ({best[order[0]]:.2f}): {quote(context[int(order[0])])!r}"
        )
        return CaseResult(
            outcomes,
            explanation,
            {
                "max_sims": rounded(best),
                "least_covered": missed,
                "cost": self.cost,
                "approx": self.approx,
            },
        )
