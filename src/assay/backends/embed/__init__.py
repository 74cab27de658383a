"""Sentence embedding backends: a Protocol, a sentence-transformers implementation, a cache.

Nothing heavy is imported here: sentence-transformers and torch load on the first encode.

Example:
    >>> from assay.backends.embed import get_embedder
    >>> vectors = get_embedder("fake").encode(["The fee is 12 euros.", "Twelve euros fee."])
    >>> vectors.shape, vectors.dtype.name
    ((2, 256), 'float32')
"""

from assay.backends.embed.base import Embedder, TokenEmbedder, l2_normalise
from assay.backends.embed.cache import CachedEmbedder, EmbeddingCache, default_cache_dir
from assay.backends.embed.factory import DEFAULT_SPEC, get_embedder

__all__ = [
    "DEFAULT_SPEC",
    "CachedEmbedder",
    "Embedder",
    "EmbeddingCache",
    "TokenEmbedder",
    "default_cache_dir",
    "get_embedder",
    "l2_normalise",
]
