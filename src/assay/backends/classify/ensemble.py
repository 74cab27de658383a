"""An ensemble of text classifiers: the weighted mean of the members' scores.

Two ways to combine (``combine``):

* ``"overall"`` (members with different categories, e.g. a head and the profanity model): every
  member's categories are kept, prefixed ``<member index>:``, and ``overall`` is the weighted
  mean of the members' overall scores (each its max over categories unless it defines one).
* ``"categories"`` (members scoring the same categories, e.g. the sentence and token toxicity
  heads): each category is the weighted mean of the members' scores of it, under its own name,
  and ``overall`` the weighted mean of their overall scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.backends.classify.base import ClassScores, TextClassifier
from assay.errors import BackendError
from assay.params import check, check_choice

COMBINE = ("overall", "categories")


class EnsembleClassifier:
    """The weighted mean of several classifiers' scores (see the module docstring).

    Args:
        members: the classifiers, one or more.
        weights: one non-negative weight per member (equal weights when None).
        combine: ``"overall"`` (keep every member's categories) or ``"categories"`` (members
            with the same categories: average each).

    Example:
        >>> from assay.backends.classify.fake import KeywordClassifier
        >>> ens = EnsembleClassifier([KeywordClassifier(), KeywordClassifier({"idiot": 0.5})])
        >>> ens.predict(["you idiot"]).overall_scores().round(2).tolist()
        [0.7]
        >>> same = EnsembleClassifier([KeywordClassifier(), KeywordClassifier({"idiot": 0.5})],
        ...                           combine="categories").predict(["you idiot"])
        >>> same.categories, same.scores.round(2).tolist()
        (('toxicity', 'insult'), [[0.7, 0.7]])
    """

    def __init__(self, members: Sequence[TextClassifier], weights: Sequence[float] | None = None,
                 combine: str = "overall"):
        check(len(members) >= 1, "members", "EnsembleClassifier", "one classifier or more",
              members)
        given = [1.0] * len(members) if weights is None else [float(w) for w in weights]
        check(len(given) == len(members) and all(w >= 0 for w in given) and sum(given) > 0,
              "weights", "EnsembleClassifier", "one non-negative weight per member", weights)
        check_choice(combine, COMBINE, "combine", "EnsembleClassifier")
        self.members = list(members)
        self.weights = given
        self.combine = combine

    @property
    def model_id(self) -> str:
        """The members' identities and weights (and the combination when not ``overall``)."""
        inner = ", ".join(f"{m.model_id}*{w:g}" for m, w in zip(self.members, self.weights,
                                                                 strict=True))
        return f"ensemble({inner})" if self.combine == "overall" else (
            f"ensemble-{self.combine}({inner})")

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """The combined scores, the first member's rewritten texts (``read_as``) when one
        rewrote them, and the texts no member could read (``unread``). A text is averaged over
        the members that read it (their weights renormalised): a member's score of a text it
        could not read is no judgement and would only pull the mean towards its default."""
        outputs = [m.predict(texts) for m in self.members]
        read = ~np.stack([o.unread_rows() for o in outputs], axis=1)
        # unread only when no member read it (a member that cannot tell reads everything)
        unread: np.ndarray = ~np.asarray(read.any(axis=1))
        weights = np.where(read | unread[:, None], np.array(self.weights), 0.0)
        weights = weights / weights.sum(axis=1, keepdims=True)
        overall = (np.stack([o.overall_scores() for o in outputs], axis=1) * weights).sum(1)
        read_as = next((o.read_as for o in outputs if o.read_as is not None), None)
        if self.combine == "categories":
            categories = outputs[0].categories
            for member, out in zip(self.members, outputs, strict=True):
                if out.categories != categories:
                    raise BackendError(
                        f"EnsembleClassifier(combine='categories') needs members with the same "
                        f"categories: {self.members[0].model_id} gives {categories}, "
                        f"{member.model_id} gives {out.categories}")
            scores = np.einsum("tm,mtc->tc", weights, np.stack([o.scores for o in outputs]))
        else:
            categories = tuple(f"{i}:{c}" for i, out in enumerate(outputs)
                               for c in out.categories)
            scores = np.concatenate([o.scores for o in outputs], axis=1)
        return ClassScores(categories, scores, overall=overall, read_as=read_as,
                           unread=unread if unread.any() else None)

    def __getstate__(self) -> dict[str, Any]:
        return {"members": self.members, "weights": self.weights, "combine": self.combine}

    def __repr__(self) -> str:
        extra = "" if self.combine == "overall" else f", combine={self.combine!r}"
        return f"EnsembleClassifier({self.members!r}{extra})"
