"""Sentence BLEU-1…4 and corpus BLEU of the actual against the expected answer, equal to sacrebleu.

Settings (documented in ``docs/lexical.md``): sacrebleu 2.x's ``13a`` tokeniser, case-sensitive
unless ``lowercase``; sentence BLEU-n is ``BLEU(max_ngram_order=n, smooth_method="exp",
effective_order=True).sentence_score`` (sacrebleu's ``sentence_bleu`` defaults); corpus BLEU is
``BLEU().corpus_score`` (4-grams, ``exp`` smoothing, no effective order: sacrebleu's
``corpus_bleu`` defaults) over all of a model's cases. Values are sacrebleu's divided by 100.

Hand-written (the tokeniser and the BLEU formula are short) so that the metric needs no optional
dependency, n-gram statistics are computed once for all four orders and reused by the corpus
score, and tokenisation is cached and faster (a translation table instead of the first regex);
``tests/evaluators/test_lexical_bleu.py`` checks equality with sacrebleu.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec
from assay.evaluators.registry import register
from assay.params import check

MAX_ORDER = 4
# sacrebleu's first 13a rule, r"([\{-\~\[-\` -\&\(-\+\:-\@\/])" -> r" \1 ", pads single
# characters independently, so a translation table gives the same string much faster.
_PAD = str.maketrans(
    {
        chr(c): f" {chr(c)} "
        for lo, hi in (
            (0x7B, 0x7E),
            (0x5B, 0x60),
            (0x20, 0x26),
            (0x28, 0x2B),
            (0x3A, 0x40),
            (0x2F, 0x2F),
        )
        for c in range(lo, hi + 1)
    }
)
_PUNCT_AFTER_NON_DIGIT = re.compile(r"([^0-9])([\.,])")
_PUNCT_BEFORE_NON_DIGIT = re.compile(r"([\.,])([^0-9])")
_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)")


def tokenize_13a(line: str, cache: bool = True) -> tuple[str, ...]:
    """Tokens of ``line`` under sacrebleu's ``13a`` tokeniser (mteval-v13a, as used by WMT).

    With ``cache``, texts of up to 4,096 characters are kept in a small LRU cache (for texts that
    recur, such as an expected answer shared by several models).

    Example:
        >>> tokenize_13a("The fee is 1,500.50 euros (monthly).")
        ('The', 'fee', 'is', '1,500.50', 'euros', '(', 'monthly', ')', '.')
    """
    return _cached_13a(line) if cache and len(line) <= 4096 else _tokenize_13a(line)


def _tokenize_13a(line: str) -> tuple[str, ...]:
    line = line.rstrip()  # sacrebleu strips trailing whitespace before tokenising
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&")
        line = line.replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} ".translate(_PAD)
    if "." in line or "," in line:
        line = _PUNCT_AFTER_NON_DIGIT.sub(r"\1 \2 ", line)
        line = _PUNCT_BEFORE_NON_DIGIT.sub(r" \1 \2", line)
    if "-" in line:
        line = _DASH_AFTER_DIGIT.sub(r"\1 \2 ", line)
    return tuple(line.split())


_cached_13a = lru_cache(maxsize=4096)(_tokenize_13a)


def _ngram_counts(tokens: Sequence[str]) -> list[Counter[Any]]:
    """Counters of the 1- to 4-grams of ``tokens`` (unigrams as strings, longer ones as tuples)."""
    t = tokens
    return [
        Counter(t),
        Counter(pairwise(t)),
        Counter(zip(t, t[1:], t[2:], strict=False)),
        Counter(zip(t, t[1:], t[2:], t[3:], strict=False)),
    ]


def bleu_statistics(hypothesis: str, reference: str, lowercase: bool = False) -> list[int]:
    """Sufficient statistics ``[hyp_len, ref_len, correct_1..4, total_1..4]`` of one segment.

    Example:
        >>> bleu_statistics("the cat sat", "the cat sat down")
        [3, 4, 3, 2, 1, 0, 3, 2, 1, 0]
    """
    if lowercase:
        hypothesis, reference = hypothesis.lower(), reference.lower()
    hyp, ref = tokenize_13a(hypothesis, cache=False), tokenize_13a(reference)
    correct = [0] * MAX_ORDER
    total = [max(len(hyp) - n, 0) for n in range(MAX_ORDER)]
    for n, (hyp_grams, ref_grams) in enumerate(
        zip(_ngram_counts(hyp), _ngram_counts(ref), strict=True)
    ):
        matched = 0
        for gram, count in hyp_grams.items():
            other = ref_grams.get(gram)
            if other:
                matched += count if count < other else other
        correct[n] = matched
    return [len(hyp), len(ref), *correct, *total]


def bleu_from_statistics(
    stats: Sequence[int], max_order: int = 4, effective_order: bool = True
) -> float:
    """BLEU (0–100) from summed statistics with ``exp`` smoothing, as sacrebleu computes it.

    Example:
        >>> round(bleu_from_statistics([3, 4, 3, 2, 1, 0, 3, 2, 1, 0], 2), 4)
        71.6531
    """
    sys_len, ref_len = stats[0], stats[1]
    correct = list(stats[2 : 2 + max_order])
    total = list(stats[2 + MAX_ORDER : 2 + MAX_ORDER + max_order])
    bp = 1.0
    if sys_len < ref_len:
        bp = math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0
    if not any(correct):
        return 0.0
    precisions = [0.0] * max_order
    smooth = 1.0
    eff_order = max_order
    for n in range(1, max_order + 1):
        if total[n - 1] == 0:
            break
        if effective_order:
            eff_order = n
        if correct[n - 1] == 0:
            smooth *= 2
            precisions[n - 1] = 100.0 / (smooth * total[n - 1])
        else:
            precisions[n - 1] = 100.0 * correct[n - 1] / total[n - 1]
    logs = [math.log(p) if p != 0.0 else -9999999999 for p in precisions[:eff_order]]
    return bp * math.exp(sum(logs) / eff_order)


class BleuAccumulator:
    """Sums a model's segment statistics batch by batch; ``finish`` gives corpus BLEU (0–1)."""

    def __init__(self) -> None:
        self.stats = [0] * (2 + 2 * MAX_ORDER)
        self.n_segments = 0

    def add(self, cases: Sequence[TestCase], results: Sequence[CaseResult]) -> None:
        """Add the statistics that :class:`Bleu` stored in each ok result's details."""
        for result in results:
            segment = result.details.get("stats") if result.details else None
            if segment is not None:
                self.stats = [a + b for a, b in zip(self.stats, segment, strict=True)]
                self.n_segments += 1

    def finish(self) -> dict[str, float | None]:
        """Corpus BLEU-4, or None when no segment was scored."""
        if not self.n_segments:
            return {"corpus_bleu": None}
        return {"corpus_bleu": bleu_from_statistics(self.stats, MAX_ORDER, False) / 100}


