"""ROUGE-1, ROUGE-2 and ROUGE-L of the actual against the expected answer, equal to ``rouge-score``.

Why this is hand-written rather than a call to ``rouge_score``: speed, with identical numbers.
``rouge-score`` fills a full O(n·m) dynamic-programming table in pure Python for every ROUGE-L
pair, re-tokenises both texts for every call and stems every word again through nltk (whose import
alone costs seconds). Here

* ROUGE-L's longest common subsequence uses the bit-parallel algorithm of Hyyrö (2004): one
  Python big-integer update per token of the shorter text, O(n·⌈m/64⌉) word operations in C;
* tokenisations of expected answers are cached (the same expected answer recurs for every
  model; small LRU cache) and stems are cached per word; the Porter stemmer is a verified port
  of nltk's (:mod:`assay.text.porter`);
* n-grams are counted with :class:`collections.Counter` over ``zip`` instead of tuple slices.

The tokeniser, the n-gram counts and every division are those of ``rouge-score`` 0.1.2, so the
scores are bit-for-bit identical (``tests/evaluators/test_lexical_rouge.py``), and ROUGE-L is
several times faster (``benchmarks/bench_lexical.py``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import pairwise
from typing import NamedTuple

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec
from assay.evaluators.registry import register
from assay.params import check
from assay.text.porter import porter_stem

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_VALID = re.compile(r"^[a-z0-9]+$")


class RougeScore(NamedTuple):
    """Precision, recall and F-measure of one ROUGE variant (as ``rouge_score.scoring.Score``)."""

    precision: float
    recall: float
    fmeasure: float


def _stem_token(token: str) -> str | None:
    stemmed = porter_stem(token) if len(token) > 3 else token
    return stemmed if _VALID.match(stemmed) else None


#: Texts up to this length are cached (so the cache stays small whatever the answers).
CACHED_TEXT_CHARS = 4096


def _tokenize(text: str, use_stemmer: bool) -> tuple[str, ...]:
    tokens = _NON_ALNUM.sub(" ", text.lower()).split()
    if not use_stemmer:
        return tuple(tokens)
    stems = (_stem_token(t) for t in tokens)
    return tuple(s for s in stems if s is not None)


_tokens = lru_cache(maxsize=4096)(_tokenize)


def rouge_tokens(text: str, use_stemmer: bool = False, cache: bool = True) -> tuple[str, ...]:
    """Tokenise as ``rouge_score.tokenize``: lower-case, non-alphanumerics become spaces, and
    (optionally) words longer than three characters are Porter-stemmed.

    With ``cache`` (for texts that recur, such as expected answers shared by several models) the
    result is kept in a small LRU cache; answers that occur once should pass ``cache=False``.

    Example:
        >>> rouge_tokens("The fees were waived, Ünal!", use_stemmer=True)
        ('the', 'fee', 'were', 'waiv', 'nal')
    """
    if not cache or len(text) > CACHED_TEXT_CHARS:
        return _tokenize(text, bool(use_stemmer))
    return _tokens(text, bool(use_stemmer))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence of two token sequences (bit-parallel).

    Bit ``i`` of ``masks[t]`` is set where ``a[i] == t``; ``v`` keeps, as zero bits, the matched
    positions of ``a``. Each token of ``b`` updates ``v`` with Hyyrö's
    ``v' = (v + (v & m)) | (v - (v & m))``; the LCS length is the number of zero bits of ``v``.

    Example:
        >>> lcs_length("the cat sat on the mat".split(), "the mat sat on a cat".split())
        3
    """
    if len(a) < len(b):
        a, b = b, a
    if not b:
        return 0
    masks: dict[str, int] = {}
    bit = 1
    for token in a:
        masks[token] = masks.get(token, 0) | bit
        bit <<= 1
    full = bit - 1
    v = full
    get = masks.get
    for token in b:
        m = get(token)
        if m is not None:
            u = v & m
            v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


def _fmeasure(precision: float, recall: float) -> float:
    if precision + recall > 0:
        return 2 * precision * recall / (precision + recall)
    return 0.0


def _ngram_score(target: Counter[object], prediction: Counter[object]) -> RougeScore:
    overlap = 0
    for gram, count in target.items():
        other = prediction.get(gram)
        if other:
            overlap += count if count < other else other
    precision = overlap / max(prediction.total(), 1)
    recall = overlap / max(target.total(), 1)
    return RougeScore(precision, recall, _fmeasure(precision, recall))


