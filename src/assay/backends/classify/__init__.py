"""Text-classification backends (toxicity, bias): a Protocol, offline and Hugging Face models.

Nothing heavy is imported here.

Example:
    >>> from assay.backends.classify import get_classifier
    >>> get_classifier("fake", "toxicity").predict(["you idiot"]).overall_scores().tolist()
    [0.9]
"""

from assay.backends.classify.base import ClassScores, TextClassifier
from assay.backends.classify.factory import (
    DEFAULT_BIAS,
    DEFAULT_TOXICITY,
    get_classifier,
)

__all__ = [
    "DEFAULT_BIAS",
    "DEFAULT_TOXICITY",
    "ClassScores",
    "TextClassifier",
    "get_classifier",
]
