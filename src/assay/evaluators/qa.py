"""Exact match (SQuAD) and token F1 (the validation framework's, SQuAD's as an option) between
the actual and the expected answer(s).

Token F1 is ``2 P R / (P + R)`` with ``P = |common| / |actual tokens|`` and ``R = |common| /
|expected tokens|``. By default it is the validation framework's formula: lower-cased words
without punctuation, counted as sets (``counting="multiset"`` counts repeated words, as SQuAD
does); ``normalization="squad", counting="multiset"`` is the official SQuAD v1.1 script (articles
dropped too). With several expected answers both metrics take the best over them, as the SQuAD
script does (``metric_max_over_ground_truths``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, MetricSpec
from assay.evaluators.batch import BatchBuilder, ResultBatch
from assay.evaluators.registry import register
from assay.params import check_choice
from assay.safety.masking import scrub
from assay.text.normalize import framework_tokens, normalize_squad, squad_tokens

#: Token normalisations of :func:`token_f1`.
NORMALIZATIONS = {"framework": framework_tokens, "squad": squad_tokens}
#: How :func:`token_f1` counts tokens.
COUNTINGS = ("set", "multiset")


def token_f1(
    prediction: str, reference: str, normalization: str = "framework", counting: str = "set"
) -> float:
    """Token-overlap F1: the validation framework's formula by default (lower-cased words without
    punctuation, as sets); ``"squad"`` with ``"multiset"`` is the official SQuAD v1.1 script.

    Example:
        >>> answer, expected = "the fee is the fee of the card", "the fee of the card"
        >>> round(token_f1(answer, expected), 3), round(token_f1(answer, expected, "framework",
        ...     "multiset"), 3), round(token_f1(answer, expected, "squad", "multiset"), 3)
        (0.889, 0.769, 0.75)
    """
    tokens = NORMALIZATIONS[normalization]
    pred, ref = tokens(prediction), tokens(reference)
    if not pred or not ref:
        return float(pred == ref)
    if counting == "set":
        common = len(set(pred) & set(ref))
        n_pred, n_ref = len(set(pred)), len(set(ref))
    else:
        common = sum((Counter(pred) & Counter(ref)).values())
        n_pred, n_ref = len(pred), len(ref)
    if common == 0:
        return 0.0
    precision, recall = common / n_pred, common / n_ref
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
    """Token F1 between the actual and the expected answer (the best over several).

    Args:
        normalization: ``"framework"`` (default: lower-case, no punctuation) or ``"squad"``
            (articles dropped too).
        counting: ``"set"`` (default: the validation framework's formula) or ``"multiset"``
            (repeated words count; with ``"squad"`` the official SQuAD v1.1 script).

    Example:
        >>> case = TestCase(id="q", actual_answer="The fee is 50 euros", expected_answer="50 euros")
        >>> round(TokenF1().evaluate([case])[0].outcomes["token_f1"].value, 3)
        0.571
    """

    name = "token_f1"
    family = "lexical"
    description = (
        "Token-overlap F1 of the actual against the expected answer (validation framework: "
        "word sets; SQuAD as an option)."
    )
    requires = ("actual_answer", "expected_answer")
    metrics = (
        MetricSpec(
            "token_f1", "harmonic mean of token precision and recall", threshold=0.5, primary=True
        ),
    )

    def __init__(self, normalization: str = "framework", counting: str = "set") -> None:
        check_choice(normalization, NORMALIZATIONS, "normalization", "TokenF1")
        check_choice(counting, COUNTINGS, "counting", "TokenF1")
        self.normalization = normalization
        self.counting = counting

    def score(self, cases: Sequence[TestCase]) -> ResultBatch:
        out = BatchBuilder(self.metric_names())
        for case in cases:
            answer = case.actual_answer or ""
            out.ok((max(token_f1(answer, r, self.normalization, self.counting)
                        for r in case.references),))
        return out.build()
