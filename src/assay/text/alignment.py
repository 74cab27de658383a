"""Where in the context a claim comes from, and which of its details come from somewhere else.

A summary that moves a detail keeps every word of the source: "the CEO resigned in 2019; the
board hired a new CFO in 2021" becomes "the CEO resigned in 2021". Each word is in the context,
so a context-wide check (``unsupported_facts``, token precision) passes it. This module aligns
the claim with its best *window* of the context (two consecutive sentences of one passage) and
reports the claim's words that the context holds but that window does not: a detail taken from
elsewhere in the source. Words are weighted by rarity in the context (IDF over its sentences),
so a common word the claim shares with many sentences weighs little and a name or number
weighs much.

Why hand-written: the alignment needs only the stems and number keys that
:mod:`assay.text.facts` already defines, and it runs per answer sentence on every case, so it
stays set arithmetic (no model, no library that would normalise words differently).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from assay.text.facts import STOPWORDS, TOKEN, normalise_number
from assay.text.idf import dfr_idf
from assay.text.porter import porter_stem

#: Consecutive context sentences (of one passage) a claim is aligned with.
WINDOW = 2
#: Words outside the aligned window that another window holds together, at least: a sentence
#: condensing a second passage, not a moved detail.
CONDENSED = 2


def detail_keys(sentence: str) -> dict[str, str]:
    """The sentence's content-word stems and normalised numbers, each with its first surface
    form (stop words and one-letter words left out).

    Example:
        >>> detail_keys("The CEO resigned in 2,019 and the CEO left.")
        {'ceo': 'CEO', 'resign': 'resigned', '#2019': '2,019', 'left': 'left'}
    """
    return {key: surface for key, (surface, _) in _details(sentence).items()}


def _details(sentence: str) -> dict[str, tuple[str, int]]:
    """:func:`detail_keys` with a detail number for each key: the words of one multi-word name
    (capitalised words separated only by spaces) share one number.

    Example:
        >>> list(_details("Then Tom Reyes met Ana in 2021.").values())
        [('Tom', 0), ('Reyes', 0), ('met', 1), ('Ana', 2), ('2021', 4)]
    """
    keys: dict[str, tuple[str, int]] = {}
    detail, previous_end, previous_name = -1, -1, False
    for match in TOKEN.finditer(sentence):
        token = match.group(0)
        name = token[:1].isupper()
        if not (name and previous_name and sentence[previous_end:match.start()].isspace()):
            detail += 1
        previous_end, previous_name = match.end(), name
        if match.group("num"):
            keys.setdefault(f"#{normalise_number(token)}", (token, detail))
            continue
        lower = token.lower()
        if lower not in STOPWORDS and len(lower) > 1:
            keys.setdefault(porter_stem(lower.replace("’", "'")), (token, detail))
    return keys


@dataclass(frozen=True)
class ContextIndex:
    """A context as the alignment reads it: the detail keys of every window and their rarity.

    Build it once per context with :meth:`of` and reuse it for every claim.
    """

    windows: tuple[frozenset[str], ...]
    idf: dict[str, float]
    unseen_idf: float
    #: The context sentences of each window, as a ``(start, stop)`` range.
    spans: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, sentences: Sequence[str], owners: Sequence[int] | None = None,
           details: Sequence[frozenset[str]] | None = None) -> ContextIndex:
        """Index context sentences (``owners``: the passage of each, so that a window never
        spans two passages; default: one passage; ``details``: their :func:`detail_keys`, when
        the caller has already read them).

        Example:
            >>> index = ContextIndex.of(["Anna joined in 2019.", "Bob left in 2021."])
            >>> len(index.windows), round(index.idf["anna"], 3)
            (1, 0.693)
        """
        keys = list(details) if details is not None else [frozenset(detail_keys(s))
                                                          for s in sentences]
        owner = list(owners) if owners is not None else [0] * len(keys)
        windows, spans = [], []
        for start in range(len(keys)):
            span = [k for k, o in zip(keys[start:start + WINDOW], owner[start:start + WINDOW],
                                      strict=True) if o == owner[start]]
            if start and len(span) < WINDOW and owner[start - 1] == owner[start]:
                continue  # the tail of a passage, already inside the window before it
            windows.append(frozenset().union(*span))
            spans.append((start, start + len(span)))
        counts = Counter(k for sentence in keys for k in sentence)
        n = len(keys)
        idf = {k: dfr_idf(n, c) for k, c in counts.items()}
        return cls(tuple(windows), idf, dfr_idf(n, 0), tuple(spans))

    def best_window(self, claim: str) -> tuple[int, int]:
        """The ``(start, stop)`` range of the context sentences the claim aligns with: the
        window holding the largest IDF-weighted part of its details (the first on ties; the
        first window when the claim has none). ``(0, 0)`` for an empty context.

        Example:
            >>> index = ContextIndex.of(["The CEO resigned in 2019.", "Sales fell.",
            ...                          "A new CFO was hired in 2021."])
            >>> index.best_window("A CFO was hired.")
            (1, 3)
        """
        if not self.windows:
            return (0, 0)
        return self.spans[self._best(detail_keys(claim))]

    def _best(self, keys: dict[str, str]) -> int:
        """Index of the window holding the largest IDF-weighted part of ``keys``."""
        weights = [sum(self.idf.get(k, self.unseen_idf) for k in keys if k in window)
                   for window in self.windows]
        return max(range(len(weights)), key=weights.__getitem__)

    def moved_details(self, claim: str, aligned_by: str | None = None) -> tuple[float, list[str]]:
        """The claim's share (IDF-weighted) of details found in the context but not in its best
        window, and those details' surface forms.

        The best window is the one that holds the largest IDF-weighted part of the claim, or of
        ``aligned_by`` when given (a short claim with the question it answers: design note
        0062), the first on ties. Words absent from the whole context count in the total but
        are not "moved" (other signals see them).

        Example:
            >>> index = ContextIndex.of(["The CEO resigned in 2019.", "Sales fell.",
            ...                          "A new CFO was hired in 2021."])
            >>> share, moved = index.moved_details("The CEO resigned in 2021.")
            >>> round(share, 3), moved
            (0.333, ['2021'])
            >>> index.moved_details("The CEO resigned in 2019.")
            (0.0, [])
            >>> index.moved_details("2021.", aligned_by="When did the CEO resign? 2021.")
            (1.0, ['2021'])
        """
        details = _details(claim)
        keys = {key: surface for key, (surface, _) in details.items()}
        if not keys or not self.windows:
            return 0.0, []
        weight = {k: self.idf.get(k, self.unseen_idf) for k in keys}
        best = self.windows[self._best(keys if aligned_by is None else detail_keys(aligned_by))]
        moved = [k for k in keys if k in self.idf and k not in best]
        while moved:  # another window holding two details or more: a condensed second passage
            other = max(self.windows, key=lambda w: len({details[k][1] for k in moved if k in w}))
            if len({details[k][1] for k in moved if k in other}) < CONDENSED:
                break
            moved = [k for k in moved if k not in other]
        share = sum(weight[k] for k in moved) / sum(weight.values())
        return share, [keys[k] for k in moved]
