"""Synthetic detail edits of supported claims: the unsupported examples NLI data lacks.

In NLI data an unsupported hypothesis mostly adds *new content* (neutral) or says the opposite
in new words; a hallucinating summary or answer more often keeps the source's wording and
changes *one detail*: a number, a name swapped for another one from the source, a negation, two
roles exchanged, a word replaced by another word of the source, or a detail moved in from
another part of the document (:func:`move_detail`). These edits are applied to the
entailed hypotheses of the NLI data (never to any validation set of assay), so every edited claim
keeps its premise: the edit is the only reason it is unsupported. Seeded and deterministic.
Each function returns the edited text, or None when the edit does not apply to this claim.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from assay.text.facts import STOPWORDS

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.,]\d+)*")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_AUX = re.compile(r"\b(is|are|was|were|can|will|has|have|had|does|do|did|should|could|would|must)"
                  r"\b(?! not\b)", re.IGNORECASE)
_NEGATION = re.compile(r"\s+(not|never)\b|n't\b", re.IGNORECASE)
# A noun phrase's head, roughly: a lower-case word right after a determiner and right before a
# function word or punctuation ("the man hugs" no, "the man ." / "a woman in" yes).
_DETERMINED = re.compile(r"\b(?:[Tt]he|[Aa]n?|[Hh]is|[Hh]er|[Tt]heir)\s+([a-z]{3,})"
                         r"(?=\s*[.,;:!?]|\s*$|\s+(?:in|on|at|with|and|is|are|was|were|has|to|of|"
                         r"from|for|by|who|that)\b)")
_NUMBER_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _names(text: str) -> list[str]:
    """Capitalised words after a text's first word (name-like tokens, as ``assay.text.facts``
    reads them).

    Example:
        >>> _names("Then Anna met Bob.")
        ['Anna', 'Bob']
    """
    return [w for w in _WORD.findall(text)[1:] if w.istitle() and w.isalpha()
            and w.lower() not in STOPWORDS]


def _content(text: str) -> list[str]:
    return [w for w in _WORD.findall(text) if w.lower() not in STOPWORDS and w.isalpha()
            and w.islower() and len(w) > 3]


def change_number(premise: str, claim: str, rng: np.random.Generator) -> str | None:
    """Another number: one of the premise's when it has a different one, else a nearby value.

    Example:
        >>> change_number("It cost 5 dollars in 1990.", "It cost 5 dollars.",
        ...               np.random.default_rng(0))
        'It cost 1990 dollars.'
    """
    numbers = list(_NUMBER.finditer(claim))
    words = [w for w in _NUMBER_WORDS if re.search(rf"\b{w}\b", claim)]
    if numbers:
        target = numbers[int(rng.integers(len(numbers)))]
        others = sorted({n for n in _NUMBER.findall(premise) if n != target.group(0)})
        if others:
            new = others[int(rng.integers(len(others)))]
        else:
            value = float(target.group(0).replace(",", ""))
            new = str(int(value + rng.choice([1, 2, 3, 10]))) if value.is_integer() else \
                f"{value * 2:g}"
        return claim[: target.start()] + new + claim[target.end() :]
    if words:
        old = words[int(rng.integers(len(words)))]
        new = _NUMBER_WORDS[(_NUMBER_WORDS.index(old) + int(rng.integers(1, 4))) % 9]
        return re.sub(rf"\b{old}\b", new, claim, count=1)
    return None


def swap_name(premise: str, claim: str, rng: np.random.Generator) -> str | None:
    """A name of the claim replaced by another name of the premise.

    Example:
        >>> swap_name("Anna met Bob.", "Then Anna left.", np.random.default_rng(0))
        'Then Bob left.'
    """
    mine = _names(claim)
    others = sorted(set(_names(premise)) - set(_WORD.findall(claim)))
    if not mine or not others:
        return None
    old = mine[int(rng.integers(len(mine)))]
    return re.sub(rf"\b{re.escape(old)}\b", others[int(rng.integers(len(others)))], claim, count=1)


def flip_negation(premise: str, claim: str, rng: np.random.Generator) -> str | None:
    """A negation removed, or "not" added after the first auxiliary verb.

    Example:
        >>> flip_negation("", "The shop is open.", np.random.default_rng(0))
        'The shop is not open.'
        >>> flip_negation("", "He didn't pay.", np.random.default_rng(0))
        'He did pay.'
    """
    if _NEGATION.search(claim):
        return _NEGATION.sub("", claim, count=1)
    match = _AUX.search(claim)
    if match is None:
        return None
    return claim[: match.end()] + " not" + claim[match.end() :]


def swap_roles(premise: str, claim: str, rng: np.random.Generator) -> str | None:
    """Two nouns exchanged ("the man is hugging a woman" -> "the woman is hugging a man").

    Example:
        >>> swap_roles("", "The dog is chasing the cat.", np.random.default_rng(0))
        'The cat is chasing the dog.'
    """
    nouns = [m for m in _DETERMINED.finditer(claim) if m.group(1) not in STOPWORDS]
    distinct = {m.group(1) for m in nouns}
    if len(distinct) < 2:
        return None
    first = nouns[0]
    second = next(m for m in nouns[1:] if m.group(1) != first.group(1))
    a, b = (first.start(1), first.end(1)), (second.start(1), second.end(1))
    return (claim[: a[0]] + claim[b[0] : b[1]] + claim[a[1] : b[0]] + claim[a[0] : a[1]]
            + claim[b[1] :])


def replace_word(premise: str, claim: str, rng: np.random.Generator) -> str | None:
    """A content word replaced by another content word of the premise with the same ending
    (a rough part-of-speech match), which the claim does not hold.

    Example:
        >>> replace_word("Sales declined and costs increased.", "Sales declined sharply.",
        ...              np.random.default_rng(0))
        'Sales increased sharply.'
    """
    mine = _content(claim)
    pool = sorted(set(_content(premise)) - set(mine))
    pairs = [(old, new) for old in mine for new in pool if new[-2:] == old[-2:]
             and new[:4] != old[:4]]
    if not pairs:
        return None
    old, new = pairs[int(rng.integers(len(pairs)))]
    return re.sub(rf"\b{re.escape(old)}\b", new, claim, count=1)


def move_detail(elsewhere: str, claim: str, rng: np.random.Generator) -> str | None:
    """A name, number or content word of the claim replaced by one taken from *another* part of
    the document (``elsewhere``, not the claim's own premise): every word of the edited claim is
    still in the document, but one now sits in the wrong place.

    Example:
        >>> move_detail("Costs increased in 2021.", "Sales declined in 2019.",
        ...             np.random.default_rng(0))
        'Sales increased in 2019.'
    """
    moves: list[str] = []
    name = swap_name(elsewhere, claim, rng)
    if name is not None:
        moves.append(name)
    if _NUMBER.search(elsewhere):
        number = change_number(elsewhere, claim, rng)
        if number is not None:
            moves.append(number)
    word = replace_word(elsewhere, claim, rng)
    if word is not None:
        moves.append(word)
    return moves[int(rng.integers(len(moves)))] if moves else None


EDITS: dict[str, Callable[[str, str, np.random.Generator], str | None]] = {
    "number": change_number,
    "name": swap_name,
    "negation": flip_negation,
    "roles": swap_roles,
    "word": replace_word,
}


def detail_edits(
    premise: str, claim: str, rng: np.random.Generator, per_claim: int = 2
) -> list[tuple[str, str]]:
    """Up to ``per_claim`` ``(kind, edited claim)`` of different kinds, chosen at random among
    the edits that apply and change the text.

    Example:
        >>> edits = detail_edits("Bob paid 5 euros to Carl.", "Then Bob paid 5 euros.",
        ...                      np.random.default_rng(0))
        >>> sorted(kind for kind, _ in edits), all("Bob paid 5" not in text for _, text in edits)
        (['name', 'number'], True)
    """
    applicable = []
    for kind, edit in EDITS.items():
        edited = edit(premise, claim, rng)
        if edited is not None and edited.strip() != claim.strip():
            applicable.append((kind, edited))
    order = rng.permutation(len(applicable))[:per_claim]
    return [applicable[int(i)] for i in sorted(order)]


#: Quantity and order words and what replaces each (a meaning change that keeps the topic).
QUANTITIES = {
    "all": "some", "every": "no", "some": "no", "none": "all", "many": "few", "few": "many",
    "most": "few", "more": "less", "less": "more", "fewer": "more", "always": "never",
    "never": "always", "before": "after", "after": "before", "above": "below",
    "below": "above", "higher": "lower", "lower": "higher", "both": "neither",
    "first": "last", "last": "first", "early": "late", "late": "early",
}


def change_quantity(premise: str, claim: str, rng: np.random.Generator) -> str | None:
    """A quantity or order word replaced by one that changes the claim's meaning ("all" ->
    "some", "before" -> "after"): function words that no lexical check reads.

    Example:
        >>> change_quantity("", "All the boys left before noon.", np.random.default_rng(0))
        'All the boys left after noon.'
    """
    found = [m for m in _WORD.finditer(claim) if m.group(0).lower() in QUANTITIES]
    if not found:
        return None
    match = found[int(rng.integers(len(found)))]
    old = match.group(0)
    new = QUANTITIES[old.lower()]
    new = new.capitalize() if old[:1].isupper() else new
    return claim[: match.start()] + new + claim[match.end() :]


def surface_forms(texts: list[str]) -> dict[str, str]:
    """Each Porter stem of the lower-case words of ``texts`` with its most frequent surface
    form (ties: the alphabetically first), so an antonym stem can be written as a word.

    Example:
        >>> surface_forms(["Sales increased.", "It increased; costs decrease."])["increas"]
        'increased'
    """
    from collections import Counter

    from assay.text.porter import porter_stem

    counts = Counter(w for t in texts for w in _WORD.findall(t) if w.islower() and w.isalpha())
    best: dict[str, tuple[int, str]] = {}
    for word, count in counts.items():
        stem = porter_stem(word)
        if stem not in best or (-count, word) < (-best[stem][0], best[stem][1]):
            best[stem] = (count, word)
    return {stem: word for stem, (_, word) in best.items()}


def swap_antonym(
    premise: str, claim: str, rng: np.random.Generator, surfaces: dict[str, str]
) -> str | None:
    """A content word replaced by a WordNet antonym (``assay.text.facts.antonyms``) written as
    ``surfaces`` has it ("increased" -> "decreased", "open" -> "closed").

    Example:
        >>> swap_antonym("", "Sales increased.", np.random.default_rng(0),
        ...              {"decreas": "decreased"})
        'Sales decreased.'
    """
    from assay.text.facts import antonyms
    from assay.text.porter import porter_stem

    options = [(m, surfaces[a]) for m in _WORD.finditer(claim) if m.group(0).isalpha()
               and m.group(0).islower()
               for a in sorted(antonyms(porter_stem(m.group(0)))) if a in surfaces]
    if not options:
        return None
    match, new = options[int(rng.integers(len(options)))]
    return claim[: match.start()] + new + claim[match.end() :]
