"""Conflicting figures: two sentences that say the same thing with one different number.

"The monthly fee is 5 euros." and "The monthly fee is 9 euros." contradict each other, and an
answer that says both misinforms the customer whichever is right. The NLI heads read sentence
vectors in which a changed number barely moves, so they miss it (P(contradiction) 0.08 with the
default head; design note 0052). This rule reads the figures directly, with the number and
month normalisation of :mod:`assay.text.facts`:

- each sentence becomes a *frame* — its words in order, lower-cased and stemmed, with every
  figure (a number, a number word, a month) replaced by a slot — and its figures;
- two sentences conflict when their frames are equal and **exactly one** figure differs.

A frame needs two content words, so labels and counters ("Turn 1", "Turn 2") are not statements.
Equal frames mean the same words around the figures, units and tense included ("was" and "is"
differ, so "The fee was 5 euros. The fee is 9 euros." does not conflict). Two or more differing
figures usually state two conditions ("In 2023 the fee was 5 euros." / "In 2024 …"), so they do
not count. A few discourse words that do not change what is stated ("however", "actually",
"also", "but", "and", "so", "indeed", "in fact") are left out of the frame, so "However, the fee
is 9 euros." still conflicts with "The fee is 5 euros.". What the rule cannot see is the same
figure stated in other words ("You pay 9 euros a month."): the NLI model's part.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from assay.text.facts import STOPWORDS, TOKEN, normalise_number, word_key

#: Words left out of a frame: they join or stress a statement without changing it.
DISCOURSE = frozenset("however actually also but and so indeed".split())  # noqa: SIM905

SLOT = "#"
#: Content words a frame needs to be a statement rather than a label ("Turn 1", "Page 2").
MIN_CONTENT_WORDS = 2


@dataclass(frozen=True)
class FigureConflict:
    """Two sentences stating the same thing with a different figure: the two figures as written."""

    first: str
    second: str


@lru_cache(maxsize=65536)
def statement_frame(sentence: str) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The sentence's frame (words, a slot per figure) and its figures ``(key, as written)``.

    Example:
        >>> frame, figures = statement_frame("However, the fee is 5,000 euros in May.")
        >>> frame
        ('the', 'fee', 'is', '#', 'euro', 'in', '#')
        >>> figures
        (('num:5000', '5,000'), ('month:5', 'May'))
    """
    frame: list[str] = []
    figures: list[tuple[str, str]] = []
    previous = ""
    for match in TOKEN.finditer(sentence):
        token = match.group(0)
        if match.group("num"):
            figures.append((f"num:{normalise_number(token)}", token))
            frame.append(SLOT)
            previous = ""
            continue
        lower = token.lower()
        if lower == "fact" and previous == "in":  # "in fact"
            frame.pop()
            previous = lower
            continue
        if lower in DISCOURSE:
            previous = lower
            continue
        kind, key = word_key(lower)
        if kind in ("number", "date"):
            figures.append((key, token))
            frame.append(SLOT)
        else:
            frame.append(lower if kind == "negation" else key)
        previous = lower
    return tuple(frame), tuple(figures)


def conflicting_figures(first: str, second: str) -> FigureConflict | None:
    """The one figure on which two otherwise identical statements differ, or None.

    Example:
        >>> conflicting_figures("The monthly fee is 5 euros.", "The monthly fee is 9 euros.")
        FigureConflict(first='5', second='9')
        >>> conflicting_figures("Transfers take two days.", "Actually, transfers take 3 days.")
        FigureConflict(first='two', second='3')
        >>> conflicting_figures("In 2023 the fee was 5 euros.", "In 2024 the fee was 9 euros.")
        >>> conflicting_figures("The fee is 5 euros.", "The card costs 9 euros.")
        >>> conflicting_figures("The fee is 5 euros.", "The fee is five euros.")
        >>> conflicting_figures("Turn 1", "Turn 2")
    """
    frame_a, figures_a = statement_frame(first)
    frame_b, figures_b = statement_frame(second)
    if frame_a != frame_b or not figures_a:
        return None
    if sum(word not in STOPWORDS and word != SLOT for word in frame_a) < MIN_CONTENT_WORDS:
        return None  # a label or a counter ("Turn 1", "Step 2"), not a statement
    differing = [(a, b) for a, b in zip(figures_a, figures_b, strict=True) if a[0] != b[0]]
    if len(differing) != 1:
        return None
    (_, written_a), (_, written_b) = differing[0]
    return FigureConflict(written_a, written_b)
