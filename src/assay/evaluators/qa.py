"""SQuAD-style exact match and token F1 between the actual and the expected answer(s).

With several expected answers both take the best over them, as the official SQuAD v1.1 script
does (``metric_max_over_ground_truths``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, MetricSpec
from assay.evaluators.batch import BatchBuilder, ResultBatch
from assay.evaluators.registry import register
from assay.safety.masking import scrub
from assay.text.normalize import normalize_squad, squad_tokens


def token_f1(prediction: str, reference: str) -> float:
    """Token-overlap F1 exactly as the official SQuAD v1.1 script computes it.

    Example:
        >>> round(token_f1("The annual fee is 50 euros", "50 euros"), 3)
        0.571
    """
    pred, ref = squad_tokens(prediction), squad_tokens(reference)
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


@register
class ExactMatch(Evaluator):
    """1 when the SQuAD-normalised actual answer equals an expected answer, else 0.

    Example:
        >>> case = TestCase(id="q", actual_answer="Twelve euros.",
        ...                 expected_answer=["12 euros", "twelve euros"])
        >>> ExactMatch().evaluate([case])[0].outcomes["exact_match"].value
        1.0
    """

    name = "exact_match"
    family = "lexical"
    explanations_masked = True  # the normalised texts, scrubbed before normalising
    description = "SQuAD-normalised exact match of the actual and the expected answer."
    requires = ("actual_answer", "expected_answer")
    metrics = (
        MetricSpec(
            "exact_match",
            "1 if the normalised answers are equal, else 0",
            threshold=1.0,
            primary=True,
        ),
    )

    def score(self, cases: Sequence[TestCase]) -> ResultBatch:
        out = BatchBuilder(self.metric_names())
        for case in cases:
            actual = normalize_squad(case.actual_answer or "")
            expected = [normalize_squad(r) for r in case.references]
            # The explanation shows the normalised texts, masked first: once normalised, an
            # email or a key no longer looks like one and would slip past any later scrub.
            answer = normalize_squad(scrub(case.actual_answer or ""))
            shown = [normalize_squad(scrub(r)) for r in case.references]
            out.ok(
                (float(actual in expected),),
                f"normalised answer {answer!r} vs expected "
                f"{shown[0] if len(shown) == 1 else shown!r}",
            )
        return out.build()


@register
class TokenF1(Evaluator):
    """SQuAD token F1 between the actual and the expected answer (the best over several)."""

    name = "token_f1"
    family = "lexical"
    description = "SQuAD-style token-overlap F1 of the actual against the expected answer."
    requires = ("actual_answer", "expected_answer")
    metrics = (
        MetricSpec(
            "token_f1", "harmonic mean of token precision and recall", threshold=0.5, primary=True
        ),
    )

    def score(self, cases: Sequence[TestCase]) -> ResultBatch:
        out = BatchBuilder(self.metric_names())
        for case in cases:
            out.ok((max(token_f1(case.actual_answer or "", r) for r in case.references),))
        return out.build()
