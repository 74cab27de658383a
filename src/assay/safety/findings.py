"""The :class:`Finding` value shared by every detector, and the masking of found values.

A finding keeps the raw value it found (``text``) because masking and deduplication need it, but
the raw value never appears in its ``repr`` or in :meth:`Finding.to_dict`, so logging or
serialising a finding cannot leak what it found.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

#: Characters kept visible at each end of a long masked value.
_KEEP = 4
#: At most this many mask characters are written (long keys are shortened, not spelled out).
_MAX_STARS = 16


def mask_value(value: str) -> str:
    """Mask a sensitive value, keeping only enough of it to recognise it.

    Values of 16 characters or more keep 4 characters at each end (``4111********1111``); values
    of 8 to 15 keep one at each end; shorter ones are masked entirely. At most 16 ``*`` are
    written, so a masked value never reveals the length of a long key. Line breaks are masked too.

    Example:
        >>> mask_value("4111111111111111")
        '4111********1111'
        >>> mask_value("123-45-6789")
        '1*********9'
        >>> mask_value("abc")
        '***'
        >>> mask_value("Aantje Mourik")
        'A***********k'
    """
    n = len(value)
    if n >= 16:
        head, tail = value[:_KEEP], value[-_KEEP:]
    elif n >= 8:
        head, tail = value[:1], value[-1:]
    else:
        return "*" * n
    stars = "*" * min(n - len(head) - len(tail), _MAX_STARS)
    return _one_line(head) + stars + _one_line(tail)


def _one_line(text: str) -> str:
    return "".join("*" if ch in "\r\n\t" else ch for ch in text)


@dataclass(frozen=True, order=True)
class Finding:
    """One sensitive value found in a text.

    Attributes:
        start: Offset of the first character in the scanned text.
        end: Offset just past the last character.
        kind: Entity type, e.g. ``CREDIT_CARD`` or ``AWS_ACCESS_KEY_ID``.
        category: ``"pii"`` or ``"secret"``.
        text: The raw value; never shown by ``repr`` and never serialised.
    """

    start: int
    end: int
    kind: str
    category: str
    text: str = field(repr=False, compare=False)

    @property
    def masked(self) -> str:
        """The value masked with :func:`mask_value`."""
        return mask_value(self.text)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable description with the value masked.

        Example:
            >>> Finding(5, 21, "CREDIT_CARD", "pii", "4111111111111111").to_dict()["masked"]
            '4111********1111'
        """
        return {
            "type": self.kind,
            "category": self.category,
            "start": self.start,
            "end": self.end,
            "masked": self.masked,
        }


def resolve_overlaps(findings: Iterable[Finding]) -> list[Finding]:
    """Keep the longest of overlapping findings (the earliest on ties), sorted by position.

    Example:
        >>> a = Finding(0, 10, "A", "pii", "x" * 10)
        >>> b = Finding(2, 5, "B", "pii", "xxx")
        >>> [f.kind for f in resolve_overlaps([b, a])]
        ['A']
    """
    ordered = sorted(findings, key=lambda f: (-(f.end - f.start), f.start))
    kept: list[Finding] = []
    for candidate in ordered:
        if all(candidate.end <= k.start or candidate.start >= k.end for k in kept):
            kept.append(candidate)
    return sorted(kept)


def count_by_kind(findings: Iterable[Finding]) -> dict[str, int]:
    """Number of findings per entity type, sorted by type.

    Example:
        >>> count_by_kind([Finding(0, 3, "B", "pii", "abc"), Finding(4, 7, "A", "pii", "def")])
        {'A': 1, 'B': 1}
    """
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.kind] = counts.get(finding.kind, 0) + 1
    return dict(sorted(counts.items()))
