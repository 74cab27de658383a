"""Lexical groundedness: how much of the answer's wording comes from the retrieved context.

Judge- and model-free hallucination signals: ROUGE-1 and ROUGE-L precision of the answer against
the retrieved context (rouge-score's tokeniser and LCS; the Unicode tokeniser for non-Latin
scripts), BLEU-4's n-gram precision of the answer against the context (sacrebleu's ``13a``
tokens and ``exp`` smoothing, without the brevity penalty: the context is longer than any answer
by design) and SQuAD token precision (the share of the answer's normalised tokens found in the
context, counts clipped). Chunks are joined with newlines. An answer made of the context's own
words scores 1; invented content lowers every score.
"""

from __future__ import annotations

from collections import Counter

from assay.data.case import TestCase
from assay.evaluators.base import CaseByCaseEvaluator, CaseResult, MetricSpec
from assay.evaluators.lexical_bleu import MAX_ORDER, bleu_from_statistics, bleu_statistics
from assay.evaluators.lexical_rouge import has_non_ascii_words, rouge_from_tokens, rouge_tokens
from assay.evaluators.registry import register
from assay.params import check
from assay.text.normalize import squad_tokens


def token_precision(answer: str, context: str) -> float | None:
    """Share of the answer's SQuAD tokens found in the context (counts clipped); None when the
    answer has no token.

    Example:
        >>> token_precision("The fee is 12 euros", "A fee of 12 euros applies.")
        0.75
    """
    tokens = squad_tokens(answer)
    if not tokens:
        return None
    found = sum((Counter(tokens) & Counter(squad_tokens(context))).values())
    return found / len(tokens)


def bleu_precision(answer: str, context: str) -> float:
    """BLEU-4 of the answer against the context without the brevity penalty (0–1).

    Example:
        >>> round(bleu_precision("the fee is 12 euros", "Note: the fee is 12 euros a month."), 6)
        1.0
    """
    stats = bleu_statistics(answer, context)
    stats[1] = min(stats[0], stats[1])  # no brevity penalty: the context is the longer text
    return bleu_from_statistics(stats, MAX_ORDER, True) / 100


@register
class LexicalGroundedness(CaseByCaseEvaluator):
    """ROUGE-1 / ROUGE-L / BLEU / token precision of the answer against the retrieved context.

    Args:
        use_stemmer: Porter-stem words for the ROUGE scores (rouge-score's ``use_stemmer``).

    Example:
        >>> case = TestCase(id="q", actual_answer="The fee is 12 euros a month.",
        ...                 retrieved_context=["The account fee is 12 euros a month."])
        >>> r = LexicalGroundedness().evaluate([case])[0]
        >>> r.outcomes["lexical_groundedness_rouge1_precision"].value
        1.0
    """

    name = "lexical_groundedness"
    family = "lexical"
    description = (
        "Share of the answer's wording found in the retrieved context: ROUGE-1 / ROUGE-L "
        "precision, BLEU-4 n-gram precision and SQuAD token precision (judge-free)."
    )
    requires = ("actual_answer", "retrieved_context")
    metrics = (
        MetricSpec(
            "lexical_groundedness_rouge1_precision",
            "ROUGE-1 precision of the answer against the retrieved context",
        ),
        MetricSpec(
            "lexical_groundedness_rougeL_precision",
            "ROUGE-L precision (LCS / answer tokens) against the retrieved context",
            primary=True,
        ),
        MetricSpec(
            "lexical_groundedness_bleu",
            "BLEU-4 n-gram precision of the answer against the context (no brevity penalty)",
        ),
        MetricSpec(
            "lexical_groundedness_token_precision",
            "share of the answer's SQuAD-normalised tokens found in the context",
        ),
    )

    def __init__(self, use_stemmer: bool = False) -> None:
        check(
            isinstance(use_stemmer, bool),
            "use_stemmer", "LexicalGroundedness", "a boolean", use_stemmer,
        )  # fmt: skip
        self.use_stemmer = use_stemmer

    def score_case(self, case: TestCase) -> CaseResult:
        answer = case.actual_answer or ""
        context = "\n".join(case.retrieved_context or [])
        if not context.strip():
            return CaseResult.skipped(self.metric_names(), "the retrieved context is empty")
        non_latin = has_non_ascii_words(answer) or has_non_ascii_words(context)
        tokenizer = "unicode" if non_latin else "rouge_score"
        ans = rouge_tokens(answer, self.use_stemmer, cache=False, tokenizer=tokenizer)
        ctx = rouge_tokens(context, self.use_stemmer, cache=False, tokenizer=tokenizer)
        precision = token_precision(answer, context)
        if not ans or precision is None:
            return CaseResult.skipped(self.metric_names(), "the answer has no word")
        rouge = rouge_from_tokens(ctx, ans, ("rouge1", "rougeL"))
        values = {
            "lexical_groundedness_rouge1_precision": rouge["rouge1"].precision,
            "lexical_groundedness_rougeL_precision": rouge["rougeL"].precision,
            "lexical_groundedness_bleu": bleu_precision(answer, context),
            "lexical_groundedness_token_precision": precision,
        }
        return CaseResult.ok(
            values,
            f"{values['lexical_groundedness_rouge1_precision']:.0%} of the answer's "
            f"{len(ans)} words occur in the retrieved context",
            {"answer_tokens": len(ans), "context_tokens": len(ctx), "tokenizer": tokenizer},
        )
