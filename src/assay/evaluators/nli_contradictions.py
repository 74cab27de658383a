"""Has contradictions: pairwise NLI among the answer's own sentences.

Every ordered pair of distinct answer sentences (both directions) that are about the same thing
is classified; the contradiction score is the maximum P(contradiction), and the answer is flagged
when it exceeds the threshold. Long answers are capped at ``max_sentences`` (first sentences
kept, reported).

"About the same thing" is a MiniLM cosine of at least ``min_similarity`` (0.25) between the two
sentences. Two sentences about different things cannot contradict each other, but an NLI model
trained on SNLI — whose annotators assumed both sentences describe the same photo — reads them
as a contradiction: the shipped heads give P(contradiction) > 0.5 to about half of random MNLI
premise/hypothesis pairs, so an answer that covers three topics was flagged as
self-contradictory. The gate keeps 95 % of MNLI's contradiction pairs and drops 97 % of random
pairs (``benchmarks/bench_contradictions.py``); ``min_similarity=0`` compares every pair.

Two sentences that state the same thing with one different figure ("The monthly fee is 5
euros." / "… 9 euros.") are a contradiction the NLI heads barely see (a changed number hardly
moves a sentence vector); :mod:`assay.text.figures` reads it directly, and such an answer scores
1 with the two figures named (``figures=False`` leaves it to the model; design note 0052).
Only the answer's claims are compared: a question or a courtesy line asserts nothing that could
contradict (``sentences="all"`` compares every sentence; design note 0051).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, permutations

import numpy as np

from assay.backends.embed import DEFAULT_SPEC, CachedEmbedder, Embedder, get_embedder
from assay.backends.nli import CONTRADICTION, DEFAULT_NLI, NLIModel, NLIScores
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.claim_sentences import check_sentences, scored_sentences
from assay.evaluators.explain import quote
from assay.evaluators.nli_base import NLIEvaluator, PairCollector
from assay.evaluators.registry import register
from assay.params import check, check_int
from assay.text.claims import set_aside_summary
from assay.text.figures import FigureConflict, conflicting_figures

#: Two answer sentences (indices) that state the same thing with a different figure.
Conflict = tuple[int, int, FigureConflict]
#: A planned case: its sentences, the (premise, hypothesis) index pairs compared, their rows, how
#: many distinct sentences the answer had before the cap, how many pairs were left out as about
#: different things, and the sentence pairs with conflicting figures.
Plan = tuple[list[str], list[tuple[int, int]], list[int], int, int, list[Conflict]]
#: Default ``min_similarity``: chosen on MNLI dev matched (keeps 94.7 % of its contradiction
#: pairs, 2.7 % of random pairs); checked on held-out data by ``bench_contradictions.py``.
MIN_SIMILARITY = 0.25


@register
class NLIContradictions(NLIEvaluator):
    """Max P(contradiction) over ordered pairs of answer sentences; flagged above a threshold."""

    name = "nli_contradictions"
    description = (
        f"Pairwise NLI among answer sentences about the same thing (MiniLM cosine >= "
        f"{MIN_SIMILARITY}): max P(contradiction) and whether it exceeds the threshold "
        "(self-contradictory answer)."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec("nli_contradiction_score", "max P(contradiction) over answer sentence pairs; "
                   "1 when two sentences state the same thing with different figures",
                   higher_is_better=False, threshold=0.5, primary=True),
        MetricSpec("nli_has_contradictions", "1 when the contradiction score exceeds the "
                   "threshold, else 0", higher_is_better=False, threshold=0.5),
    )

    unpickled = ("_resolved", "_embedder")

    def __init__(
        self, nli: str | NLIModel = DEFAULT_NLI, threshold: float = 0.5, max_sentences: int = 20,
        min_similarity: float = MIN_SIMILARITY, embedder: str | Embedder = DEFAULT_SPEC,
        figures: bool = True, sentences: str = "claims",
    ) -> None:
        super().__init__(nli)
        check(isinstance(threshold, int | float) and 0.0 <= threshold < 1.0, "threshold",
              "NLIContradictions", "a number in [0, 1)", threshold)
        check_int(max_sentences, "max_sentences", "NLIContradictions", minimum=2)
        check(isinstance(min_similarity, int | float) and 0.0 <= min_similarity <= 1.0,
              "min_similarity", "NLIContradictions", "a cosine in [0, 1] (0: every pair)",
              min_similarity)
        check(isinstance(embedder, str | Embedder), "embedder", "NLIContradictions",
              "a spec string ('minilm', a model name or path) or an Embedder", embedder)
        self.threshold = threshold
        self.max_sentences = max_sentences
        self.min_similarity = float(min_similarity)
        self.embedder = embedder
        check(isinstance(figures, bool), "figures", "NLIContradictions", "True or False", figures)
        self.figures = figures
        self.sentences = check_sentences(sentences, "NLIContradictions")

    def resolved_embedder(self) -> CachedEmbedder:
        """The caching embedder that tells which sentences are about the same thing."""
        return self.resolve_once(lambda: get_embedder(self.embedder), "_embedder")

    def embedder_for_prefetch(self) -> CachedEmbedder | None:
        return self.resolved_embedder() if self.min_similarity > 0 else (
            super().embedder_for_prefetch())

    def texts_to_encode(self, case: TestCase) -> list[str]:
        return self._sentences(case)[: self.max_sentences]

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        related: dict[str, np.ndarray] = {}
        if self.min_similarity > 0:
            texts = list(dict.fromkeys(t for c in cases for t in self.texts_to_encode(c)))
            if texts:
                vectors = np.asarray(self.resolved_embedder().encode(texts), dtype=np.float64)
                vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
                related = dict(zip(texts, vectors, strict=True))
        return self.score_planned(cases, lambda c, p: self._plan(c, p, related), self._result)

    def _sentences(self, case: TestCase) -> list[str]:
        return list(dict.fromkeys(scored_sentences(case, self.sentences)[0]))

    def _plan(self, case: TestCase, pairs: PairCollector, vectors: dict[str, np.ndarray]
              ) -> Plan | str | CaseResult:
        sentences = self._sentences(case)
        if len(sentences) < 2:
            set_aside = scored_sentences(case, self.sentences)[1]
            if set_aside:
                return (f"the answer has fewer than two distinct claims "
                        f"({set_aside_summary(set_aside)} not scored as claims)")
            return "the answer has fewer than two distinct sentences"
        total = len(sentences)
        sentences = sentences[: self.max_sentences]
        order = list(permutations(range(len(sentences)), 2))
        if vectors:
            order = [(i, j) for i, j in order if float(
                vectors[sentences[i]] @ vectors[sentences[j]]) >= self.min_similarity]
        unrelated = len(sentences) * (len(sentences) - 1) - len(order)
        conflicts = self._conflicts(sentences)
        if conflicts and not order:
            return self._conflict_result(sentences, conflicts,
                                         self._details(sentences, total, order, unrelated))
        if not order:
            return CaseResult.ok(
                {"nli_contradiction_score": 0.0, "nli_has_contradictions": 0.0},
                f"no contradiction: no two sentences are about the same thing (cosine under "
                f"{self.min_similarity:g}), so none can contradict another",
                {"top_pairs": [], **self._details(sentences, total, order, unrelated)})
        rows = pairs.add_pairs([(sentences[i], sentences[j]) for i, j in order])
        return sentences, order, rows, total, unrelated, conflicts

    def _conflicts(self, sentences: list[str]) -> list[Conflict]:
        if not self.figures:
            return []
        found = ((i, j, conflicting_figures(sentences[i], sentences[j]))
                 for i, j in combinations(range(len(sentences)), 2))
        return [(i, j, c) for i, j, c in found if c is not None]

    @staticmethod
    def _conflict_result(sentences: list[str], conflicts: list[Conflict],
                         details: dict[str, object]) -> CaseResult:
        """A contradiction read from the figures: certain under the rule, so scored 1."""
        i, j, figures = conflicts[0]
        explanation = (
            f"contradiction: conflicting figures ({figures.first!r} vs {figures.second!r}) "
            f"between {quote(sentences[i])!r} and {quote(sentences[j])!r}"
        )
        listed = [{"first": a, "second": b, "figures": [c.first, c.second]}
                  for a, b, c in conflicts]
        return CaseResult.ok({"nli_contradiction_score": 1.0, "nli_has_contradictions": 1.0},
                             explanation, {**details, "figure_conflicts": listed})

    def _details(self, sentences: list[str], total: int, order: list[tuple[int, int]],
                 unrelated: int) -> dict[str, object]:
        return {"sentences": [quote(s) for s in sentences],
                "sentences_capped": total > len(sentences),
                "pairs_compared": len(order), "pairs_about_different_things": unrelated,
                "min_similarity": self.min_similarity, "figures": self.figures,
                "threshold": self.threshold, "model": self.model_name()}

    def _result(self, plan: Plan, scores: NLIScores) -> CaseResult:
        sentences, order, rows, total, unrelated, conflicts = plan
        contra = scores.prob(CONTRADICTION)[rows]
        ranked = sorted(range(len(rows)), key=lambda k: -contra[k])
        top_pairs = [{"premise": order[k][0], "hypothesis": order[k][1],
                      "p_contradiction": round(float(contra[k]), 4)} for k in ranked[:5]]
        details = {"top_pairs": top_pairs, **self._details(sentences, total, order, unrelated)}
        if conflicts:
            return self._conflict_result(sentences, conflicts, details)
        top = float(contra[ranked[0]])
        i, j = order[ranked[0]]
        flagged = top > self.threshold
        explanation = (
            f"{'contradiction' if flagged else 'no contradiction'} (max P = {top:.2f}) "
            f"between {quote(sentences[i])!r} and {quote(sentences[j])!r}"
        )
        return CaseResult.ok(
            {"nli_contradiction_score": top, "nli_has_contradictions": float(flagged)},
            explanation, details,
        )
