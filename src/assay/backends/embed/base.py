"""The :class:`Embedder` protocol and small helpers shared by every embedding backend."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

#: Float type of every embedding matrix returned by a backend.
DTYPE = np.float32


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into L2-normalised float32 rows.

    ``model_id`` names the exact weights (a content hash where one is known): it keys the
    persistent cache, so two embedders with the same ``model_id`` must give the same vectors.
    """

    @property
    def model_id(self) -> str:
        """Stable identity of the model weights (used in cache keys and manifests)."""
        ...

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Return one L2-normalised float32 row per text, shape ``(len(texts), dim)``."""
        ...


@runtime_checkable
class TokenEmbedder(Embedder, Protocol):
    """An embedder that also exposes contextual token embeddings (BERTScore-style metrics)."""

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Sentence rows as :meth:`encode`, plus per text an ``(n_tokens, dim)`` float32 matrix of
        L2-normalised token embeddings (special tokens removed) from the same forward pass."""
        ...


@runtime_checkable
class TokenCounter(Protocol):
    """An embedder that knows its input limit: texts longer than ``token_limit`` tokens are cut
    by the model, so the cut part is not read (reported as a ``token_limit`` problem)."""

    @property
    def token_limit(self) -> int | None:
        """Tokens the model reads per text (special tokens included); ``None`` when unknown."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text as the model would see them (special tokens included, uncut)."""
        ...


def texts_over_limit(embedder: object, texts: Sequence[str]) -> list[str]:
    """The ``texts`` an embedder would cut (empty when it does not know its limit).

    A word-piece token covers at least one character, so only texts at least as long as the
    limit (minus the two special tokens) are tokenised: short inputs cost nothing.
    """
    if not isinstance(embedder, TokenCounter):
        return []
    limit = embedder.token_limit
    if limit is None:
        return []
    long = [t for t in dict.fromkeys(texts) if len(t) >= limit - 2]
    if not long:
        return []
    return [t for t, n in zip(long, embedder.count_tokens(long), strict=True) if n > limit]


def l2_normalise(matrix: np.ndarray) -> np.ndarray:
    """Return the rows of ``matrix`` scaled to unit length (zero rows stay zero), as float32.

    Example:
        >>> l2_normalise(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
        [[0.6000000238418579, 0.800000011920929], [0.0, 0.0]]
    """
    matrix = np.asarray(matrix, dtype=DTYPE)
    if matrix.size == 0:
        return matrix
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(DTYPE, copy=False)
