"""Toxicity and bias classifiers from the heads shipped with assay, over all-MiniLM-L6-v2 vectors.

The heads (``toxicity``, ``bias``; trained by ``scripts/train_heads.py``, sha256-verified by
:func:`assay.backends.heads.store.load_head`) are linear layers on the frozen sentence vector of a
text — the same vector, from the same shared cache, that the embedding evaluators use, so a run
that already embedded the answer sentences pays only a matrix product.

Outputs (``head.json`` → ``training.output``):

* ``"subtypes"`` (toxicity): the first logit is P(toxic); each other label is a subtype head
  trained on toxic texts only, and its category score is ``P(toxic) * P(subtype | toxic)``, so a
  category never exceeds the toxicity score (as in ToxicSpans' annotation scheme).
* ``"binary"`` (bias): one logit; categories ``("Non-biased", "Biased")`` = ``(1 - p, p)``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.backends.classify.base import ClassScores
from assay.errors import BackendError

#: The feature set the text heads read: the L2-normalised all-MiniLM-L6-v2 sentence vector.
FEATURE_SET = "minilm-sentence-v1"
BIAS_CATEGORIES = ("Non-biased", "Biased")


def sigmoid(z: np.ndarray) -> np.ndarray:
    """The logistic function, without overflow warnings.

    Example:
        >>> sigmoid(np.array([0.0, 1000.0, -1000.0])).tolist()
        [0.5, 1.0, 0.0]
    """
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * np.asarray(z, dtype=np.float64))))


def head_scores(labels: Sequence[str], output: str, logits: np.ndarray) -> ClassScores:
    """Category scores from a head's logits, by its ``output`` kind (see the module docstring).

    Example:
        >>> s = head_scores(("toxicity", "threat"), "subtypes", np.array([[0.0, 100.0]]))
        >>> s.categories, s.scores.tolist(), s.overall_scores().tolist()
        (('toxicity', 'threat'), [[0.5, 0.5]], [0.5])
        >>> head_scores(("Biased",), "binary", np.array([[0.0]])).scores.tolist()
        [[0.5, 0.5]]
    """
    probs = sigmoid(logits)
    if output == "subtypes":
        scores = probs.copy()
        scores[:, 1:] = probs[:, :1] * probs[:, 1:]
        return ClassScores(tuple(labels), scores, overall=scores[:, 0].copy())
    if output == "binary":
        p = probs[:, 0]
        return ClassScores(BIAS_CATEGORIES, np.stack([1.0 - p, p], axis=1), overall=p)
    raise BackendError(f"unknown head output kind {output!r} (expected 'subtypes' or 'binary')")


class HeadClassifier:
    """A :class:`~assay.backends.classify.base.TextClassifier` from a shipped text head.

    Args:
        head: a shipped head's name (``"toxicity"``, ``"bias"``) or a head folder.
        embedder: the embedder spec whose vectors the head reads (all-MiniLM-L6-v2 only: the
            head was trained on it; another model is refused when the head loads).

    Example:
        >>> clf = HeadClassifier("toxicity")
        >>> scores = clf.predict(["You are a pathetic idiot.", "Have a nice day."])
        >>> bool(scores.column("insult")[0] > 0.5 > scores.column("insult")[1])
        True
    """

    #: The heads were trained on short texts (at most 32 words): evaluators score sentences.
    per_sentence = True

    def __init__(self, head: str = "toxicity", embedder: str = "minilm") -> None:
        self.head = head
        self.embedder = embedder
        self._loaded: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    def load(self) -> tuple[Any, Any]:
        """``(head, embedder)``, the head verified by sha256, loaded once."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    from assay.backends.embed import minilm
                    from assay.backends.embed.factory import get_embedder
                    from assay.backends.heads.store import load_head

                    head = load_head(self.head)
                    if head.features != FEATURE_SET:
                        raise BackendError(f"head {head.name!r} reads features {head.features!r}"
                                           f", not {FEATURE_SET!r}: not a text head")
                    embedder = get_embedder(self.embedder)
                    if embedder.model_id != minilm.MODEL_ID:
                        raise BackendError(
                            f"head {head.name!r} was trained on {minilm.MODEL_ID}; the embedder "
                            f"{embedder.model_id} gives other vectors")
                    self._loaded = (head, embedder)
        return self._loaded

    @property
    def model_id(self) -> str:
        """The head's identity (with its weights' digest) and the embedder's."""
        head, embedder = self.load()
        return f"{head.model_id}+{embedder.model_id}"

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """Category scores of ``texts`` (one embedding per distinct text, shared cache)."""
        head, embedder = self.load()
        output = str(head.header.get("training", {}).get("output", ""))
        if not texts:
            return head_scores(head.labels, output, np.zeros((0, len(head.labels))))
        vectors = np.asarray(embedder.encode(list(texts)), dtype=np.float32)
        return head_scores(head.labels, output, head.logits(vectors))

    def __getstate__(self) -> dict[str, Any]:
        return {"head": self.head, "embedder": self.embedder}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(**state)  # type: ignore[misc]

    def __repr__(self) -> str:
        return f"HeadClassifier({self.head!r}, embedder={self.embedder!r})"
