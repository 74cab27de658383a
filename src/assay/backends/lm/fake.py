"""A deterministic fake causal language model for the perplexity and GPTScore tests.

Tokens are words (hashed to ids); the probability of a token is a Laplace-smoothed count of the
same token earlier in the window, so repeated or prompted words are likely and new words are not.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from assay.text.tokens import words


class FakeLM:
    """A "cache" language model over words.

    Example:
        >>> lm = FakeLM()
        >>> ids = [lm.bos_id, *lm.tokenize("fee fee fee")]
        >>> lm.window_logprobs(ids).round(3).tolist()
        [-6.909, -6.217, -5.812]
    """

    def __init__(self, vocab: int = 1000, max_length: int = 64) -> None:
        self.vocab = vocab
        self._max_length = max_length
        self.windows = 0

    @property
    def model_id(self) -> str:
        """Identity of the scheme."""
        return f"fake-cache-lm-v1-{self.vocab}"

    @property
    def max_length(self) -> int:
        """Window length."""
        return self._max_length

    @property
    def bos_id(self) -> int | None:
        """Token 0."""
        return 0

    def tokenize(self, text: str) -> list[int]:
        """Hashed word ids in ``[1, vocab)``."""
        return [1 + zlib.crc32(w.encode()) % (self.vocab - 1) for w in words(text)]

    def window_logprobs(self, ids: Sequence[int]) -> np.ndarray:
        """``log((count of the token before it in the window + 1) / (position + vocab))``."""
        self.windows += 1
        out = []
        for i in range(1, len(ids)):
            seen = sum(1 for t in ids[:i] if t == ids[i])
            out.append(np.log((seen + 1) / (i + self.vocab)))
        return np.array(out, dtype=np.float64)

    def __repr__(self) -> str:
        return "FakeLM()"