@register
class Bleu(Evaluator):
    """Sentence BLEU-1…4 and corpus BLEU, equal to sacrebleu (settings in docs/lexical.md).

    Args:
        lowercase: compare lower-cased texts (sacrebleu ``lowercase=True``).
    """

    name = "bleu"
    family = "lexical"
    description = (
        "Sentence BLEU-1..4 (sacrebleu sentence_bleu settings) and corpus BLEU (corpus_bleu) "
        "of the actual against the expected answer, 0-1."
    )
    requires = ("actual_answer", "expected_answer")
    metrics = (
        *(
            MetricSpec(
                f"bleu{n}",
                f"sentence BLEU with n-grams up to {n} (exp smoothing, effective order), 0-1",
                primary=n == 4,
            )
            for n in range(1, MAX_ORDER + 1)
        ),
        MetricSpec(
            "corpus_bleu",
            "corpus BLEU-4 over all of a model's answers (sacrebleu corpus_bleu), 0-1",
            aggregation="corpus",
        ),
    )

    def __init__(self, lowercase: bool = False) -> None:
        check(isinstance(lowercase, bool), "lowercase", "Bleu", "a boolean", lowercase)
        self.lowercase = lowercase

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        out = []
        for case in cases:
            stats = bleu_statistics(
                case.actual_answer or "", case.expected_answer or "", self.lowercase
            )
            values = {
                f"bleu{n}": bleu_from_statistics(stats, n) / 100 for n in range(1, MAX_ORDER + 1)
            }
            out.append(
                CaseResult.ok(
                    values,
                    f"BLEU-4 {values['bleu4']:.3f}; {stats[2]}/{stats[6]} unigrams and "
                    f"{stats[5]}/{stats[9]} 4-grams of the answer found in the expected answer",
                    {"stats": stats},
                )
            )
        return out

    def corpus_accumulator(self) -> BleuAccumulator:
        return BleuAccumulator()
