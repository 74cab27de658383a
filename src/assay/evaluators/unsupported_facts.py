"""Unsupported facts: which of the answer's checkable facts the context does not contain.

A transparent, model-free hallucination signal. The answer's content words, numbers, dates,
name-like tokens and negations are extracted and normalised (lower case, Porter stems, digits
for number words, ``5,000`` = ``5000``, month names to numbers); a fact is *supported* when its
normalised form occurs anywhere in the retrieved context. A negation is checked locally: it is
supported when the context sentence sharing the most content words with the answer sentence
that holds it is negated too (a "not" elsewhere in the context says nothing about this claim).
The unsupported facts are listed as the explanation. Only the answer's claims are read:
questions, courtesy and framing lines are set aside and named (``sentences="all"`` reads them too;
design note 0051). Sentence similarity cannot see a changed number or name; this metric can,
but it cannot see paraphrases of unsupported claims: use both.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec, Outcome, Status
from assay.evaluators.claim_sentences import (
    check_sentences,
    scored_sentences,
    skip_reason,
    with_set_aside,
)
from assay.evaluators.registry import register
from assay.text.facts import (
    KINDS,
    Fact,
    content_stems,
    context_keys,
    fact_supported,
    facts_of_sentences,
    is_negated,
    negation_supported,
)
from assay.text.sentences import split_sentences


def _share(facts: Sequence[Fact], flags: Sequence[bool], kinds: tuple[str, ...]) -> Outcome:
    chosen = [ok for f, ok in zip(facts, flags, strict=True) if f.kind in kinds]
    if not chosen:
        return Outcome(Status.SKIPPED, None, f"the answer states no {' or '.join(kinds)}")
    return Outcome(Status.OK, sum(chosen) / len(chosen))


@register
class UnsupportedFacts(Evaluator):
    """Share of the answer's content words, numbers, dates, names and negations found in the
    context; the unsupported ones are listed."""

    name = "unsupported_facts"
    family = "groundedness"
    description = (
        "Share of the answer's content words, numbers, dates, name-like tokens and negations "
        "that occur (normalised) in the context; lists the unsupported ones. No model."
    )
    requires = ("actual_answer", "retrieved_context")
    metrics = (
        MetricSpec(
            "facts_support",
            "share of the answer's checkable facts that the context supports",
            threshold=0.8,
            primary=True,
        ),
        MetricSpec(
            "facts_numbers_support",
            "share of the answer's numbers and dates that the context supports",
        ),
        MetricSpec(
            "facts_names_support",
            "share of the answer's name-like tokens that the context supports",
        ),
        MetricSpec.count(
            "facts_key_unsupported_count",
            "number of distinct unsupported names, numbers, dates and negations (the facts a "
            "paraphrase keeps but a factual edit changes)",
        ),
        MetricSpec.count(
            "facts_unsupported_count",
            "number of distinct unsupported facts in the answer",
        ),
    )

    def __init__(self, sentences: str = "claims") -> None:
        self.sentences = check_sentences(sentences, "UnsupportedFacts")

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        memo: dict[tuple[str, tuple[str, ...]], CaseResult] = {}
        out = []
        for case in cases:
            key = (case.actual_answer or "", tuple(case.retrieved_context or ()))
            if key not in memo:
                memo[key] = self._score_one(case)
            out.append(memo[key])
        return out

    def _score_one(self, case: TestCase) -> CaseResult:
        kept, set_aside = scored_sentences(case, self.sentences)
        facts = facts_of_sentences(kept)
        if not facts:
            reason = skip_reason(kept, set_aside) or "the answer states no checkable facts"
            return CaseResult.skipped(self.metric_names(), reason)
        keys = context_keys(case.retrieved_context)
        flags = [fact_supported(f, keys) for f in facts]
        if any(f.kind == "negation" for f in facts):
            context = [
                (content_stems(s), is_negated(s))
                for chunk in case.retrieved_context or []
                for s in split_sentences(chunk)
            ]
            flags = [
                negation_supported(kept[f.sentence], context) if f.kind == "negation" else ok
                for f, ok in zip(facts, flags, strict=True)
            ]
        unsupported = [f for f, ok in zip(facts, flags, strict=True) if not ok]
        outcomes = {
            "facts_support": Outcome(Status.OK, sum(flags) / len(flags)),
            "facts_numbers_support": _share(facts, flags, ("number", "date")),
            "facts_names_support": _share(facts, flags, ("name",)),
            "facts_key_unsupported_count": Outcome(
                Status.OK, float(sum(1 for f in unsupported if f.kind != "word"))
            ),
            "facts_unsupported_count": Outcome(Status.OK, float(len(unsupported))),
        }
        listed = ", ".join(f"{f.text!r} ({f.kind})" for f in unsupported[:12])
        more = f" and {len(unsupported) - 12} more" if len(unsupported) > 12 else ""
        explanation = (
            f"{len(facts) - len(unsupported)}/{len(facts)} facts supported; unsupported: "
            f"{listed}{more}"
            if unsupported
            else f"all {len(facts)} facts found in the context"
        )
        details = {
            "unsupported": [{"text": f.text, "kind": f.kind} for f in unsupported],
            "n_facts": len(facts),
            "by_kind": {
                kind: [
                    sum(1 for f in facts if f.kind == kind),
                    sum(1 for f in unsupported if f.kind == kind),
                ]
                for kind in KINDS
                if any(f.kind == kind for f in facts)
            },
        }
        return with_set_aside(CaseResult(outcomes, explanation, details), set_aside)
