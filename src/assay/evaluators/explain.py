"""How evaluators show text and numbers in explanations and details: shortened quotes and
JSON-friendly rounded floats (one place, so every evaluator quotes alike)."""

from __future__ import annotations

from collections.abc import Iterable

#: Characters of a sentence quoted in an explanation, at most.
QUOTE_CHARS = 160


def quote(text: str) -> str:
    """A sentence shortened for explanations.

    Example:
        >>> quote("Short."), len(quote("x" * 500))
        ('Short.', 160)
    """
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"


def rounded(values: Iterable[float], digits: int = 4) -> list[float]:
    """JSON-friendly rounded floats.

    Example:
        >>> rounded([0.123456, 1])
        [0.1235, 1.0]
    """
    return [round(float(v), digits) for v in values]
