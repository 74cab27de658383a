"""Has contradictions: pairwise NLI among the answer's own sentences.

Every ordered pair of distinct answer sentences (both directions) is classified; the
contradiction score is the maximum P(contradiction), and the answer is flagged when it exceeds
the threshold. Long answers are capped at ``max_sentences`` (first sentences kept, reported).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations

from assay.backends.nli import CONTRADICTION, DEFAULT_NLI, NLIModel, NLIScores
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.nli_base import NLIEvaluator, PairCollector, quote
from assay.evaluators.registry import register
from assay.params import check, check_int
from assay.text.sentences import split_sentences

#: A planned case: its sentences, the (premise, hypothesis) index pairs, their rows, and how many
#: distinct sentences the answer had before the cap.
Plan = tuple[list[str], list[tuple[int, int]], list[int], int]


@register
class NLIContradictions(NLIEvaluator):
    """Max P(contradiction) over ordered pairs of answer sentences; flagged above a threshold."""

    name = "nli_contradictions"
    description = (
        "Pairwise NLI among answer sentences: max P(contradiction) and whether it exceeds the "
        "threshold (self-contradictory answer)."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec("nli_contradiction_score", "max P(contradiction) over answer sentence pairs",
                   higher_is_better=False, threshold=0.5, primary=True),
        MetricSpec("nli_has_contradictions", "1 when the contradiction score exceeds the "
                   "threshold, else 0", higher_is_better=False, threshold=0.5),
    )

    def __init__(
        self, nli: str | NLIModel = DEFAULT_NLI, threshold: float = 0.5, max_sentences: int = 20
    ) -> None:
        super().__init__(nli)
        check(isinstance(threshold, int | float) and 0.0 <= threshold < 1.0, "threshold",
              "NLIContradictions", "a number in [0, 1)", threshold)
        check_int(max_sentences, "max_sentences", "NLIContradictions", minimum=2)
        self.threshold = threshold
        self.max_sentences = max_sentences

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return self.score_planned(cases, self._plan, self._result)

    def _plan(self, case: TestCase, pairs: PairCollector) -> Plan | str:
        sentences = list(dict.fromkeys(split_sentences(case.actual_answer)))
        if len(sentences) < 2:
            return "the answer has fewer than two distinct sentences"
        total = len(sentences)
        sentences = sentences[: self.max_sentences]
        order = list(permutations(range(len(sentences)), 2))
        rows = pairs.add_pairs([(sentences[i], sentences[j]) for i, j in order])
        return sentences, order, rows, total

    def _result(self, plan: Plan, scores: NLIScores) -> CaseResult:
        sentences, order, rows, total = plan
        contra = scores.prob(CONTRADICTION)[rows]
        ranked = sorted(range(len(rows)), key=lambda k: -contra[k])
        top = float(contra[ranked[0]])
        i, j = order[ranked[0]]
        flagged = top > self.threshold
        explanation = (
            f"{'contradiction' if flagged else 'no contradiction'} (max P = {top:.2f}) "
            f"between {quote(sentences[i])!r} and {quote(sentences[j])!r}"
        )
        return CaseResult.ok(
            {"nli_contradiction_score": top, "nli_has_contradictions": float(flagged)},
            explanation,
            {"top_pairs": [{"premise": order[k][0], "hypothesis": order[k][1],
                            "p_contradiction": round(float(contra[k]), 4)}
                           for k in ranked[:5]],
             "sentences": [quote(s) for s in sentences],
             "sentences_capped": total > len(sentences),
             "threshold": self.threshold, "model": self.model_name()},
        )
