"""The attention-pooling feature layer of the token text heads (numpy, no model needed)."""

from __future__ import annotations

import numpy as np
import pytest

from assay.backends.heads.token_pool import BLOCK, TokenPooler
from assay.errors import BackendError


def _pooler(seed: int = 0, dim: int = 6, units: int = 5, queries: int = 3) -> TokenPooler:
    rng = np.random.default_rng(seed)
    return TokenPooler.from_arrays({
        "proj_W": rng.normal(size=(dim, units)), "proj_b": rng.normal(size=units) * 0.1,
        "query_W": rng.normal(size=(units, queries)), "query_b": rng.normal(size=queries)})


def _one_text(pooler: TokenPooler, vector: np.ndarray, tokens: np.ndarray) -> np.ndarray:
    """The definition, text by text: project, softmax per query over tokens, pool; max."""
    if len(tokens) == 0:
        tokens = np.zeros((1, pooler.proj_w.shape[0]))
    h = np.maximum(tokens @ pooler.proj_w + pooler.proj_b, 0.0)
    logits = h @ pooler.query_w + pooler.query_b
    weights = np.exp(logits - logits.max(axis=0))
    weights /= weights.sum(axis=0)
    pooled = [weights[:, k] @ h for k in range(weights.shape[1])]
    return np.concatenate([vector, h.max(axis=0), *pooled])


def test_segment_pooling_equals_the_per_text_definition() -> None:
    pooler = _pooler()
    rng = np.random.default_rng(1)
    lengths = [3, 1, 0, 7, 2] * (BLOCK // 2)  # more than one block, empty texts among them
    tokens = [rng.normal(size=(n, 6)).astype(np.float16) for n in lengths]
    vectors = rng.normal(size=(len(tokens), 6))
    rows = pooler.features(vectors, tokens)
    assert rows.shape == (len(tokens), pooler.n_features(6)) == (len(tokens), 6 + 5 * 4)
    expected = np.stack([_one_text(pooler, v, t.astype(np.float32))
                         for v, t in zip(vectors, tokens, strict=True)])
    np.testing.assert_allclose(rows, expected, rtol=1e-5, atol=1e-5)


def test_a_text_s_row_does_not_depend_on_its_batch() -> None:
    pooler = _pooler(2)
    rng = np.random.default_rng(3)
    tokens = [rng.normal(size=(n, 6)) for n in (4, 9, 1)]
    vectors = rng.normal(size=(3, 6))
    alone = pooler.features(vectors[1:2], tokens[1:2])
    np.testing.assert_allclose(pooler.features(vectors, tokens)[1:2], alone, rtol=1e-6)
    assert pooler.features(np.zeros((0, 6)), []).shape == (0, pooler.n_features(6))


def test_missing_or_mismatched_arrays_are_refused() -> None:
    with pytest.raises(BackendError, match="lacks the arrays"):
        TokenPooler.from_arrays({"proj_W": np.zeros((4, 3))})
    with pytest.raises(BackendError, match="queries expect 2 units"):
        TokenPooler.from_arrays({"proj_W": np.zeros((4, 3)), "proj_b": np.zeros(3),
                                 "query_W": np.zeros((2, 2)), "query_b": np.zeros(2)})
