"""The :class:`TextClassifier` protocol shared by the toxicity and bias backends.

A classifier maps texts to independent scores in [0, 1], one column per category (e.g. the six
detoxify categories, or ``profanity``), and says which texts it had to truncate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np


@dataclass(frozen=True)
class ClassScores:
    """Scores of a batch of texts.

    Attributes:
        categories: name of each column.
        scores: ``(n, k)`` values in [0, 1].
        n_tokens: per text, its length in model tokens when known (else -1).
        max_tokens: the model's input limit in tokens (0 when it has none).
        overall: per text, one combined score when the backend defines one (an ensemble's
            weighted mean); otherwise :meth:`overall_scores` is the max over categories.
        read_as: per text, the text the model read when the backend rewrote it (the toxicity
            head undoes spelling variants such as ``k1ll``); None when it read the texts given.
        unread: per text, True when the model found nothing in it that it can read (no word it
            knows: only emoji or symbols), so its scores are not a judgement of the text; None
            when the backend cannot tell (it reads every text).
    """

    categories: tuple[str, ...]
    scores: np.ndarray
    n_tokens: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    max_tokens: int = 0
    overall: np.ndarray | None = None
    read_as: tuple[str, ...] | None = None
    unread: np.ndarray | None = None

    @property
    def truncated(self) -> np.ndarray:
        """Whether each text was longer than the model's input limit (and so truncated).

        Example:
            >>> ClassScores(("x",), np.zeros((2, 1)), np.array([3, 700]), 512).truncated.tolist()
            [False, True]
        """
        if self.max_tokens <= 0 or len(self.n_tokens) != len(self.scores):
            return np.zeros(len(self.scores), dtype=bool)
        return np.asarray(self.n_tokens > self.max_tokens)

    def overall_scores(self) -> np.ndarray:
        """The combined score of each text: ``overall`` when set, else the max over categories.

        Example:
            >>> ClassScores(("a", "b"), np.array([[0.2, 0.7]])).overall_scores().tolist()
            [0.7]
        """
        if self.overall is not None:
            return np.asarray(self.overall, dtype=np.float64)
        if self.scores.size == 0:
            return np.zeros(len(self.scores))
        return np.asarray(self.scores.max(axis=1), dtype=np.float64)

    def unread_rows(self) -> np.ndarray:
        """Whether each text went unread (all False when the backend cannot tell).

        Example:
            >>> ClassScores(("a",), np.zeros((2, 1)), unread=np.array([False, True])
            ...             ).unread_rows().tolist()
            [False, True]
            >>> ClassScores(("a",), np.zeros((2, 1))).unread_rows().tolist()
            [False, False]
        """
        if self.unread is None:
            return np.zeros(len(self.scores), dtype=bool)
        return np.asarray(self.unread, dtype=bool)

    def column(self, category: str) -> np.ndarray:
        """The scores of one category."""
        return np.asarray(self.scores[:, self.categories.index(category)], dtype=np.float64)


@runtime_checkable
class TextClassifier(Protocol):
    """Anything that scores texts per category."""

    @property
    def model_id(self) -> str:
        """Stable identity of the model (for manifests)."""
        ...

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """Scores of ``texts``."""
        ...
