"""A deterministic keyword "classifier" for the toxicity and bias evaluators' tests."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from assay.backends.classify.base import ClassScores
from assay.text.tokens import words

#: Default weights: word -> score of the second category.
_TOXIC = {"idiot": 0.9, "stupid": 0.8, "hate": 0.7, "damn": 0.4}


def bias_words() -> dict[str, float]:
    """Words the fake bias model treats as biased language."""
    return {"always": 0.6, "all": 0.3, "never": 0.5, "women": 0.4, "men": 0.4}


class KeywordClassifier:
    """Two categories: the first is ``max(keyword scores)``, the second the same for insults.

    ``categories`` defaults to ``("toxicity", "insult")``; with two categories named like a
    binary classifier (e.g. ``("Non-biased", "Biased")``) the first is ``1 - second``. Texts
    longer than ``max_tokens`` words are reported as truncated.

    Example:
        >>> KeywordClassifier().predict(["you stupid idiot", "hello"]).scores.tolist()
        [[0.9, 0.9], [0.0, 0.0]]
    """

    def __init__(
        self,
        table: dict[str, float] | None = None,
        categories: tuple[str, str] = ("toxicity", "insult"),
        max_tokens: int = 512,
    ) -> None:
        self.table = dict(_TOXIC if table is None else table)
        self.categories = categories
        self.max_tokens = max_tokens

    @property
    def model_id(self) -> str:
        """Identity of the keyword table."""
        return f"keywords-{len(self.table)}-{'-'.join(self.categories)}"

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """Scores per text."""
        rows = []
        lengths = []
        for text in texts:
            toks = words(text)
            lengths.append(len(toks))
            top = max((self.table.get(t, 0.0) for t in toks), default=0.0)
            first = top if self.categories[0] == "toxicity" else 1.0 - top
            rows.append([first, top])
        scores = np.array(rows, dtype=np.float64).reshape(-1, 2)
        return ClassScores(self.categories, scores, np.array(lengths, dtype=np.int64),
                           self.max_tokens)

    def __repr__(self) -> str:
        return f"KeywordClassifier({self.categories})"
