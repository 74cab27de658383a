"""A deterministic, dependency-free fake NLI model for tests (spec ``"fake"``).

Entailment rises with the share of the hypothesis' content words found in the premise;
contradiction rises when the hypothesis brings a number absent from the premise or flips a
negation. Crude, but enough to test the logic of every NLI metric without a model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from assay.backends.nli.base import NLIScores, softmax
from assay.text.tokens import words

_NEGATIONS = frozenset({"not", "no", "never", "none", "cannot", "free", "without", "nothing"})
_STOP_TEXT = "the a an is are was were be of to in on at for and or it this that"
_STOP = frozenset(_STOP_TEXT.split())
_NUMBER = re.compile(r"\d")


class FakeNLI:
    """Word-overlap "NLI" with labels (entailment, neutral, contradiction) and a unit head norm.

    Example:
        >>> premises = ["The fee is 12 euros."] * 2
        >>> s = FakeNLI().predict(premises, ["The fee is 12 euros.", "It is free."])
        >>> bool(s.prob("entailment")[0] > 0.8), bool(s.prob("contradiction")[1] > 0.5)
        (True, True)
    """

    labels = ("entailment", "neutral", "contradiction")

    def __init__(self) -> None:
        self.pairs_scored = 0

    @property
    def model_id(self) -> str:
        """Identity of the fake scheme."""
        return "fake-nli-overlap-v1"

    def _logits(self, premise: str, hypothesis: str) -> list[float]:
        p_words = set(words(premise))
        h_words = [w for w in words(hypothesis) if w not in _STOP]
        if not h_words:
            return [0.0, 1.0, 0.0]
        coverage = sum(w in p_words for w in h_words) / len(h_words)
        new_numbers = any(_NUMBER.search(w) and w not in p_words for w in h_words)
        flipped = bool((_NEGATIONS & set(h_words)) ^ (_NEGATIONS & p_words))
        conflict = 0.5 * new_numbers + 0.5 * flipped
        return [6.0 * coverage - 3.0 - 4.0 * conflict, 0.5, 5.0 * conflict - 1.0]

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> NLIScores:
        """Scores of each pair; the entailment logit is also the HCAT distance (head norm 1)."""
        self.pairs_scored += len(premises)
        logits = np.array(
            [self._logits(p, h) for p, h in zip(premises, hypotheses, strict=True)],
            dtype=np.float64,
        ).reshape(-1, 3)
        return NLIScores(
            self.labels, logits, softmax(logits), logits[:, 0].copy(),
            np.zeros(len(logits), dtype=bool),
        )

    def __repr__(self) -> str:
        return "FakeNLI()"
