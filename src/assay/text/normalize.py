"""Answer normalisation: SQuAD's (lower-case, drop punctuation, articles and extra spaces) and
the validation framework's (lower-case, drop punctuation; articles are words like any other)."""

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


def framework_tokens(text: str) -> list[str]:
    """Tokens as the validation framework's token F1 counts them: lower-cased words without
    punctuation; articles kept (SQuAD drops them).

    Example:
        >>> framework_tokens("The  Annual Fee!")
        ['the', 'annual', 'fee']
    """
    return text.lower().translate(_PUNCT).split()
