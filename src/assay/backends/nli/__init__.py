"""NLI backends: a Protocol, the shipped MiniLM head (default), Hugging Face cross-encoders, a
factory.

Nothing heavy is imported here: torch and transformers load on the first prediction.

Example:
    >>> from assay.backends.nli import get_nli
    >>> scores = get_nli("fake").predict(["The fee is 12 euros."], ["The fee is 12 euros."])
    >>> scores.labels[int(scores.probs[0].argmax())]
    'entailment'
"""

from assay.backends.nli.base import (
    CONSISTENT,
    CONTRADICTION,
    ENTAILMENT,
    NEUTRAL,
    NLIModel,
    NLIScores,
    canonical_label,
    logistic,
    softmax,
)
from assay.backends.nli.factory import (
    DEFAULT_HHEM,
    DEFAULT_NLI,
    REFERENCE_NLI,
    get_nli,
)

__all__ = [
    "CONSISTENT",
    "CONTRADICTION",
    "DEFAULT_HHEM",
    "DEFAULT_NLI",
    "ENTAILMENT",
    "NEUTRAL",
    "REFERENCE_NLI",
    "NLIModel",
    "NLIScores",
    "canonical_label",
    "get_nli",
    "logistic",
    "softmax",
]
