"""The :class:`LanguageModel` protocol and the scoring shared by every causal-LM backend.

A backend tokenises and scores one window of token ids; everything else is here: the sliding
window for texts longer than the model's window, and the split of a prompt + continuation into
the tokens to score (GPTScore). Log-probabilities are natural logs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from assay.params import check


@runtime_checkable
class LanguageModel(Protocol):
    """A causal language model that can score token windows."""

    @property
    def model_id(self) -> str:
        """Stable identity of the weights (for manifests)."""
        ...

    @property
    def max_length(self) -> int:
        """Most tokens one window may hold."""
        ...

    @property
    def bos_id(self) -> int | None:
        """Token prepended so that the first text token is predicted (None: the first token of
        a text without a prompt is not scored)."""
        ...

    def tokenize(self, text: str) -> list[int]:
        """Token ids of ``text`` (no special tokens)."""
        ...

    def window_logprobs(self, ids: Sequence[int]) -> np.ndarray:
        """``log p(ids[i] | ids[:i])`` for ``i = 1 .. len(ids) - 1`` within one window."""
        ...


@dataclass(frozen=True)
class TokenScores:
    """Log-probabilities of the scored tokens of a text.

    Attributes:
        ids: the scored token ids.
        logprobs: natural-log probability of each scored token.
        windows: forward passes used.
    """

    ids: tuple[int, ...]
    logprobs: np.ndarray
    windows: int

    @property
    def mean_nll(self) -> float:
        """Mean negative log-likelihood per token."""
        return float(-self.logprobs.mean())

    @property
    def perplexity(self) -> float:
        """``exp(mean NLL)``.

        Example:
            >>> TokenScores((1, 2), np.log([0.5, 0.5]), 1).perplexity
            2.0
        """
        return float(np.exp(self.mean_nll))


def sliding_logprobs(
    score_window: Callable[[Sequence[int]], np.ndarray],
    ids: Sequence[int],
    max_length: int,
    stride: int,
) -> tuple[np.ndarray, int]:
    """Log-probabilities of ``ids[1:]`` with windows of at most ``max_length`` tokens.

    A window starts every ``stride`` tokens; each token is scored once, in the first window
    where it is not the first token (so it keeps at least ``max_length - stride`` tokens of
    context, as in the Hugging Face perplexity guide). Returns the values and the window count.

    Example:
        >>> toy = lambda w: np.array([-float(len(w))] * (len(w) - 1))  # reveals window length
        >>> values, n = sliding_logprobs(toy, list(range(7)), max_length=4, stride=2)
        >>> values.tolist(), n
        ([-4.0, -4.0, -4.0, -4.0, -4.0, -3.0], 3)
    """
    check(1 <= stride < max_length, "stride", "sliding_logprobs",
          f"an integer in [1, max_length) = [1, {max_length})", stride)
    n = len(ids)
    out = np.full(max(n - 1, 0), np.nan)
    if n <= 1:
        return out, 0
    if n <= max_length:
        return np.asarray(score_window(ids), dtype=np.float64), 1
    done = 1  # ids[:done] are scored (ids[0] never is)
    windows = 0
    begin = 0
    while done < n:
        end = min(begin + max_length, n)
        values = np.asarray(score_window(ids[begin:end]), dtype=np.float64)
        windows += 1
        first = max(done, begin + 1)
        out[first - 1 : end - 1] = values[first - begin - 1 :]
        done = end
        begin += stride
    return out, windows


def score_text(
    model: LanguageModel, text: str, prompt: str = "", stride: int | None = None
) -> TokenScores:
    """Log-probabilities of the tokens of ``text`` after ``prompt`` (and the BOS token).

    The prompt and text are tokenised together when the prompt's tokens are a prefix of the
    joint tokenisation (else separately), so the scored tokens are exactly those of ``text``.
    """
    prefix = model.tokenize(prompt) if prompt else []
    joint = model.tokenize(prompt + text) if prompt else model.tokenize(text)
    target = joint[len(prefix) :] if joint[: len(prefix)] == prefix else model.tokenize(text)
    head = ([model.bos_id] if model.bos_id is not None else []) + prefix
    ids = head + target
    window = model.max_length
    values, windows = sliding_logprobs(
        model.window_logprobs, ids, window, stride or max(1, window // 2)
    )
    # values[k] is log p(ids[k + 1]); the target starts at position len(head)
    skip = len(head) - 1 if head else 0
    kept = tuple(target) if head else tuple(target[1:])  # no head: target[0] is unscored
    return TokenScores(kept, values[skip:], windows)
