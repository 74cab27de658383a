"""ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum of the actual against the expected answer(s), equal to
``rouge-score`` under its settings.

Reference choices (``docs/reference-definitions.md#lexical``): several expected answers score as
``rouge_scorer.score_multi`` (per ROUGE type, the reference with the highest F-measure); the
ROUGE-L F-measure takes a ``beta`` (Lin 2004; the validation framework uses β ≈ 1.2, rouge-score
β = 1); ``rougeLsum`` splits summaries on newlines as rouge-score does. rouge-score's tokeniser
keeps only ``[a-z0-9]``, so Cyrillic or Chinese text has no tokens and scores a silent 0; the
evaluator's default ``tokenizer="auto"`` switches to a Unicode tokeniser (words of letters and
digits of any script; each Han, Hiragana or Katakana character a token) for cases with non-ASCII
letters, and a text whose letters yield no token is skipped with the reason, never scored 0.

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
from collections.abc import Callable, Sequence
from functools import lru_cache
from itertools import pairwise
from typing import Any, NamedTuple

from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, MetricSpec, Status
from assay.evaluators.batch import BatchBuilder, ResultBatch
from assay.evaluators.lexical_rouge_lsum import summary_lcs
from assay.evaluators.registry import register
from assay.params import check, check_choice
from assay.text.porter import porter_stem

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_VALID = re.compile(r"^[a-z0-9]+$")
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_UNICODE_TOKEN = re.compile(rf"[{_CJK}]|[^\W_{_CJK}]+")
#: Tokenisers: ``rouge_score`` (its DefaultTokenizer), ``unicode``, ``auto`` (unicode when a case
#: has non-ASCII letters or digits, else rouge_score).
TOKENIZERS = ("auto", "rouge_score", "unicode")


#: Every ROUGE type computed here.
ALL_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


class RougeScore(NamedTuple):
    """Precision, recall and F-measure of one ROUGE variant (as ``rouge_score.scoring.Score``)."""

    precision: float
    recall: float
    fmeasure: float


#: Words kept by :class:`_StemCache` before it starts afresh (a bound whatever the answers).
STEM_CACHE_WORDS = 1 << 17


class _StemCache(dict[str, str]):
    """Word → its token after rouge-score's stemming step ('' when the step drops it).

    A dict filled by ``__missing__`` rather than an LRU-cached function: ``map(cache.__getitem__,
    words)`` runs in C for every word seen before, which made tokenising most of ROUGE's time
    through the public API (issue 23).
    """

    def __missing__(self, word: str) -> str:
        if len(self) >= STEM_CACHE_WORDS:
            self.clear()
        stemmed = porter_stem(word) if len(word) > 3 else word
        token = self[word] = stemmed if _VALID.match(stemmed) else ""
        return token


_STEMS = _StemCache()

#: Texts up to this length are cached (so the cache stays small whatever the answers).
CACHED_TEXT_CHARS = 4096


def _tokenize(text: str, use_stemmer: bool, tokenizer: str = "rouge_score") -> tuple[str, ...]:
    if tokenizer == "unicode":
        words = _UNICODE_TOKEN.findall(text.lower())
        if not use_stemmer:
            return tuple(words)
        return tuple(porter_stem(w) if len(w) > 3 and _VALID.match(w) else w for w in words)
    tokens = _NON_ALNUM.sub(" ", text.lower()).split()
    if not use_stemmer:
        return tuple(tokens)
    return tuple(filter(None, map(_STEMS.__getitem__, tokens)))


def has_non_ascii_words(text: str) -> bool:
    """Whether ``text`` has letters or digits outside ASCII (rouge-score's tokeniser drops them).

    Example:
        >>> has_non_ascii_words("Плата 12 евро"), has_non_ascii_words("12 euros, £5")
        (True, False)
    """
    return not text.isascii() and any(ch.isalnum() and not ch.isascii() for ch in text)


_tokens = lru_cache(maxsize=4096)(_tokenize)


def clear_caches() -> None:
    """Forget every cached tokenisation and stem (benchmarks time cold passes with it)."""
    _tokens.cache_clear()
    _STEMS.clear()
    porter_stem.cache_clear()


def rouge_tokens(
    text: str, use_stemmer: bool = False, cache: bool = True, tokenizer: str = "rouge_score"
) -> tuple[str, ...]:
    """Tokenise as ``rouge_score.tokenize``: lower-case, non-alphanumerics become spaces, and
    (optionally) words longer than three characters are Porter-stemmed. With
    ``tokenizer="unicode"``, words are runs of letters and digits of any script and each Han,
    Hiragana or Katakana character is a token (ASCII words are stemmed as before).

    With ``cache`` (for texts that recur, such as expected answers shared by several models) the
    result is kept in a small LRU cache; answers that occur once should pass ``cache=False``.

    Example:
        >>> rouge_tokens("The fees were waived, Ünal!", use_stemmer=True)
        ('the', 'fee', 'were', 'waiv', 'nal')
        >>> rouge_tokens("Плата: 12 евро, 手续费", tokenizer="unicode")
        ('плата', '12', 'евро', '手', '续', '费')
    """
    if not cache or len(text) > CACHED_TEXT_CHARS:
        return _tokenize(text, bool(use_stemmer), tokenizer)
    return _tokens(text, bool(use_stemmer), tokenizer)


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


def _fmeasure(precision: float, recall: float, beta: float = 1.0) -> float:
    if beta == 1.0:  # rouge-score's expression, so values stay bit-for-bit equal
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.0
    b2 = beta * beta
    denominator = recall + b2 * precision
    return (1 + b2) * precision * recall / denominator if denominator > 0 else 0.0


def _ngram_score(target: Counter[object], prediction: Counter[object]) -> RougeScore:
    overlap = 0
    for gram, count in target.items():
        other = prediction.get(gram)
        if other:
            overlap += count if count < other else other
    precision = overlap / max(prediction.total(), 1)
    recall = overlap / max(target.total(), 1)
    return RougeScore(precision, recall, _fmeasure(precision, recall))


def _lcs_score(target: Sequence[str], prediction: Sequence[str], beta: float = 1.0) -> RougeScore:
    if not target or not prediction:
        return RougeScore(0, 0, 0)
    lcs = lcs_length(target, prediction)
    precision, recall = lcs / len(prediction), lcs / len(target)
    return RougeScore(precision, recall, _fmeasure(precision, recall, beta))


def _lsum_score(
    target: str,
    prediction: str,
    tokens: Callable[[str], tuple[str, ...]],
    beta: float,
    rouge_l: RougeScore,
) -> RougeScore:
    """rougeLsum: sentences are the non-empty lines (rouge-score's default).

    Two single-line texts score ``rouge_l`` (their ROUGE-L with the same ``beta``): the union of
    one LCS's positions is that LCS, and every position of it is a hit, since a common
    subsequence never uses a token more often than either text holds it; so ``hits`` is the LCS
    length and ``m``, ``n`` the token counts, as in ROUGE-L (bit-for-bit: the same divisions).
    """
    if "\n" not in target and "\n" not in prediction:
        return rouge_l
    hits, m, n = summary_lcs(
        [tokens(line) for line in target.split("\n") if line],
        [tokens(line) for line in prediction.split("\n") if line],
    )
    if not m or not n:
        return RougeScore(0, 0, 0)
    precision, recall = hits / n, hits / m
    return RougeScore(precision, recall, _fmeasure(precision, recall, beta))


def rouge_from_tokens(
    target: Sequence[str],
    prediction: Sequence[str],
    types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    beta: float = 1.0,
) -> dict[str, RougeScore]:
    """ROUGE scores of already tokenised texts (``types`` among rouge1, rouge2, rougeL; ``beta``
    weighs recall in the ROUGE-L F-measure).

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
            out[kind] = _lcs_score(target, prediction, beta)
        else:
            raise ValueError(f"unknown ROUGE type {kind!r}; expected rouge1, rouge2 or rougeL")
    return out


def rouge(
    target: str,
    prediction: str,
    types: Sequence[str] = ("rouge1", "rouge2", "rougeL"),
    use_stemmer: bool = False,
    tokenizer: str = "rouge_score",
    beta: float = 1.0,
) -> dict[str, RougeScore]:
    """ROUGE of ``prediction`` against ``target``, equal to
    ``rouge_scorer.RougeScorer(types, use_stemmer).score(target, prediction)`` (``types`` among
    rouge1, rouge2, rougeL, rougeLsum; ``beta`` weighs recall in the ROUGE-L F-measures).

    Example:
        >>> round(rouge("The fee is 12 euros.", "12 euros", ["rouge1"])["rouge1"].fmeasure, 4)
        0.5714
    """
    target_tokens = rouge_tokens(target, use_stemmer, tokenizer=tokenizer)
    prediction_tokens = rouge_tokens(prediction, use_stemmer, cache=False, tokenizer=tokenizer)
    return _rouge_of_tokens(
        (target, target_tokens), (prediction, prediction_tokens), types, use_stemmer, tokenizer,
        beta,
    )  # fmt: skip


def _rouge_of_tokens(
    target: tuple[str, Sequence[str]],
    prediction: tuple[str, Sequence[str]],
    types: Sequence[str],
    use_stemmer: bool,
    tokenizer: str,
    beta: float,
) -> dict[str, RougeScore]:
    """:func:`rouge` of (text, tokens) pairs tokenised once by the caller."""
    plain = [t for t in types if t != "rougeLsum"]
    if "rougeLsum" in types and "rougeL" not in plain:
        plain.append("rougeL")
    out = rouge_from_tokens(target[1], prediction[1], plain, beta)
    if "rougeLsum" in types:
        out["rougeLsum"] = _lsum_score(
            target[0], prediction[0], lambda t: rouge_tokens(t, use_stemmer, False, tokenizer),
            beta, out["rougeL"],
        )  # fmt: skip
    return {kind: out[kind] for kind in types}


def rouge_multi(
    targets: Sequence[str], prediction: str, types: Sequence[str] = ALL_TYPES, **options: Any
) -> dict[str, RougeScore]:
    """ROUGE against several references as ``rouge_scorer.score_multi``: per type, the score of
    the reference with the highest F-measure (the first on ties).

    Example:
        >>> s = rouge_multi(["the fee is 12 euros", "twelve euros a month"], "12 euros", ["rouge1"])
        >>> round(s["rouge1"].fmeasure, 4)
        0.5714
    """
    return _best_per_type([rouge(t, prediction, types, **options) for t in targets], types)


def _best_per_type(
    scores: Sequence[dict[str, RougeScore]], types: Sequence[str]
) -> dict[str, RougeScore]:
    """Per type, the score with the highest F-measure (the first on ties: ``score_multi``)."""
    if len(scores) == 1:
        return scores[0]
    return {kind: max((s[kind] for s in scores), key=lambda x: x.fmeasure) for kind in types}


_TYPES = (
    ("rouge1", "ROUGE-1 (unigram)"),
    ("rouge2", "ROUGE-2 (bigram)"),
    ("rougeL", "ROUGE-L (LCS)"),
    ("rougeLsum", "ROUGE-Lsum (summary-level LCS over lines)"),
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
    """ROUGE-1, ROUGE-2, ROUGE-L and ROUGE-Lsum (F-measure, precision, recall), identical to
    ``rouge-score`` with ``tokenizer="rouge_score"`` and ``beta=1``.

    Args:
        use_stemmer: Porter-stem words longer than three characters (``rouge-score``'s
            ``use_stemmer``; on by default, as in the reference catalogue's ROUGE evaluator).
        tokenizer: ``"auto"`` (default: rouge-score's tokeniser, or the Unicode one for cases
            with non-ASCII letters), ``"rouge_score"`` or ``"unicode"``.
        beta: Weight of recall in the ROUGE-L and ROUGE-Lsum F-measures (1: rouge-score's F1;
            the validation framework uses 1.2).

    Example:
        >>> case = TestCase(id="q", expected_answer=["Плата 12 евро.", "Fee: 12 euros."],
        ...                 actual_answer="Плата 12 евро.")
        >>> Rouge().evaluate([case])[0].outcomes["rougeL_f1"].value
        1.0
    """

    name = "rouge"
    family = "lexical"
    explanations_masked = True  # scores and token counts only
    description = (
        "ROUGE-1/2/L/Lsum F-measure, precision and recall of the actual against the expected "
        "answer(s) (identical to rouge-score; several references: best per type; Unicode "
        "tokeniser for non-Latin scripts)."
    )
    requires = ("actual_answer", "expected_answer")
    metrics = _specs()

    def __init__(
        self, use_stemmer: bool = True, tokenizer: str = "auto", beta: float = 1.0
    ) -> None:
        check(isinstance(use_stemmer, bool), "use_stemmer", "Rouge", "a boolean", use_stemmer)
        check_choice(tokenizer, TOKENIZERS, "tokenizer", "Rouge")
        check(
            isinstance(beta, int | float) and not isinstance(beta, bool) and beta > 0,
            "beta", "Rouge", "a positive number", beta,
        )  # fmt: skip
        self.use_stemmer = use_stemmer
        self.tokenizer = tokenizer
        self.beta = float(beta)

    def score(self, cases: Sequence[TestCase]) -> ResultBatch:
        """The batch's columns, case by case (no per-case result object: design note 0036)."""
        out = BatchBuilder(self.metric_names())
        for case in cases:
            self._score_case(case, out)
        return out.build()

    def _score_case(self, case: TestCase, out: BatchBuilder) -> None:
        references, answer = case.references, case.actual_answer or ""
        tokenizer = self.tokenizer
        if tokenizer == "auto":
            texts = [answer, *references]
            tokenizer = "unicode" if any(map(has_non_ascii_words, texts)) else "rouge_score"
        prediction = rouge_tokens(answer, self.use_stemmer, cache=False, tokenizer=tokenizer)
        targets = [rouge_tokens(r, self.use_stemmer, tokenizer=tokenizer) for r in references]
        lost = _untokenised(answer, prediction) if tokenizer == "rouge_score" else None
        if (
            tokenizer == "rouge_score"
            and lost is None
            and all(
                _untokenised(r, t) is not None for r, t in zip(references, targets, strict=True)
            )
        ):
            lost = references[0]
        if lost:
            out.not_scored(
                Status.SKIPPED,
                f"the {tokenizer} tokeniser finds no token in {lost[:40]!r} although it has "
                "letters or digits (a script it drops?): use tokenizer='unicode'",
            )
            return
        per_reference = [
            _rouge_of_tokens(
                (r, t), (answer, prediction), ALL_TYPES, self.use_stemmer, tokenizer, self.beta
            )
            for r, t in zip(references, targets, strict=True)
        ]
        scores = _best_per_type(per_reference, ALL_TYPES)
        out.ok(
            # metric order: F, precision, recall of each type (_specs)
            [v for kind in ALL_TYPES for v in (scores[kind][2], scores[kind][0], scores[kind][1])],
            f"ROUGE-L F {scores['rougeL'].fmeasure:.3f} over {len(prediction)} answer tokens and "
            f"{len(references)} reference(s) ({tokenizer} tokeniser)",
            {
                "answer_tokens": len(prediction),
                "expected_tokens": len(targets[0]),
                "n_references": len(references),
                "tokenizer": tokenizer,
            },
        )


def _untokenised(text: str, tokens: Sequence[str]) -> str | None:
    """``text`` when the tokeniser dropped most of its words: none left although it has letters or
    digits, or at least half of its words are in a script rouge-score's tokeniser drops."""
    if not tokens:
        return text if any(ch.isalnum() for ch in text) else None
    if not has_non_ascii_words(text):
        return None
    words = _UNICODE_TOKEN.findall(text.lower())
    dropped = sum(1 for w in words if not w.isascii())
    return text if 2 * dropped >= len(words) else None
