"""SQuAD-style answer normalisation (lower-case, drop punctuation, articles and extra spaces)."""

from __future__ import annotations

import re
import string

_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_squad(text: str) -> str:
    """Normalise an answer exactly as the official SQuAD v1.1 evaluation script does.

    Example:
        >>> normalize_squad("The  Annual Fee!")
        'annual fee'
    """
    text = text.lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def squad_tokens(text: str) -> list[str]:
    """Tokens of the SQuAD-normalised text."""
    return normalize_squad(text).split()
