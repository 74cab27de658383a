"""Attention pooling over frozen MiniLM token vectors: the features of the token text heads.

A sentence vector is the *mean* of a text's token vectors, so a word that changes what a
sentence means ("X are not human" against "X are not vermin") moves it little, and a linear head
on it reads the words, not how they are used. The contextual token vectors of the same MiniLM
forward pass carry more: this layer learns which tokens to read.

1. *Project*: every unit token vector ``x_t`` becomes ``h_t = ReLU(x_t W_p + b_p)``.
2. *Attend*: ``K`` learnt queries each weigh the tokens, ``a_k = softmax_t(h_t q_k + c_k)``,
   and read ``Σ_t a_kt h_t`` (one pooled vector per query: what a query found in the text).
3. *Max*: the largest value of each projected unit over the tokens (one salient token counts
   even in a long sentence).

The feature row is ``[sentence vector, max, pooled_1 … pooled_K]``; the dense classifier of the
:class:`~assay.backends.heads.store.Head` (a hidden ReLU layer and a linear last layer) reads it.
Token matrices come from the one MiniLM pass that also gives the sentence vector (the embedding
cache keeps them as float16 when an evaluator asks for tokens), so the head adds a few matrix
products and no second encoder pass.

Why hand-written numpy and not torch: scoring needs three products per batch and segment sums;
torch would be a heavy import for them, and an inert ``.npz`` (no pickle) keeps the head
verifiable by sha256. ``scripts/heads/toxicity_token.py`` trains the same computation in torch
and checks parity with this one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from assay.backends.heads.store import required_arrays
from assay.errors import BackendError

#: Name of this feature set (recorded in ``head.json``).
FEATURE_SET = "minilm-token-pool-v1"
#: Arrays of the feature layer, stored in the head as ``x_<name>``.
ARRAYS = ("proj_W", "proj_b", "query_W", "query_b")
#: Texts pooled per block (bounds the ``tokens x queries x units`` intermediate).
BLOCK = 256


@dataclass(frozen=True)
class TokenPooler:
    """The learnt feature layer (projection and attention queries) of a token text head.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> pooler = TokenPooler.from_arrays({
        ...     "proj_W": rng.normal(size=(4, 3)), "proj_b": np.zeros(3),
        ...     "query_W": rng.normal(size=(3, 2)), "query_b": np.zeros(2)})
        >>> rows = pooler.features(np.eye(2, 4), [rng.normal(size=(5, 4)), np.zeros((0, 4))])
        >>> rows.shape, pooler.n_features(4)
        ((2, 13), 13)
    """

    proj_w: np.ndarray
    proj_b: np.ndarray
    query_w: np.ndarray
    query_b: np.ndarray

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, np.ndarray]) -> TokenPooler:
        """Build from the head's extra arrays (:data:`ARRAYS`); :class:`BackendError` if any is
        missing or the shapes disagree."""
        found = required_arrays(arrays, ARRAYS, "the token head")
        if found["query_W"].shape[0] != found["proj_W"].shape[1]:
            raise BackendError(f"the token head's queries expect {found['query_W'].shape[0]} "
                               f"units, its projection gives {found['proj_W'].shape[1]}")
        return cls(*(found[name] for name in ARRAYS))

    def n_features(self, dim: int) -> int:
        """Length of a feature row, for sentence vectors of ``dim``."""
        units, queries = self.query_w.shape
        return dim + units * (1 + queries)

    def features(self, vectors: np.ndarray, tokens: Sequence[np.ndarray]) -> np.ndarray:
        """``(n, n_features)`` float32 rows: each text's sentence vector, then its max-pooled and
        attention-pooled projected tokens (a text without tokens reads as one zero token).

        Args:
            vectors: ``(n, dim)`` sentence vectors.
            tokens: per text, its ``(n_tokens, dim)`` unit token vectors (same pass).
        """
        vectors = np.asarray(vectors, dtype=np.float32)
        dim = self.proj_w.shape[0]
        out = np.empty((len(tokens), self.n_features(dim)), dtype=np.float32)
        if not len(tokens):
            return out
        out[:, :dim] = vectors
        for start in range(0, len(tokens), BLOCK):
            block = [np.asarray(m, dtype=np.float32).reshape(-1, dim) for m in
                     tokens[start : start + BLOCK]]
            block = [m if len(m) else np.zeros((1, dim), np.float32) for m in block]
            out[start : start + len(block), dim:] = self._pool(block)
        return out

    def _pool(self, block: list[np.ndarray]) -> np.ndarray:
        """Max and attention pooling of a block of texts, with segment reductions over the
        concatenated tokens (one product per layer, not one per text)."""
        starts = np.concatenate([[0], np.cumsum([len(m) for m in block])[:-1]])
        lengths = np.array([len(m) for m in block])
        h = np.maximum(np.concatenate(block) @ self.proj_w + self.proj_b, 0.0)
        logits = h @ self.query_w + self.query_b
        segment = np.repeat(np.arange(len(block)), lengths)
        logits -= np.maximum.reduceat(logits, starts, axis=0)[segment]
        weights = np.exp(logits)
        weights /= np.add.reduceat(weights, starts, axis=0)[segment]
        pooled = np.add.reduceat((weights[:, :, None] * h[:, None, :]).reshape(len(h), -1),
                                 starts, axis=0)
        return np.concatenate([np.maximum.reduceat(h, starts, axis=0), pooled], axis=1)
