"""Sentence BLEU-1…4 and corpus BLEU of the actual against the expected answer, equal to sacrebleu.

Settings (documented in ``docs/lexical.md``): sacrebleu 2.x's ``13a`` tokeniser, case-sensitive
unless ``lowercase``; sentence BLEU-n is ``BLEU(max_ngram_order=n, smooth_method="exp",
effective_order=True).sentence_score`` (sacrebleu's ``sentence_bleu`` defaults); corpus BLEU is
``BLEU().corpus_score`` (4-grams, ``exp`` smoothing, no effective order: sacrebleu's
``corpus_bleu`` defaults) over all of a model's cases. Values are sacrebleu's divided by 100.
Several expected answers are sacrebleu's multi-reference BLEU (n-gram counts clipped by their
maximum over the references, the closest reference length for the brevity penalty); the
smoothing method is a parameter (``exp`` by default, ``floor`` with value 0.1, ``add-k``,
``none``), as in sacrebleu.

Hand-written (the tokeniser and the BLEU formula are short) so that the metric needs no optional
dependency, n-gram statistics are computed once for all four orders and reused by the corpus
score, and tokenisation is cached and faster (one str.replace per padded character present instead
of the first regex);
``tests/evaluators/test_lexical_bleu.py`` checks equality with sacrebleu.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache, partial
from itertools import chain, pairwise
from typing import Any

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec
from assay.evaluators.batch import BatchBuilder, LazyColumn, ResultBatch, without_cyclic_gc
from assay.evaluators.registry import register
from assay.params import check, check_choice

MAX_ORDER = 4
# sacrebleu's first 13a rule, r"([\{-\~\[-\` -\&\(-\+\:-\@\/])" -> r" \1 ", pads single
# characters independently, so one str.replace per character present gives the same string,
# faster than the regex and than str.translate (which looks each character up in a dict). The
# space, in the class too, is left as it is: padding it only lengthens runs of spaces, which
# neither the later rules (a space is one "[^0-9]" however many follow) nor the final split see.
_PADDED = [
    (chr(c), f" {chr(c)} ")
    for lo, hi in ((0x7B, 0x7E), (0x5B, 0x60), (0x21, 0x26), (0x28, 0x2B), (0x3A, 0x40),
                   (0x2F, 0x2F))
    for c in range(lo, hi + 1)
]
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
    line = f" {line} "
    for char, padded in _PADDED:
        if char in line:
            line = line.replace(char, padded)
    # Replacement functions instead of r"\1 \2 " templates: the same substitutions, but a
    # template is expanded by Python code per match (re in Python 3.11), twice as slow.
    if "." in line or "," in line:
        line = _PUNCT_AFTER_NON_DIGIT.sub(_space_after_first, line)
        line = _PUNCT_BEFORE_NON_DIGIT.sub(_space_before_first, line)
    if "-" in line:
        line = _DASH_AFTER_DIGIT.sub(_space_after_first, line)
    return tuple(line.split())


def _space_after_first(match: re.Match[str]) -> str:
    return f"{match[1]} {match[2]} "  # r"\1 \2 "


def _space_before_first(match: re.Match[str]) -> str:
    return f" {match[1]} {match[2]}"  # r" \1 \2"


_cached_13a = lru_cache(maxsize=4096)(_tokenize_13a)


def _ngram_counts(tokens: Sequence[str]) -> Counter[Any]:
    """One counter of all 1- to 4-grams of ``tokens`` (unigrams as strings, longer ones as
    tuples, so the orders never collide): one C-level count instead of four."""
    t = tokens
    return Counter(
        chain(
            t,
            pairwise(t),
            zip(t, t[1:], t[2:], strict=False),
            zip(t, t[1:], t[2:], t[3:], strict=False),
        )
    )


def _closest_length(hyp_len: int, ref_lens: Sequence[int]) -> int:
    """The reference length closest to ``hyp_len``, the shorter on ties (sacrebleu)."""
    return min(ref_lens, key=lambda n: (abs(hyp_len - n), n))


def bleu_statistics(
    hypothesis: str, reference: str | Sequence[str], lowercase: bool = False
) -> list[int]:
    """Sufficient statistics ``[hyp_len, ref_len, correct_1..4, total_1..4]`` of one segment
    against one reference or several (sacrebleu's multi-reference statistics).

    Example:
        >>> bleu_statistics("the cat sat", "the cat sat down")
        [3, 4, 3, 2, 1, 0, 3, 2, 1, 0]
        >>> bleu_statistics("the cat sat", ["a cat sat down", "the cat"])
        [3, 2, 3, 2, 0, 0, 3, 2, 1, 0]
    """
    references = [reference] if isinstance(reference, str) else list(reference)
    if lowercase:
        hypothesis, references = hypothesis.lower(), [r.lower() for r in references]
    hyp = tokenize_13a(hypothesis, cache=False)
    refs = [tokenize_13a(r) for r in references]
    merged = _ngram_counts(refs[0])
    for other_ref in refs[1:]:
        merged |= _ngram_counts(other_ref)  # the maximum count over the references
    correct = [0] * MAX_ORDER
    total = [max(len(hyp) - n, 0) for n in range(MAX_ORDER)]
    get = merged.get
    for gram, count in _ngram_counts(hyp).items():
        other = get(gram)
        if other:
            correct[0 if gram.__class__ is str else len(gram) - 1] += (
                count if count < other else other
            )
    ref_len = _closest_length(len(hyp), [len(r) for r in refs])
    return [len(hyp), ref_len, *correct, *total]


def individual_bleu(stats: Sequence[int], order: int) -> float:
    """BLEU with all weight on one n-gram order, no smoothing (0–100): the brevity penalty times
    the modified precision of ``order``-grams, as nltk's ``sentence_bleu`` with weights
    ``(0, …, 1, …)`` and the reference catalogue's BLEU-n compute it.

    Example:
        >>> round(individual_bleu([3, 4, 3, 2, 1, 0, 3, 2, 1, 0], 2), 4)
        71.6531
    """
    sys_len, ref_len = stats[0], stats[1]
    correct, total = stats[1 + order], stats[1 + MAX_ORDER + order]
    if not sys_len or not total or not correct:
        return 0.0
    return 100.0 * _brevity_penalty(sys_len, ref_len) * correct / total


_NAMES = [f"bleu{n}" for n in range(1, MAX_ORDER + 1)]
#: sacrebleu's smoothing methods and their default values.
SMOOTHING: dict[str, float | None] = {"none": None, "floor": 0.1, "add-k": 1.0, "exp": None}


def bleu_from_statistics(
    stats: Sequence[int],
    max_order: int = 4,
    effective_order: bool = True,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
) -> float:
    """BLEU (0–100) from summed statistics, as sacrebleu's ``compute_bleu`` computes it.

    Example:
        >>> round(bleu_from_statistics([3, 4, 3, 2, 1, 0, 3, 2, 1, 0], 2), 4)
        71.6531
        >>> stats = [5, 5, 4, 2, 1, 0, 5, 4, 3, 2]  # no 4-gram matches: smoothing decides
        >>> exp, floor = bleu_from_statistics(stats), bleu_from_statistics(stats, 4, True, "floor")
        >>> round(exp, 4), round(floor, 4)
        (42.7287, 28.5744)
    """
    correct: list[float] = list(stats[2 : 2 + max_order])
    if not any(correct):
        return 0.0
    total: list[float] = list(stats[2 + MAX_ORDER : 2 + MAX_ORDER + max_order])
    found = _precisions(correct, total, smooth_method, smooth_value)
    eff_order = (len(found) or max_order) if effective_order else max_order
    precisions = found + [0.0] * (max_order - len(found))
    logs = [_log(p) for p in precisions[:eff_order]]
    return _brevity_penalty(stats[0], stats[1]) * math.exp(sum(logs) / eff_order)


def _brevity_penalty(sys_len: float, ref_len: float) -> float:
    if sys_len >= ref_len:
        return 1.0
    return math.exp(1 - ref_len / sys_len) if sys_len > 0 else 0.0


def _precisions(
    correct: list[float], total: list[float], smooth_method: str, smooth_value: float | None
) -> list[float]:
    """sacrebleu's smoothed n-gram precisions (0–100), order by order up to the first order
    without n-grams (add-k smoothing adds to ``correct`` and ``total`` in place)."""
    if smooth_value is None:
        smooth_value = SMOOTHING[smooth_method]
    precisions: list[float] = []
    smooth = 1.0
    for n in range(1, len(correct) + 1):
        if smooth_method == "add-k" and n > 1:
            assert smooth_value is not None
            correct[n - 1] += smooth_value
            total[n - 1] += smooth_value
        if total[n - 1] == 0:
            break
        precision = 0.0
        if correct[n - 1] == 0:
            if smooth_method == "exp":
                smooth *= 2
                precision = 100.0 / (smooth * total[n - 1])
            elif smooth_method == "floor":
                assert smooth_value is not None
                precision = 100.0 * smooth_value / total[n - 1]
        else:
            precision = 100.0 * correct[n - 1] / total[n - 1]
        precisions.append(precision)
    return precisions


def _log(precision: float) -> float:
    """sacrebleu's log of a precision, with a huge negative number for 0."""
    return math.log(precision) if precision != 0.0 else -9999999999


def sentence_bleus(
    stats: Sequence[int], smooth_method: str = "exp", smooth_value: float | None = None
) -> list[float]:
    """Sentence BLEU-1…4 (0–100, effective order), equal to four calls of
    :func:`bleu_from_statistics` but sharing the precisions of the lower orders.

    Example:
        >>> stats = [5, 5, 4, 2, 1, 0, 5, 4, 3, 2]
        >>> sentence_bleus(stats) == [bleu_from_statistics(stats, n) for n in range(1, 5)]
        True
    """
    correct: list[float] = list(stats[2 : 2 + MAX_ORDER])
    total: list[float] = list(stats[2 + MAX_ORDER : 2 + 2 * MAX_ORDER])
    bp = _brevity_penalty(stats[0], stats[1])
    # log precisions of the orders before the first empty one
    logs = [_log(p) for p in _precisions(correct, total, smooth_method, smooth_value)]
    scores = []
    for n in range(1, MAX_ORDER + 1):
        order = min(n, len(logs))  # the effective order
        matched = any(stats[2 : 2 + n])
        scores.append(bp * math.exp(sum(logs[:order]) / order) if matched and order else 0.0)
    return scores


class BleuAccumulator:
    """Sums a model's segment statistics batch by batch; ``finish`` gives corpus BLEU (0–1)."""

    def __init__(self, smooth_method: str = "exp", smooth_value: float | None = None) -> None:
        self.stats = [0] * (2 + 2 * MAX_ORDER)
        self.n_segments = 0
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value

    def add(self, cases: Sequence[TestCase], results: Sequence[CaseResult]) -> None:
        """Add the statistics that :class:`Bleu` stored in each ok result's details."""
        for details in ResultBatch.of(Bleu.metric_names(), results).details:
            segment = details.get("stats") if details else None
            if segment is not None:
                self.stats = [a + b for a, b in zip(self.stats, segment, strict=True)]
                self.n_segments += 1

    def finish(self) -> dict[str, float | None]:
        """Corpus BLEU-4, or None when no segment was scored."""
        if not self.n_segments:
            return {"corpus_bleu": None}
        score = bleu_from_statistics(
            self.stats, MAX_ORDER, False, self.smooth_method, self.smooth_value
        )
        return {"corpus_bleu": score / 100}


@register
class Bleu(Evaluator):
    """Sentence BLEU-1…4 and corpus BLEU, equal to sacrebleu (settings in docs/lexical.md);
    several expected answers are sacrebleu's multi-reference BLEU.

    The primary metric is ``bleu1`` with threshold 0.75, as in the reference catalogue (H2O
    Sonar's BLEU evaluator). ``bleu2``…``bleu4`` are cumulative (uniform weights over 1..n-grams,
    sacrebleu's BLEU-n) by default; ``ngram_weights="individual"`` gives the catalogue's BLEU-n
    (all weight on the n-grams of order n, no smoothing). ``bleu1`` is the same under both.

    Args:
        lowercase: compare lower-cased texts (sacrebleu ``lowercase=True``).
        smooth_method: sacrebleu's smoothing: ``"exp"`` (default, as ``sentence_bleu``),
            ``"floor"``, ``"add-k"`` or ``"none"``.
        smooth_value: the value of ``floor`` (default 0.1) or ``add-k`` (default 1).
        ngram_weights: ``"cumulative"`` (sacrebleu) or ``"individual"`` (reference catalogue).

    Example:
        >>> case = TestCase(id="q", actual_answer="The fee is 12 euros.",
        ...                 expected_answer=["It costs 12 euros.", "The fee is 12 euros."])
        >>> Bleu().evaluate([case])[0].outcomes["bleu4"].value
        1.0
    """

    name = "bleu"
    family = "lexical"
    explanations_masked = True  # scores and token counts only
    description = (
        "Sentence BLEU-1..4 (sacrebleu sentence_bleu settings) and corpus BLEU (corpus_bleu) "
        "of the actual against the expected answer(s) (multi-reference as sacrebleu), 0-1."
    )
    requires = ("actual_answer", "expected_answer")
    metrics = (
        *(
            MetricSpec(
                f"bleu{n}",
                f"sentence BLEU-{n} (cumulative up to {n}-grams, smoothed, effective order; or "
                f"{n}-grams only with ngram_weights='individual'), 0-1",
                threshold=0.75 if n == 1 else None,
                primary=n == 1,
            )
            for n in range(1, MAX_ORDER + 1)
        ),
        MetricSpec(
            "corpus_bleu",
            "corpus BLEU-4 over all of a model's answers (sacrebleu corpus_bleu), 0-1",
            aggregation="corpus",
        ),
    )

    def __init__(
        self,
        lowercase: bool = False,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        ngram_weights: str = "cumulative",
    ) -> None:
        check(isinstance(lowercase, bool), "lowercase", "Bleu", "a boolean", lowercase)
        check_choice(ngram_weights, ("cumulative", "individual"), "ngram_weights", "Bleu")
        check_choice(smooth_method, SMOOTHING, "smooth_method", "Bleu")
        check(
            smooth_value is None or (isinstance(smooth_value, int | float) and smooth_value > 0),
            "smooth_value", "Bleu", "None or a positive number", smooth_value,
        )  # fmt: skip
        self.lowercase = lowercase
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.ngram_weights = ngram_weights

    def score(self, cases: Sequence[TestCase]) -> ResultBatch:
        """The batch's columns: statistics and scores case by case, explanations written when a
        row is read (design note 0036)."""
        out = BatchBuilder(self.metric_names())  # corpus_bleu, last, is not per case
        n_references: list[int] = []
        with without_cyclic_gc():  # counters and tuples, no cycles
            for case in cases:
                references = case.references
                stats = bleu_statistics(case.actual_answer or "", references, self.lowercase)
                out.ok(self._sentence_bleus(stats), None, {"stats": stats})
                n_references.append(len(references))
        return out.build(LazyColumn(out.n, partial(_explanation, out.rows, out.details,
                                                   n_references)))

    def _sentence_bleus(self, stats: Sequence[int]) -> list[float]:
        if self.ngram_weights == "individual":
            return [individual_bleu(stats, n) / 100 for n in range(1, MAX_ORDER + 1)]
        return [v / 100 for v in sentence_bleus(stats, self.smooth_method, self.smooth_value)]

    def corpus_accumulator(self) -> BleuAccumulator:
        return BleuAccumulator(self.smooth_method, self.smooth_value)


def _explanation(
    values: Sequence[Sequence[float]],
    details: Sequence[dict[str, Any]],
    n_references: Sequence[int],
    index: int,
) -> str:
    """The explanation of case ``index`` from its scores and statistics."""
    bleu1, bleu4, stats = values[index][0], values[index][3], details[index]["stats"]
    n = n_references[index]
    return (f"BLEU-1 {bleu1:.3f}, BLEU-4 {bleu4:.3f}; {stats[2]}/{stats[6]} unigrams and "
            f"{stats[5]}/{stats[9]} 4-grams of the answer found in the expected answer"
            + (f" ({n} references)" if n > 1 else ""))
