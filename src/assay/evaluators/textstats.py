"""Text statistics of the actual answer: lexical diversity, sentence length, length difference.

Words come from :func:`assay.text.words` (lower-cased) and sentences from
:func:`assay.text.split_sentences`, the splitters every evaluator shares.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from assay.data.case import TestCase
from assay.evaluators.base import CaseByCaseEvaluator, CaseResult, MetricSpec, Outcome, Status
from assay.evaluators.registry import register
from assay.params import check_int
from assay.text import split_sentences, words


def type_token_ratio(tokens: Sequence[str]) -> float:
    """Distinct words / words (1.0 when every word is different).

    Example:
        >>> type_token_ratio(["the", "fee", "and", "the", "rate"])
        0.8
    """
    return len(set(tokens)) / len(tokens)


def mean_segmental_ttr(tokens: Sequence[str], segment_length: int) -> float | None:
    """Mean TTR of consecutive, non-overlapping segments of ``segment_length`` words (Johnson,
    1944); a trailing partial segment is dropped. None when there is no complete segment.

    Unlike the TTR, it does not fall as the text gets longer, so answers of different lengths
    can be compared.

    Example:
        >>> mean_segmental_ttr("a b a b c d e f".split(), 4)
        0.75
        >>> mean_segmental_ttr(["a"], 4) is None
        True
    """
    n_segments = len(tokens) // segment_length
    if n_segments == 0:
        return None
    total = sum(
        type_token_ratio(tokens[i * segment_length : (i + 1) * segment_length])
        for i in range(n_segments)
    )
    return total / n_segments


def word_count_difference(actual: int, expected: int) -> float:
    """Signed difference of word counts in percent of the expected count.

    Example:
        >>> word_count_difference(15, 10), word_count_difference(5, 10)
        (50.0, -50.0)
    """
    return 100.0 * (actual - expected) / expected


@register
class TextStatistics(CaseByCaseEvaluator):
    """Type-token ratio, mean segmental TTR, mean sentence length and word-count difference.

    Args:
        segment_length: words per segment of the mean segmental TTR.
    """

    name = "text_statistics"
    family = "text statistics"
    description = (
        "Lexical diversity (TTR, mean segmental TTR), mean sentence length in words and the "
        "word-count difference against the expected answer."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec("type_token_ratio", "distinct words / words of the answer", primary=True),
        MetricSpec(
            "msttr",
            "mean type-token ratio over consecutive segments of `segment_length` words",
        ),
        MetricSpec(
            "mean_sentence_words",
            "mean number of words per sentence of the answer",
            higher_is_better=False,
            range=(0.0, math.inf),
        ),
        MetricSpec(
            "word_count_diff_pct",
            "signed word-count difference against the expected answer, % of the expected count "
            "(-100: empty answer; +50: half as long again)",
            higher_is_better=False,
            range=(-100.0, math.inf),
        ),
        MetricSpec(
            "word_count_abs_diff_pct",
            "absolute word-count difference against the expected answer, % of the expected count",
            higher_is_better=False,
            range=(0.0, math.inf),
        ),
    )

    def __init__(self, segment_length: int = 50) -> None:
        check_int(segment_length, "segment_length", "TextStatistics", minimum=2)
        self.segment_length = segment_length

    def score_case(self, case: TestCase) -> CaseResult:
        tokens = words(case.actual_answer)
        if not tokens:
            return CaseResult.skipped(self.metric_names(), "the answer has no words")
        outcomes: dict[str, Outcome] = {}
        values: dict[str, float] = {"type_token_ratio": type_token_ratio(tokens)}
        msttr = mean_segmental_ttr(tokens, self.segment_length)
        if msttr is None:
            outcomes["msttr"] = Outcome(
                Status.SKIPPED,
                None,
                f"the answer has {len(tokens)} words, fewer than one segment of "
                f"{self.segment_length}",
            )
        else:
            values["msttr"] = msttr
        sentences = split_sentences(case.actual_answer)
        counts = [len(words(s)) for s in sentences]
        counts = [c for c in counts if c]
        values["mean_sentence_words"] = sum(counts) / len(counts) if counts else len(tokens)
        expected = words(case.expected_answer) if case.expected_answer is not None else None
        if not expected:
            reason = (
                "no expected answer" if expected is None else "the expected answer has no words"
            )
            for metric in ("word_count_diff_pct", "word_count_abs_diff_pct"):
                outcomes[metric] = Outcome(Status.SKIPPED, None, reason)
        else:
            diff = word_count_difference(len(tokens), len(expected))
            values["word_count_diff_pct"] = diff
            values["word_count_abs_diff_pct"] = abs(diff)
        outcomes.update({k: Outcome(Status.OK, float(v)) for k, v in values.items()})
        diff_text = (
            f", {values['word_count_diff_pct']:+.0f}% words vs expected"
            if "word_count_diff_pct" in values
            else ""
        )
        return CaseResult(
            outcomes,
            f"{len(tokens)} words in {len(counts)} sentence(s), TTR "
            f"{values['type_token_ratio']:.2f}{diff_text}",
            {"words": len(tokens), "sentences": len(counts)},
        )
