"""Which answer sentences are claims: questions, courtesy and framing lines assert nothing.

A chatbot wraps its answer in sentences that state no fact: "Thank you for your question.",
"Is there anything else I can help you with?", "I hope this helps!". Scored as claims, each of
them is unsupported by any context, so a groundedness metric that reads the least supported
sentence flags a faithful answer for its politeness (a copied sentence plus "Is there anything
else I can help you with?" scored ``hallucination_score`` 0.71, above the same sentence with a
wrong number, 0.50). RAGAS and FActScore avoid this by having an LLM extract statements; a
judge-free evaluator needs a rule, and this module is that rule, written to set aside only what
certainly asserts nothing:

- a **question** (the sentence ends with "?"), except a rhetorical one that wraps a claim ("Did
  you know that ...?", "Have you heard ...?") or a tag question ("The fee is waived, isn't it?");
- a **courtesy** formula: the whole sentence (case, punctuation and emoticons aside) is a
  greeting, thanks, good wishes, an apology for inconvenience, an offer of further help or an
  acknowledgement ("Sure!", "Great question.") or a reaction that evaluates nothing checkable
  ("Wow!", "That sounds fun."; "Yes." and "No." answer a question, so they stay claims);
- a **framing** line that only announces what follows ("Here are the details:", "In short:");
- a **heading**: Markdown layout ("## Overview", "**Summary**", "Exemptions:"; see
  :mod:`assay.text.markup`, which also strips list markers and bold from the claims).

A claim is read without the discourse particles that open it ("Oh, it opened in 1889.", "Well,
the fee is waived."): they react to the user and state nothing to check. "Yes," and "No," stay:
they answer the user's question, and that answer is a claim.

A sentence with a digit is never courtesy nor framing ("Call us on 0800 123 456 if you have
questions." states a number to check).

Every pattern is anchored to the whole sentence, with bounded repetition only, so matching
stays linear in the sentence length (answers are untrusted input).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assay.text.markup import is_heading, plain
from assay.text.sentences import split_sentences

#: How an evaluator picks the answer sentences it scores.
SENTENCE_MODES = ("all", "claims")

QUESTION = "question"
COURTESY = "courtesy"
FRAMING = "framing"
HEADING = "heading"
#: The kinds of sentence that are not claims.
KINDS = (QUESTION, COURTESY, FRAMING, HEADING)
#: How the explanation names each kind, singular.
_KIND_NAMES = {QUESTION: "question", COURTESY: "courtesy formula", FRAMING: "framing line",
               HEADING: "heading"}

_RHETORICAL = re.compile(
    r"^(?:did|do|does) (?:you|anyone) know\b|^(?:have|had) you (?:ever )?heard\b"
)
_TAG = re.compile(
    r",\s*(?:(?:is|are|was|were|do|does|did|can|could|will|would|has|have|had|should)n't"
    r"\s+(?:it|they|there|he|she|you|we|i|that|this)|right|correct|true)\s*$"
)
_TRAILING = re.compile(r"[\s\W_]+$")  # punctuation, emoticons and emoji after the last word
_EMOTICON = re.compile(r"\s*[:;=]-?[)(dp\]\[/\\|]+$")
_FREE = r"[^.!?\d;:,]"  # free words inside a formula: no digit, no second clause
_OFFER = (
    r"(?:please )?(?:let (?:me|us) know|(?:just )?ask(?: me| us)?(?: anytime| any time)?"
    r"|(?:feel free|do not hesitate|don't hesitate) to"
    r" (?:ask|reach out|get in touch|contact (?:us|me))"
    r"|(?:i'm|i am|we're|we are|i'd be|i would be|we'd be) (?:always )?(?:happy|glad|here)"
    r" to help(?: you)?(?: with (?:anything|that|this|any other questions?)(?: else)?)?)"
)
_QUESTIONS = (
    r"(?:if you have|should you have|for) (?:any )?(?:other |more |further |additional )?"
    r"questions?(?: or concerns)?"
)
#: An acknowledgement or a reaction word: it evaluates nothing checkable.
_REACTION = (
    r"(?:sure|certainly|of course|absolutely|okay|ok|alright|all right|great|good|excellent"
    r"|no problem|got it|i see|understood|sure thing|oh|ah|aw|ooh|wow|whoa|cool|nice|neat"
    r"|awesome|amazing|interesting|haha|hahaha|lol|hmm|yay)"
)
_COURTESY = re.compile(
    "^(?:" + "|".join((
        # greetings
        r"(?:hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening|day))(?: there)?"
        r"(?:,? [a-z'-]{1,30})?",
        r"dear(?: [a-z.'-]{1,20}){1,4}",
        # thanks
        r"(?:many )?(?:thanks|thank you|thankyou)(?: (?:so|very) much)?(?: again)?"
        rf"(?: for {_FREE}{{1,80}})?",
        r"(?:you're|you are)(?: very| most)? welcome",
        # good wishes and sign-offs
        r"(?:i |we )?hope (?:this|that|it|my answer|the above)(?: information)?"
        r" (?:helps|helped|is helpful|was helpful|answers your question|clarifies things)",
        r"have a (?:nice|good|great|lovely|wonderful|pleasant) (?:day|evening|weekend|one)",
        r"(?:best|kind|warm) regards(?:,? [a-z.'-]{1,20}){0,3}",
        r"take care|good ?bye|bye|cheers",
        # apologies for inconvenience
        r"(?:i'm|i am|we're|we are) (?:so |very |really |truly )?sorry"
        r"(?: (?:for|about) (?:the|any) (?:inconvenience|confusion|trouble|delay)(?: caused)?"
        r"| to hear (?:that|this))?",
        r"(?:we )?apologi[sz]e for (?:the|any) (?:inconvenience|confusion|trouble|delay)",
        # offers of further help
        rf"{_QUESTIONS}(?:,? {_OFFER})?",
        rf"{_OFFER}(?: if (?:you have|you need|there is|there's) {_FREE}{{1,60}})?",
        r"(?:it's |it is |it was )?(?:my|a|our) pleasure|happy to help|glad to help|with pleasure",
        # acknowledgements and reactions, alone or a few together ("Oh nice!", "Ah, got it.")
        rf"{_REACTION}(?:,? {_REACTION}){{0,3}}",
        r"(?:that's a |that is a |what a )?(?:great|good|excellent|interesting) question",
        # reactions that evaluate nothing checkable
        r"(?:that's|that is|how) (?:so |really )?(?:cool|nice|neat|awesome|great|amazing"
        r"|interesting|good to hear)",
        r"that sounds (?:so |really )?(?:great|fun|interesting|nice|cool|awesome|good|lovely)",
        r"i (?:understand|see)(?: your (?:concern|frustration|question|point))?",
    )) + ")$"
)


#: Discourse particles opening a claim ("Oh, it opened in 1889.", "Well, the fee is waived."):
#: they react to the user and state nothing the context can support, but the NLI head reads
#: them as part of the claim (a verbatim claim's P(entailment) 0.93, after "Oh," 0.77, with
#: the default head). "Yes," and "No," are not among them: they answer the user's question,
#: and whether that answer is right is a claim ("No" stays a negation the context must share;
#: reading the demo's yes / no answers without them lowered `hallucination_score`'s AUROC on
#: its human labels from 0.827 to 0.814).
_PARTICLES = re.compile(
    r"^(?:(?:oh|ah|well|sure|okay|ok|so|hmm|haha|wow|right|certainly|absolutely|of course)"
    r"\s*[,!]\s*){1,3}(?=\w)",
    re.IGNORECASE,
)

_FRAMING = re.compile(
    "^(?:" + "|".join((
        r"here(?:'s| is| are) (?:what (?:i found|i know|you need to know|you should know)"
        r"|(?:the|some) (?:details|information|answer|key points|steps|options|main points)"
        r"|(?:a|the) (?:summary|quick summary|breakdown|short answer|quick answer)"
        r"|how (?:it|this) works)(?: (?:on|about|for) (?:that|this|your question))?",
        r"in (?:short|summary|brief)|to (?:summari[sz]e|sum up)|(?:see|details) below"
        r"|as follows",
        r"(?:i can|i'll|i will|let me) (?:tell you|explain)"
        r"(?: (?:more |a bit |a little )?about (?:it|that|this|them))?",
    )) + ")$"
)


@dataclass(frozen=True)
class SetAside:
    """An answer sentence that is not scored as a claim, and why (``question``, ``courtesy``,
    ``framing`` or ``heading``)."""

    sentence: str
    kind: str


def _normalised(sentence: str) -> str:
    text = " ".join(sentence.replace("\u2019", "'").lower().split())
    return _TRAILING.sub("", _EMOTICON.sub("", text))


def without_particles(claim: str) -> str:
    """``claim`` without the discourse particles that open it (at most three), upper-cased
    where it now starts.

    Example:
        >>> without_particles("Oh, it's 330 metres tall."), without_particles("Oh well, no.")
        ("It's 330 metres tall.", 'Oh well, no.')
        >>> without_particles("Sure, the fee is waived."), without_particles("No, it is not.")
        ('The fee is waived.', 'No, it is not.')
    """
    match = _PARTICLES.match(claim)
    if match is None:
        return claim
    rest = claim[match.end():]
    return rest[:1].upper() + rest[1:]


#: A whole answer that is a number and nothing else ("3.", "1987."): the reply to a question
#: asking for one, which would otherwise read as a bare list marker.
_BARE_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?[.)]?")


def not_a_claim(sentence: str) -> str | None:
    """``"heading"``, ``"question"``, ``"courtesy"`` or ``"framing"`` when ``sentence``
    asserts nothing to check, else None (Markdown list markers and bold are read through).

    Example:
        >>> not_a_claim("Is there anything else I can help you with?")
        'question'
        >>> not_a_claim("Did you know that the fee is waived for students?") is None
        True
        >>> not_a_claim("Thank you for contacting Acme Bank! :)")
        'courtesy'
        >>> not_a_claim("Thank you for waiting 5 days.") is None
        True
        >>> not_a_claim("Sure, happy to help!"), not_a_claim("Sure, I can tell you about it.")
        ('courtesy', 'framing')
        >>> not_a_claim("The fee is 5 euros.") is None
        True
        >>> not_a_claim("## Overview"), not_a_claim("- **Is it free?**")
        ('heading', 'question')
    """
    if is_heading(sentence):
        return HEADING
    sentence = plain(sentence)
    stripped = sentence.strip().rstrip("\"')]}»” ")
    text = _normalised(without_particles(sentence))
    if stripped.endswith("?"):
        if _RHETORICAL.search(text) or _TAG.search(text):
            return None
        return QUESTION
    if text and not any(c.isdigit() for c in text):
        if _COURTESY.match(text):
            return COURTESY
        if _FRAMING.match(text):
            return FRAMING
    return None


def answer_sentences(text: str | None, mode: str = "all") -> tuple[list[str], list[SetAside]]:
    """The sentences of ``text`` an evaluator scores under ``mode``, and those it set aside.

    ``"all"`` keeps every sentence as split; ``"claims"`` sets aside headings, questions,
    courtesy and framing, and reads each claim without its list marker, bold and opening
    discourse particles ("Oh, ...": :func:`without_particles`).

    Example:
        >>> answer_sentences("Hello! The fee is 5 euros. Anything else?", "claims")
        (['The fee is 5 euros.'], [SetAside(sentence='Hello!', kind='courtesy'), \
SetAside(sentence='Anything else?', kind='question')])
        >>> answer_sentences("Oh nice! Well, it opened in 1889.", "claims")[0]
        ['It opened in 1889.']
        >>> answer_sentences("## Fees\\n1. The fee is **5 euros**.", "claims")[0]
        ['The fee is 5 euros.']
        >>> answer_sentences("Hello! The fee is 5 euros.")[0]
        ['Hello!', 'The fee is 5 euros.']
        >>> answer_sentences("3.", "claims"), answer_sentences("1.\\n2.", "claims")[0]
        ((['3.'], []), [])
    """
    sentences = split_sentences(text) if text else []
    if mode == "all":
        return sentences, []
    if len(sentences) == 1 and _BARE_NUMBER.fullmatch(sentences[0].strip()):
        return sentences, []  # a whole answer "3." is a reply, not a list marker
    kept: list[str] = []
    set_aside: list[SetAside] = []
    for sentence in sentences:
        kind = not_a_claim(sentence)
        if kind is None:
            kept.append(without_particles(plain(sentence)))
        else:
            set_aside.append(SetAside(sentence, kind))
    return kept, set_aside


def no_claim_reason(set_aside: Sequence[SetAside]) -> str:
    """Why a case with sentences but no claim is not scored.

    Example:
        >>> no_claim_reason([SetAside("Hi!", "courtesy"), SetAside("How can I help?", "question")])
        'the answer makes no claim to check: 1 question, 1 courtesy formula'
    """
    return "the answer makes no claim to check: " + set_aside_summary(set_aside)


def set_aside_summary(set_aside: Sequence[SetAside]) -> str:
    """``"2 questions, 1 courtesy formula"``: the set-aside sentences counted by kind.

    Example:
        >>> set_aside_summary([SetAside("Hi!", "courtesy"), SetAside("Why?", "question"),
        ...                    SetAside("Bye!", "courtesy"), SetAside("In short:", "framing")])
        '1 question, 2 courtesy formulas, 1 framing line'
    """
    parts = []
    for kind, name in _KIND_NAMES.items():
        count = sum(s.kind == kind for s in set_aside)
        if count:
            parts.append(f"{count} {name}" + ("s" if count > 1 else ""))
    return ", ".join(parts)