def _lcs_score(target: Sequence[str], prediction: Sequence[str]) -> RougeScore:
    if not target or not prediction:
        return RougeScore(0, 0, 0)
    lcs = lcs_length(target, prediction)
    precision, recall = lcs / len(prediction), lcs / len(target)
    return RougeScore(precision, recall, _fmeasure(precision, recall))


def rouge_from_tokens(
    target: Sequence[str],
    prediction: Sequence[str],
    types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
) -> dict[str, RougeScore]:
    """ROUGE scores of already tokenised texts (``types`` among rouge1, rouge2, rougeL).

    Example:
        >>> rouge_from_tokens(("a", "b", "c"), ("a", "c"), ["rougeL"])["rougeL"].recall
        0.6666666666666666
    """
    out: dict[str, RougeScore] = {}
    for kind in types:
        if kind == "rouge1":
            out[kind] = _ngram_score(Counter(target), Counter(prediction))
        elif kind == "rouge2":
            out[kind] = _ngram_score(
                Counter(pairwise(target)),
                Counter(pairwise(prediction)),
            )
        elif kind == "rougeL":
            out[kind] = _lcs_score(target, prediction)
        else:
            raise ValueError(f"unknown ROUGE type {kind!r}; expected rouge1, rouge2 or rougeL")
    return out


def rouge(
    target: str,
    prediction: str,
    types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    use_stemmer: bool = False,
) -> dict[str, RougeScore]:
    """ROUGE of ``prediction`` against ``target``, equal to
    ``rouge_scorer.RougeScorer(types, use_stemmer).score(target, prediction)``.

    Example:
        >>> round(rouge("The fee is 12 euros.", "12 euros", ["rouge1"])["rouge1"].fmeasure, 4)
        0.5714
    """
    return rouge_from_tokens(
        rouge_tokens(target, use_stemmer),
        rouge_tokens(prediction, use_stemmer, cache=False),
        types,
    )


_TYPES = (
    ("rouge1", "ROUGE-1 (unigram)"),
    ("rouge2", "ROUGE-2 (bigram)"),
    ("rougeL", "ROUGE-L (LCS)"),
)


def _specs() -> tuple[MetricSpec, ...]:
    specs = []
    for kind, label in _TYPES:
        specs.append(
            MetricSpec(
                f"{kind}_f1",
                f"{label} F-measure of the actual against the expected answer",
                threshold=0.4 if kind == "rougeL" else None,
                primary=kind == "rougeL",
            )
        )
        specs.append(MetricSpec(f"{kind}_precision", f"{label} precision (share of the answer)"))
        specs.append(MetricSpec(f"{kind}_recall", f"{label} recall (share of the expected answer)"))
    return tuple(specs)


@register
class Rouge(Evaluator):
    """ROUGE-1, ROUGE-2 and ROUGE-L (F1, precision, recall), identical to ``rouge-score``.

    Args:
        use_stemmer: Porter-stem words longer than three characters (``rouge-score``'s
            ``use_stemmer``).
    """

    name = "rouge"
    family = "lexical"
    description = (
        "ROUGE-1/2/L F1, precision and recall of the actual against the expected answer "
        "(identical to rouge-score)."
    )
    requires = ("actual_answer", "expected_answer")
    metrics = _specs()

    def __init__(self, use_stemmer: bool = False) -> None:
        check(isinstance(use_stemmer, bool), "use_stemmer", "Rouge", "a boolean", use_stemmer)
        self.use_stemmer = use_stemmer

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        out = []
        for case in cases:
            target = rouge_tokens(case.expected_answer or "", self.use_stemmer)
            prediction = rouge_tokens(case.actual_answer or "", self.use_stemmer, cache=False)
            scores = rouge_from_tokens(target, prediction)
            values: dict[str, float] = {}
            for kind, s in scores.items():
                values[f"{kind}_f1"] = s.fmeasure
                values[f"{kind}_precision"] = s.precision
                values[f"{kind}_recall"] = s.recall
            out.append(
                CaseResult.ok(
                    values,
                    f"ROUGE-L F1 {scores['rougeL'].fmeasure:.3f} over {len(prediction)} answer and "
                    f"{len(target)} expected tokens",
                    {"answer_tokens": len(prediction), "expected_tokens": len(target)},
                )
            )
        return out
