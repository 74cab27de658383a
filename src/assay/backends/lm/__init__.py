"""Causal language-model backends (perplexity, GPTScore): llama-cpp (GGUF) and transformers.

Nothing heavy is imported here.

Example:
    >>> from assay.backends.lm import get_lm, score_text
    >>> scores = score_text(get_lm("fake"), "the cat sat on the mat")
    >>> len(scores.ids), scores.perplexity > 1
    (6, True)
"""

from assay.backends.lm.base import LanguageModel, TokenScores, score_text, sliding_logprobs
from assay.backends.lm.factory import DEFAULT_LM, get_lm

__all__ = [
    "DEFAULT_LM",
    "LanguageModel",
    "TokenScores",
    "get_lm",
    "score_text",
    "sliding_logprobs",
]
