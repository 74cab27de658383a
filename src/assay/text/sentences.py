"""Sentence splitting, in one place for every evaluator.

``nupunkt`` (MIT, zero dependencies, model bundled) is used because it is correct on
abbreviations and decimals and fast, and needs no download (nltk's punkt data cannot be fetched
offline; pysbd is ~100x slower). Results are cached because the same contexts recur across cases.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=65536)
def _split(text: str) -> tuple[str, ...]:
    import nupunkt

    out: list[str] = []
    for paragraph in text.split("\n"):
        if paragraph.strip():
            out.extend(str(s).strip() for s in nupunkt.sent_tokenize(paragraph) if str(s).strip())
    return tuple(out)


def split_sentences(text: str | None) -> list[str]:
    """Split ``text`` into sentences; line breaks always end a sentence.

    Example:
        >>> split_sentences("Dr. Smith paid $3.50 today. He left!")
        ['Dr. Smith paid $3.50 today.', 'He left!']
        >>> split_sentences("")
        []
    """
    if not text or not text.strip():
        return []
    return list(_split(text))
