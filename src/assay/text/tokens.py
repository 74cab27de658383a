"""Word tokenisation for statistics that count words."""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+(?:[-'’]\w+)*", re.UNICODE)


def words(text: str | None, *, lower: bool = True) -> list[str]:
    """Return the words of ``text`` (letters, digits, inner hyphens and apostrophes).

    Example:
        >>> words("The fee's 2.5% - non-refundable!")
        ['the', "fee's", '2', '5', 'non-refundable']
    """
    if not text:
        return []
    found = _WORD.findall(text)
    return [w.lower() for w in found] if lower else found
