"""Unsupported facts: which of the answer's checkable facts the context does not contain.

A transparent, model-free hallucination signal. The answer's content words, numbers, dates,
name-like tokens and negations are extracted and normalised (lower case, Porter stems, digits
for number words, ``5,000`` = ``5000``, month names to numbers); a fact is *supported* when its
normalised form occurs anywhere in the retrieved context. A negation is checked locally: it is
supported when the context sentence sharing the most content words with the answer sentence
that holds it is negated too (a "not" elsewhere in the context says nothing about this claim).
The unsupported facts are listed as the explanation. Sentence similarity cannot see a changed
number or name; this metric can, but it cannot see paraphrases of unsupported claims: use both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator, MetricSpec, Outcome, Status
from assay.evaluators.registry import register
from assay.text.porter import porter_stem
from assay.text.sentences import split_sentences

_TOKEN = re.compile(r"(?P<num>\d+(?:[.,]\d+)*)|(?P<word>[^\W\d_]+(?:['’][^\W\d_]+)*)", re.UNICODE)
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in into is
    it its itself just me more most my myself of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves may might must shall
    yes us one's it's i'm i've i'd you're we're they're he's she's that's there's let's s t
    per via upon onto within among however therefore thus whether either neither yet
    """.split()  # noqa: SIM905
)
NEGATIONS = frozenset("not no never none nobody nothing nowhere nor without cannot n't".split())  # noqa: SIM905
_NUMBER_WORDS = {
    w: str(i)
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "  # noqa: SIM905
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70"}
_NUMBER_WORDS |= {"eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000"}
_MONTHS = {
    name: str(i)
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
KINDS = ("number", "date", "name", "negation", "word")


@dataclass(frozen=True)
class Fact:
    """One checkable token of the answer: its text, kind and normalised key."""

    text: str
    kind: str
    key: str
    sentence: int = 0


def normalise_number(text: str) -> str:
    """Canonical digits: thousands separators dropped, trailing decimal zeros removed.

    Example:
        >>> normalise_number("5,000"), normalise_number("2.50"), normalise_number("3.0")
        ('5000', '2.5', '3')
    """
    if re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d+)?", text):
        text = text.replace(",", "")
    text = text.replace(",", ".") if text.count(",") == 1 and "." not in text else text
    if re.fullmatch(r"\d+\.\d+", text):
        text = text.rstrip("0").rstrip(".")
    return text.lstrip("0") or "0"


def _word_key(lower: str) -> tuple[str, str]:
    if lower in _MONTHS:
        return "date", f"month:{_MONTHS[lower]}"
    if lower in _NUMBER_WORDS:
        return "number", f"num:{_NUMBER_WORDS[lower]}"
    if lower in NEGATIONS or lower.endswith(("n't", "n’t")):
        return "negation", "neg"
    return "word", porter_stem(lower.replace("’", "'"))


def extract_facts(text: str | None) -> list[Fact]:
    """The checkable facts of ``text``, in order (duplicates kept once).

    Example:
        >>> [(f.text, f.kind) for f in extract_facts("In May, Anna paid 5,000. Not twice.")][:4]
        [('May', 'date'), ('Anna', 'name'), ('paid', 'word'), ('5,000', 'number')]
    """
    facts: dict[str, Fact] = {}
    for index, sentence in enumerate(split_sentences(text)):
        for position, match in enumerate(_TOKEN.finditer(sentence)):
            token = match.group(0)
            if match.group("num"):
                fact = Fact(token, "number", f"num:{normalise_number(token)}", index)
            else:
                lower = token.lower()
                kind, key = _word_key(lower)
                if kind == "word":
                    if lower in STOPWORDS or len(lower) < 2:
                        continue
                    if position > 0 and token[0].isupper():
                        kind = "name"
                        key = f"name:{lower}"
                fact = Fact(token, kind, key, index)
            dedup = {"word": f"w:{fact.key}", "negation": f"neg@{index}"}.get(fact.kind, fact.key)
            facts.setdefault(dedup, fact)
    return list(facts.values())


def context_keys(chunks: Sequence[str] | None) -> frozenset[str]:
    """Every normalised key the context supports (names match case-insensitively).

    Example:
        >>> keys = context_keys(["Anna paid 5,000 euros in March."])
        >>> {"euro", "month:3", "name:anna", "num:5000"} <= keys
        True
    """
    keys: set[str] = set()
    for chunk in chunks or []:
        for match in _TOKEN.finditer(chunk):
            token = match.group(0)
            if match.group("num"):
                keys.add(f"num:{normalise_number(token)}")
                continue
            lower = token.lower()
            kind, key = _word_key(lower)
            keys.add(key)
            keys.add(f"name:{lower}")
            if kind != "word":
                keys.add(porter_stem(lower))
    return frozenset(keys)


def content_stems(sentence: str) -> frozenset[str]:
    """Porter stems of the non-stopword words of a sentence.

    Example:
        >>> sorted(content_stems("The fees were not waived."))
        ['fee', 'not', 'waiv']
    """
    return frozenset(
        porter_stem(m.group(0).lower())
        for m in _TOKEN.finditer(sentence)
        if m.group("word") and m.group(0).lower() not in STOPWORDS
    )


def is_negated(sentence: str) -> bool:
    """Whether a sentence holds a negation word."""
    return any(
        _word_key(m.group(0).lower())[0] == "negation"
        for m in _TOKEN.finditer(sentence)
        if m.group("word")
    )


def negation_supported(
    answer_sentence: str, context: Sequence[tuple[frozenset[str], bool]]
) -> bool:
    """Whether the context sentence most similar to ``answer_sentence`` (Jaccard of content
    stems; the first one on ties) is negated too.

    Example:
        >>> texts = ["The fee is not waived.", "Cards are free."]
        >>> ctx = [(content_stems(s), is_negated(s)) for s in texts]
        >>> negation_supported("Fees are never waived.", ctx)
        True
        >>> negation_supported("Cards are not free.", ctx)
        False
    """
    stems = content_stems(answer_sentence)
    best, best_score = None, -1.0
    for candidate, negated in context:
        union = len(stems | candidate)
        score = len(stems & candidate) / union if union else 0.0
        if score > best_score:
            best, best_score = negated, score
    return bool(best)


def fact_supported(fact: Fact, keys: frozenset[str]) -> bool:
    if fact.kind == "name":
        return fact.key in keys or porter_stem(fact.text.lower()) in keys
    return fact.key in keys


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
        MetricSpec(
            "facts_key_unsupported_count",
            "number of distinct unsupported names, numbers, dates and negations (the facts a "
            "paraphrase keeps but a factual edit changes)",
            higher_is_better=False,
            range=(0.0, float("inf")),
        ),
        MetricSpec(
            "facts_unsupported_count",
            "number of distinct unsupported facts in the answer",
            higher_is_better=False,
            range=(0.0, float("inf")),
        ),
    )

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
        facts = extract_facts(case.actual_answer)
        if not facts:
            return CaseResult.skipped(self.metric_names(), "the answer states no checkable facts")
        keys = context_keys(case.retrieved_context)
        flags = [fact_supported(f, keys) for f in facts]
        if any(f.kind == "negation" for f in facts):
            answer = split_sentences(case.actual_answer)
            context = [
                (content_stems(s), is_negated(s))
                for chunk in case.retrieved_context or []
                for s in split_sentences(chunk)
            ]
            flags = [
                negation_supported(answer[f.sentence], context) if f.kind == "negation" else ok
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
        return CaseResult(outcomes, explanation, details)
