"""Looping (degenerate repetition) detection on the actual answer.

Three signals, each cheap and model-free, as in the reference catalogue's looping evaluator:

* ``unique_sentence_ratio`` (primary, as in the reference): distinct sentences / sentences, over
  sentences of at least 10 characters (short ones such as "Yes." legitimately recur); compared
  after lower-casing and collapsing whitespace. Skipped when the answer has no such sentence.
* ``repeated_substring_score``: the longest repeated substring (suffix array,
  :mod:`assay.text.repeats`) × its number of non-overlapping occurrences / the text length: the
  share of the answer taken up by its longest repeat, in [0, 1]. Repeats shorter than
  ``min_repeat_chars`` (20) score 0: two occurrences of a short phrase are language ("New York,
  New York."), not a loop.
* ``compression_ratio``: zlib (level 9) compressed bytes / UTF-8 bytes, capped at 1, the
  reference's definition and direction: higher is better; repetitive text compresses well and
  scores low (a loop of one phrase scores well under 0.1); short texts score 1 (zlib's overhead).
  Its default threshold is 1/3, not the reference's 0.75: ordinary prose of a few hundred
  characters already compresses below 0.75.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec, Outcome, Status
from assay.evaluators.registry import register
from assay.params import check_int
from assay.text import split_sentences
from assay.text.repeats import longest_repeated_substring

MIN_SENTENCE_CHARS = 10


def unique_sentence_ratio(text: str) -> float | None:
    """Distinct / all sentences of at least 10 characters; None when there is none.

    Example:
        >>> unique_sentence_ratio("Call us today. Call us  today. We are open daily. Yes.")
        0.6666666666666666
    """
    sentences = [" ".join(s.lower().split()) for s in split_sentences(text)]
    sentences = [s for s in sentences if len(s) >= MIN_SENTENCE_CHARS]
    if not sentences:
        return None
    return len(set(sentences)) / len(sentences)


def repeated_substring_score(text: str) -> tuple[float, str, int]:
    """``len(lrs) × count(lrs) / len(text)`` with the non-overlapping count, and the substring
    and count themselves.

    Example:
        >>> repeated_substring_score("abcabc")
        (1.0, 'abc', 2)
    """
    if not text:
        return 0.0, "", 0
    repeat = longest_repeated_substring(text)
    count = text.count(repeat) if repeat else 0
    return len(repeat) * count / len(text), repeat, count


def compression_ratio(text: str) -> float:
    """zlib level-9 compressed size / UTF-8 size, capped at 1 as in the reference (low:
    repetitive; zlib's overhead makes short texts exceed 1).

    Example:
        >>> compression_ratio("ab" * 500) < 0.05
        True
    """
    raw = text.encode("utf-8")
    return min(1.0, len(zlib.compress(raw, 9)) / len(raw))


@register
class Looping(Evaluator):
    """Repetition signals of the answer: unique sentences, longest repeat, compressibility.

    Args:
        max_chars: only the first ``max_chars`` characters are analysed for the longest repeated
            substring (a loop shows early; bounds time and memory on huge answers).
        min_repeat_chars: a longest repeat shorter than this scores 0 (idioms, names and short
            phrases legitimately occur twice).

    Example:
        >>> r = Looping().evaluate([TestCase(id="q", actual_answer="New York, New York.")])[0]
        >>> r.outcomes["repeated_substring_score"].value
        0.0
    """

    name = "looping"
    family = "looping"
    description = (
        "Degenerate repetition in the answer: unique-sentence ratio, longest repeated substring "
        "share and zlib compression ratio."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec(
            "unique_sentence_ratio",
            "distinct / all sentences of at least 10 characters",
            threshold=0.75,
            primary=True,
        ),
        MetricSpec(
            "repeated_substring_score",
            "longest repeated substring (at least min_repeat_chars) × its non-overlapping count "
            "/ answer length",
            higher_is_better=False,
            threshold=0.75,
        ),
        MetricSpec(
            "compression_ratio",
            "zlib level-9 compressed bytes / UTF-8 bytes, at most 1 (lower: more repetitive)",
            threshold=1 / 3,
        ),
    )

    def __init__(self, max_chars: int = 100_000, min_repeat_chars: int = 20) -> None:
        check_int(max_chars, "max_chars", "Looping", minimum=100)
        check_int(min_repeat_chars, "min_repeat_chars", "Looping")
        self.max_chars = max_chars
        self.min_repeat_chars = min_repeat_chars

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return [self._one(case.actual_answer or "") for case in cases]

    def _one(self, text: str) -> CaseResult:
        if not text.strip():
            return CaseResult.skipped(self.metric_names(), "the answer is empty")
        analysed = text[: self.max_chars]
        score, repeat, count = repeated_substring_score(analysed)
        if len(repeat) < self.min_repeat_chars:
            score = 0.0
        outcomes = {
            "repeated_substring_score": Outcome(Status.OK, score),
            "compression_ratio": Outcome(Status.OK, compression_ratio(text)),
        }
        ratio = unique_sentence_ratio(text)
        outcomes["unique_sentence_ratio"] = (
            Outcome(Status.OK, ratio)
            if ratio is not None
            else Outcome(
                Status.SKIPPED, None, f"no sentence of at least {MIN_SENTENCE_CHARS} characters"
            )
        )
        details = {
            "longest_repeat": repeat[:200],
            "longest_repeat_chars": len(repeat),
            "longest_repeat_count": count,
            "analysed_chars": len(analysed),
        }
        return CaseResult(
            outcomes,
            f"longest repeat of {len(repeat)} characters occurs {count}× "
            f"({score:.0%} of the answer): {repeat[:60]!r}",
            details,
        )
