"""Sentence splitting, in one place for every evaluator.

``nupunkt`` (MIT, zero dependencies, model bundled) is used because it is correct on
abbreviations and decimals and fast, and needs no download (nltk's punkt data cannot be fetched
offline; pysbd is ~100x slower). Results are cached because the same contexts recur across cases.

nupunkt's bundled model was trained on legal and OCR text and lists hundreds of ordinary English
words as abbreviations ("free", "month", "bank"), which would keep "The account is free. Call us."
as one sentence. Those words (``data/not_abbreviations.txt``, built by
``scripts/build_sentence_exceptions.py``) are removed from a private copy of the model.
"""

from __future__ import annotations

import copy
from functools import lru_cache
from importlib.resources import files
from typing import Any


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    import nupunkt

    params = copy.deepcopy(nupunkt.load_default_model()._params)
    listed = files("assay.text").joinpath("data/not_abbreviations.txt").read_text("utf-8")
    for word in listed.split():
        params.abbrev_types.discard(word)
    return nupunkt.PunktSentenceTokenizer(params)


@lru_cache(maxsize=65536)
def _split(text: str) -> tuple[str, ...]:
    tokenizer = _tokenizer()
    out: list[str] = []
    for paragraph in text.split("\n"):
        if paragraph.strip():
            out.extend(str(s).strip() for s in tokenizer.tokenize(paragraph) if str(s).strip())
    return tuple(out)


def split_sentences(text: str | None) -> list[str]:
    """Split ``text`` into sentences; line breaks always end a sentence.

    Example:
        >>> split_sentences("Dr. Smith paid $3.50 today. He left!")
        ['Dr. Smith paid $3.50 today.', 'He left!']
        >>> split_sentences("The account is free. Call us at 5 p.m. on Monday.")
        ['The account is free.', 'Call us at 5 p.m. on Monday.']
        >>> split_sentences("")
        []
    """
    if not text or not text.strip():
        return []
    return list(_split(text))
