"""Deterministic rewrites of a fact: made false (a changed number, an inserted "not") for the "no"
yes/no questions and the wrong options of multiple-choice questions, and a short phrase of it.

Used by the compact writer (:mod:`assay.generate.compact`, where the model words the question
and the facts come from the chunk) and by the scripted dry run (:mod:`assay.generate.scripted`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_VERB = re.compile(r"\b(is|are|was|were|can|will|must|should|does|do|has|have|returns?)\b")


def phrase(fact: str, n_words: int = 6) -> str:
    """The first ``n_words`` of ``fact``, lower-cased first letter, without the final stop.

    Example:
        >>> phrase("The fee is 5 euros.", 3)
        'the fee is'
    """
    tokens = fact.rstrip(".!?").split()
    head = " ".join(tokens[:n_words])
    return head[:1].lower() + head[1:]


def false_number(fact: str, step: int = 1) -> tuple[str, str] | None:
    """``fact`` with its first number changed (by ``7 * step``) and the new number's text, or
    None when ``fact`` has no number.

    Example:
        >>> false_number("The fee is 4.50 euros."), false_number("Cards are free.")
        (('The fee is 11.5 euros.', '11.5'), None)
    """
    match = _NUMBER.search(fact)
    if match is None:
        return None
    value = f"{float(match.group(0).replace(',', '')) + 7 * step:g}"
    return f"{fact[: match.start()]}{value}{fact[match.end():]}", value


def falsified(fact: str, step: int = 1) -> str:
    """``fact`` made false: its first number changed, else "not" after its first verb, else
    prefixed with "It is not the case that" (``step`` varies the changed number).

    Example:
        >>> falsified("The limit is 5 items."), falsified("Lists are mutable.")
        ('The limit is 12 items.', 'Lists are not mutable.')
    """
    changed = false_number(fact, step)
    if changed is not None:
        return changed[0]
    negated = _VERB.sub(r"\1 not", fact, count=1)
    if negated != fact:
        return negated
    return f"It is not the case that {fact[:1].lower()}{fact[1:]}"


def distractors(first: str, facts: Sequence[str], wanted: int = 3) -> list[str]:
    """``wanted`` distinct false statements for a multiple-choice question whose answer is
    ``first``: the passage's other facts falsified, then ``first`` falsified differently. Never
    a true statement of the passage (four true options would make the question unanswerable).

    Example:
        >>> distractors("The limit is 5 items.", ["The limit is 5 items.", "Sets are unordered."])
        ['Sets are not unordered.', 'The limit is 12 items.', 'The limit is 19 items.']
    """
    out: list[str] = []
    candidates = [falsified(f) for f in facts if f != first]
    candidates += [falsified(first, step) for step in range(1, 2 * wanted + 2)]
    for number, candidate in enumerate(candidates):
        if len(out) == wanted:
            break
        if candidate in facts or candidate in out:
            candidate = f"{first.rstrip('.')} (variant {number + 1} is not stated)."
        if candidate not in facts and candidate not in out:
            out.append(candidate)
    return out


__all__ = ["distractors", "false_number", "falsified", "phrase"]
