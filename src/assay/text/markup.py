"""Markdown in answers: headings and list markers are layout, not content.

LLM chatbots format answers as Markdown: a heading ("## Overview", "**Summary**"), then a
numbered or bulleted list. Read as text, a heading is a sentence no context supports and a list
marker "1." is a number the context does not hold, so a faithful answer in a list looked like a
hallucination (design note 0051). The sentence splitter already ends a sentence at every line
break; this module tells a heading line from a claim and strips the marker and emphasis from a
claim. Patterns are anchored and bounded (answers are untrusted input).
"""

from __future__ import annotations

import re

_LIST_MARKER = re.compile(r"^\s{0,6}(?:[-*+\u2022\u2023\u25e6\u25aa]|\(?\d{1,3}[.)])(?:\s+|$)")
_ATX_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_EMPHASIS = re.compile(r"\*\*|__")
_LABEL = re.compile(r"^[^\W\d_][^\d.!?:]{0,40}:$")  # "Exemptions:", "Monthly fees:"
#: Words a label line has at most ("Key points:", "Monthly fees:").
LABEL_WORDS = 3


def plain(sentence: str) -> str:
    """``sentence`` without a leading list marker and without bold markers.

    Example:
        >>> plain("1. The fee is **5 euros**.")
        'The fee is 5 euros.'
        >>> plain("- Cards arrive by post.")
        'Cards arrive by post.'
        >>> plain("2.5 percent is the rate.")
        '2.5 percent is the rate.'
    """
    return _EMPHASIS.sub("", _LIST_MARKER.sub("", sentence, count=1)).strip()


def is_heading(sentence: str) -> bool:
    """Whether ``sentence`` is layout: a Markdown heading, a bold label without a sentence's
    final punctuation, a short label ending with a colon, or a bare list marker.

    Example:
        >>> [is_heading(s) for s in ("## Overview", "**Summary**", "Exemptions:", "2.")]
        [True, True, True, True]
        >>> [is_heading(s) for s in ("**The fee is 5 euros.**", "The fee is 5 euros.",
        ...                          "Here are the details:")]
        [False, False, False]
    """
    if not sentence.strip():
        return False
    if _ATX_HEADING.match(sentence):
        return True
    text = plain(sentence)
    if not text:
        return True  # a bare list marker
    bolded = sentence.strip()
    if (bolded.startswith(("**", "__")) and bolded.rstrip(":").endswith(("**", "__"))
            and not text.rstrip(":").endswith((".", "!", "?"))):
        return True
    return bool(_LABEL.match(text)) and len(text.split()) <= LABEL_WORDS
