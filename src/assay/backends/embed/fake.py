"""A deterministic, dependency-free fake embedder for tests (spec ``"fake"``).

Texts are embedded as signed, hashed bags of words and character trigrams (the "hashing trick"),
so texts sharing words get a high cosine similarity and unrelated texts a low one — enough to test
the logic of every embedding metric without a model. Token embeddings are the same features per
word, so BERTScore-style metrics can be tested too.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from assay.backends.embed.base import DTYPE, l2_normalise
from assay.text.tokens import words


class FakeEmbedder:
    """Hashed word + character-trigram features, L2-normalised (no model, no randomness).

    Args:
        dim: number of hashed dimensions.

    Example:
        >>> fake = FakeEmbedder()
        >>> a, b, c = fake.encode(["The fee is 12 euros.", "The fee is 12 EUR.", "Cats purr."])
        >>> bool(a @ b > a @ c)
        True
    """

    #: Cheaper to compute than to read back: :func:`~assay.backends.embed.get_embedder` gives
    #: it no on-disk cache.
    cache_on_disk = False

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim
        self.calls = 0  # number of encode calls, for tests of deduplication and caching
        self.texts_encoded = 0

    @property
    def model_id(self) -> str:
        """Identity of the fake "weights" (changes when the feature scheme or ``dim`` changes)."""
        return f"fake-hashed-ngrams-v1-d{self.dim}"

    def _word_vector(self, word: str, out: np.ndarray) -> None:
        features = [f"w:{word}"] + [f"c:{g}" for g in _trigrams(word)]
        for i, feature in enumerate(features):
            h = zlib.crc32(feature.encode("utf-8"))
            sign = 1.0 if (h >> 31) & 1 else -1.0
            out[h % self.dim] += sign * (1.0 if i == 0 else 0.5)

    def _tokens(self, text: str) -> np.ndarray:
        toks = words(text)
        matrix = np.zeros((len(toks), self.dim), dtype=np.float64)
        for row, word in zip(matrix, toks, strict=True):
            self._word_vector(word, row)
        return matrix

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One unit row per text (a zero row for a text without words)."""
        return self.encode_with_tokens(texts)[0]

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Sentence rows plus per text the unit vectors of its words."""
        self.calls += 1
        self.texts_encoded += len(texts)
        rows = np.zeros((len(texts), self.dim), dtype=DTYPE)
        tokens: list[np.ndarray] = []
        for i, text in enumerate(texts):
            matrix = self._tokens(text)
            if len(matrix):
                rows[i] = matrix.sum(axis=0)
            tokens.append(l2_normalise(matrix) if len(matrix) else np.zeros((0, self.dim), DTYPE))
        return l2_normalise(rows), tokens

    def __repr__(self) -> str:
        return f"FakeEmbedder(dim={self.dim})"


def _trigrams(word: str) -> list[str]:
    padded = f"#{word}#"
    return [padded[i : i + 3] for i in range(len(padded) - 2)]


class TableEmbedder:
    """An embedder that looks texts up in a table of given vectors (for hand-checked tests).

    Unknown texts raise ``KeyError``; it gives no token embeddings.

    Example:
        >>> table = TableEmbedder({"a": [1.0, 0.0], "b": [0.0, 2.0]})
        >>> table.encode(["b"]).tolist()
        [[0.0, 1.0]]
    """

    def __init__(self, table: dict[str, Sequence[float]]) -> None:
        self.table = {k: l2_normalise(np.asarray([v], dtype=DTYPE))[0] for k, v in table.items()}
        self.texts_encoded = 0

    @property
    def model_id(self) -> str:
        """Identity derived from the table's content."""
        digest = zlib.crc32(repr(sorted((k, v.tolist()) for k, v in self.table.items())).encode())
        return f"table-{digest:08x}"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """The table rows of ``texts``."""
        self.texts_encoded += len(texts)
        return np.stack([self.table[t] for t in texts])

    def __repr__(self) -> str:
        return f"TableEmbedder({len(self.table)} texts)"
