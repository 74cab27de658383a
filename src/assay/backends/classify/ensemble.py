"""An ensemble of text classifiers: the weighted mean of the members' overall scores."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.backends.classify.base import ClassScores, TextClassifier
from assay.params import check


class EnsembleClassifier:
    """Members' categories are kept (prefixed ``<member index>:``); ``overall`` is the weighted
    mean of each member's overall score (its max over categories).

    Example:
        >>> from assay.backends.classify.fake import KeywordClassifier
        >>> ens = EnsembleClassifier([KeywordClassifier(), KeywordClassifier({"idiot": 0.5})])
        >>> ens.predict(["you idiot"]).overall_scores().round(2).tolist()
        [0.7]
    """

    def __init__(self, members: Sequence[TextClassifier], weights: Sequence[float] | None = None):
        check(len(members) >= 1, "members", "EnsembleClassifier", "one classifier or more",
              members)
        given = [1.0] * len(members) if weights is None else [float(w) for w in weights]
        check(len(given) == len(members) and all(w >= 0 for w in given) and sum(given) > 0,
              "weights", "EnsembleClassifier", "one non-negative weight per member", weights)
        self.members = list(members)
        self.weights = given

    @property
    def model_id(self) -> str:
        """The members' identities and weights."""
        return "ensemble(" + ", ".join(
            f"{m.model_id}*{w:g}" for m, w in zip(self.members, self.weights, strict=True)) + ")"

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """Every member's categories, the weighted mean of their overall scores, and the first
        member's rewritten texts (``read_as``) when one rewrote them."""
        outputs = [m.predict(texts) for m in self.members]
        categories = tuple(f"{i}:{c}" for i, out in enumerate(outputs) for c in out.categories)
        scores = np.concatenate([o.scores for o in outputs], axis=1)
        weights = np.array(self.weights) / sum(self.weights)
        overall = np.stack([o.overall_scores() for o in outputs], axis=1) @ weights
        read_as = next((o.read_as for o in outputs if o.read_as is not None), None)
        return ClassScores(categories, scores, overall=overall, read_as=read_as)

    def __getstate__(self) -> dict[str, Any]:
        return {"members": self.members, "weights": self.weights}

    def __repr__(self) -> str:
        return f"EnsembleClassifier({self.members!r})"
