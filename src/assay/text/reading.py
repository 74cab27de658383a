"""What assay's text rules read in a text, worked out once per text in the process.

The same texts recur across a run: every answer sentence meets every retrieved passage, a
knowledge base's passages recur across cases in other combinations, and the NLI heads and
``hallucination_score`` read the same sentences. :func:`reading` keeps one
:class:`TextReading` per distinct text (bounded, least recently used first out), and each of
its fields is computed on first use only. The NLI features and the hallucination signals
both read through it (design note 0060); single pure functions that other modules call in hot
loops (``porter_stem``, ``word_key``, ``split_sentences``) memoise themselves.
"""

from __future__ import annotations

from functools import cached_property, lru_cache

from assay.text.alignment import detail_keys
from assay.text.facts import Fact, content_stems, context_keys, extract_facts, is_negated, word_key

#: Distinct texts kept at most (a reading is a few small sets; ~1 KB each).
MAX_TEXTS = 32768


class TextReading:
    """One text as the text rules read it; each field is computed when first asked for.

    Example:
        >>> r = TextReading("Anna did not pay 50 euros.")
        >>> r.negated, "num:50" in r.keys, [f.text for f in r.facts][:2]
        (True, True, ['Anna', 'not'])
    """

    def __init__(self, text: str) -> None:
        self.text = text

    @cached_property
    def keys(self) -> frozenset[str]:
        """Its fact keys, as a context (:func:`assay.text.facts.context_keys`)."""
        return context_keys([self.text])

    @cached_property
    def stems(self) -> frozenset[str]:
        """Its content-word stems."""
        return content_stems(self.text)

    @cached_property
    def negated(self) -> bool:
        """Whether it is negated."""
        return is_negated(self.text)

    @cached_property
    def facts(self) -> tuple[Fact, ...]:
        """Its facts, as a claim (:func:`assay.text.facts.extract_facts`)."""
        return tuple(extract_facts(self.text))

    @cached_property
    def details(self) -> frozenset[str]:
        """Its alignment detail keys (:func:`assay.text.alignment.detail_keys`)."""
        return frozenset(detail_keys(self.text))


@lru_cache(maxsize=MAX_TEXTS)
def reading(text: str) -> TextReading:
    """The process's reading of ``text`` (the same object while it stays in the memo).

    Example:
        >>> reading("The fee is 5 euros.") is reading("The fee is 5 euros.")
        True
    """
    return TextReading(text)


def clear_readings() -> None:
    """Forget every reading and word key (benchmarks time a cold start with it; tests that
    change a rule call it)."""
    reading.cache_clear()
    word_key.cache_clear()
