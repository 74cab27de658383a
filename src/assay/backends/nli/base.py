"""The :class:`NLIModel` protocol, its :class:`NLIScores` output and label canonicalisation.

Premise = the evidence (a context passage or a document sentence), hypothesis = the claim (an
answer sentence). Labels come from the model's config and are mapped onto canonical names:
``entailment``, ``neutral``, ``contradiction`` (3-way NLI), ``not_entailment`` (2-way NLI) and
``consistent`` / ``hallucinated`` (factual-consistency models such as Vectara HHEM).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from assay.errors import BackendError

ENTAILMENT = "entailment"
NEUTRAL = "neutral"
CONTRADICTION = "contradiction"
CONSISTENT = "consistent"


def canonical_label(name: str) -> str:
    """Map a config label name onto the canonical NLI vocabulary (unknown names kept, lowered).

    Example:
        >>> names = ("ENTAILMENT", "Contradiction", "not_entailment", "LABEL_0")
        >>> [canonical_label(n) for n in names]
        ['entailment', 'contradiction', 'not_entailment', 'label_0']
    """
    key = name.strip().lower().replace("-", "_").replace(" ", "_")
    if key.startswith(("not_entail", "non_entail", "no_entail")):
        return "not_entailment"
    if key.startswith("entail"):
        return ENTAILMENT
    if key.startswith("contradict"):
        return CONTRADICTION
    if key.startswith("neutral"):
        return NEUTRAL
    if key in ("consistent", "factual", "supported", "faithful", "factually_consistent"):
        return CONSISTENT
    if key in ("hallucinated", "hallucination", "inconsistent", "unsupported"):
        return "hallucinated"
    return key


@dataclass(frozen=True)
class NLIScores:
    """Outputs for a batch of (premise, hypothesis) pairs.

    Attributes:
        labels: canonical label of each logit column.
        logits: ``(n, k)`` raw classifier logits.
        probs: ``(n, k)`` softmax probabilities (sigmoid for a single-logit model).
        distance: ``(n,)`` signed distance to the entailment decision boundary (HCAT §3.2.2):
            the entailment logit divided by the norm of the classifier head's entailment row.
            ``None`` when the model has no entailment label or no linear head.
        truncated: ``(n,)`` whether the pair was cut to the model's maximum length.
    """

    labels: tuple[str, ...]
    logits: np.ndarray
    probs: np.ndarray
    distance: np.ndarray | None
    truncated: np.ndarray

    def __len__(self) -> int:
        return int(self.logits.shape[0])

    def has(self, label: str) -> bool:
        """Whether the model predicts ``label``."""
        return label in self.labels

    def prob(self, label: str) -> np.ndarray:
        """Probabilities of ``label`` (:class:`BackendError` naming the labels when absent)."""
        if label not in self.labels:
            raise BackendError(
                f"the NLI model has no {label!r} label (its labels: {list(self.labels)}); use a "
                "3-way NLI model or pass labels=... to TransformersNLI to name the columns"
            )
        return np.asarray(self.probs[:, self.labels.index(label)], dtype=np.float64)

    def consistency(self) -> np.ndarray:
        """P(consistent): the single sigmoid output, P(consistent) or else P(entailment).

        Example:
            >>> s = NLIScores(("consistent",), np.zeros((1, 1)), np.array([[0.7]]), None,
            ...               np.zeros(1, bool))
            >>> s.consistency().tolist()
            [0.7]
        """
        if CONSISTENT in self.labels:
            return self.prob(CONSISTENT)
        if "hallucinated" in self.labels and len(self.labels) == 2:
            return 1.0 - self.prob("hallucinated")
        return self.prob(ENTAILMENT)

    def subset(self, rows: Sequence[int]) -> NLIScores:
        """The scores of the given rows."""
        index = np.asarray(rows, dtype=np.int64)
        return NLIScores(
            self.labels,
            self.logits[index],
            self.probs[index],
            None if self.distance is None else self.distance[index],
            self.truncated[index],
        )


@runtime_checkable
class NLIModel(Protocol):
    """Anything that classifies (premise, hypothesis) pairs into NLI labels."""

    @property
    def model_id(self) -> str:
        """Stable identity of the model weights (for manifests)."""
        ...

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> NLIScores:
        """Scores of each pair ``(premises[i], hypotheses[i])``."""
        ...


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax; a single column gets the logistic function instead.

    Example:
        >>> softmax(np.array([[0.0, 0.0], [0.0, np.log(3.0)]])).round(2).tolist()
        [[0.5, 0.5], [0.25, 0.75]]
    """
    logits = np.asarray(logits, dtype=np.float64)
    if logits.shape[-1] == 1:
        return 1.0 / (1.0 + np.exp(-logits))
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return exp / exp.sum(axis=-1, keepdims=True)


def logistic(x: np.ndarray | float) -> np.ndarray:
    """The logistic function, numerically safe.

    Example:
        >>> logistic(np.array([0.0])).tolist()
        [0.5]
    """
    return 1.0 / (1.0 + np.exp(-np.clip(np.asarray(x, dtype=np.float64), -500, 500)))
