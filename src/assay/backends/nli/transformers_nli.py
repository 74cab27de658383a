"""An :class:`~assay.backends.nli.base.NLIModel` over any Hugging Face sequence classifier.

The model is loaded lazily on the first :meth:`TransformersNLI.predict`, never pickled, and
pairs already seen are answered from memory. Long pairs are cut from the premise side
(``only_first``) to the model's maximum length and flagged as truncated.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.backends.nli.base import ENTAILMENT, NLIScores, canonical_label, softmax
from assay.backends.nli.hf import LazyHFModel, head_layer, load_classifier, max_length_of
from assay.params import check, check_int

logger = logging.getLogger(__name__)
_EXAMPLES = "'cross-encoder/nli-deberta-v3-base' or 'vectara/hallucination_evaluation_model'"


class TransformersNLI(LazyHFModel):
    """NLI / factual-consistency cross-encoder by Hugging Face name or local folder.

    Args:
        model: model name or path of a saved folder.
        labels: canonical names of the logit columns, overriding the config's ``id2label``
            (needed when the config says ``LABEL_0``...).
        batch_size: pairs per forward pass.
        max_length: token limit of a pair (default: the model's, at most 512).
        trust_remote_code: allow custom model code (Vectara HHEM-2.1 needs it).

    Example:
        >>> from assay.backends.tiny_models import tiny_nli_model
        >>> nli = TransformersNLI(str(tiny_nli_model()))  # doctest: +SKIP
        >>> nli.predict(["The fee is 12 euros."], ["The fee is 12 euros."]).labels  # doctest: +SKIP
        ('contradiction', 'entailment', 'neutral')
    """

    _state = ("model", "labels_override", "batch_size", "max_length", "trust_remote_code")

    def __init__(
        self,
        model: str,
        *,
        labels: Sequence[str] | None = None,
        batch_size: int = 16,
        max_length: int | None = None,
        trust_remote_code: bool = False,
    ) -> None:
        check(isinstance(model, str) and bool(model.strip()), "model", "TransformersNLI",
              "a model name or folder path", model)
        check_int(batch_size, "batch_size", "TransformersNLI")
        self.model = model
        self.labels_override = tuple(labels) if labels is not None else None
        self.batch_size = batch_size
        self.max_length = max_length
        self.trust_remote_code = trust_remote_code
        self._reset()

    def _reset(self) -> None:
        super()._reset()
        self._labels: tuple[str, ...] = ()
        self._head_norm: float | None = None
        self._head_path: str | None = None
        self._limit = 0
        self._memo: dict[tuple[str, str], tuple[np.ndarray, bool]] = {}

    # -- loading ------------------------------------------------------------------------------
    @property
    def labels(self) -> tuple[str, ...]:
        """Canonical label of each logit column (loads the model)."""
        self.load()
        return self._labels

    @property
    def head_path(self) -> str | None:
        """Attribute path of the linear head whose entailment row normalises the distance."""
        self.load()
        return self._head_path

    def _load(self) -> tuple[Any, Any]:
        tokenizer, model = load_classifier(
            self.model, what="NLI", examples=_EXAMPLES, extra="nli",
            trust_remote_code=self.trust_remote_code,
        )
        n = int(model.config.num_labels)
        if self.labels_override is not None:
            check(len(self.labels_override) == n, "labels", "TransformersNLI",
                  f"{n} names (the model has {n} outputs)", self.labels_override)
            names = [canonical_label(x) for x in self.labels_override]
        else:
            id2label = model.config.id2label or {}
            names = [canonical_label(str(id2label.get(i, f"label_{i}"))) for i in range(n)]
        self._labels = tuple(names)
        if ENTAILMENT in names:
            try:
                path, head = head_layer(model, n)
                row = head.weight.detach().double()[names.index(ENTAILMENT)]
                self._head_norm = float(row.norm())
                self._head_path = path
            except Exception as exc:  # the distance is optional; probabilities remain
                logger.warning("no HCAT distance for %s: %s", self.model, exc)
        self._limit = self.max_length or max_length_of(tokenizer, model)
        logger.info("loaded NLI model %s labels=%s head=%s", self.model, names, self._head_path)
        return tokenizer, model

    # -- prediction ---------------------------------------------------------------------------
    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> NLIScores:
        """Scores of each ``(premises[i], hypotheses[i])`` pair; distinct pairs computed once."""
        check(len(premises) == len(hypotheses), "hypotheses", "TransformersNLI.predict",
              f"as many as the premises ({len(premises)})", len(hypotheses))
        tokenizer, model = self.load()
        pairs = list(zip(premises, hypotheses, strict=True))
        todo = [p for p in dict.fromkeys(pairs) if p not in self._memo]
        todo.sort(key=lambda p: len(p[0]) + len(p[1]))  # similar lengths share a batch
        for start in range(0, len(todo), self.batch_size):
            self._forward(tokenizer, model, todo[start : start + self.batch_size])
        n = len(self._labels)
        logits = np.stack([self._memo[p][0] for p in pairs]) if pairs else np.zeros((0, n))
        truncated = np.array([self._memo[p][1] for p in pairs], dtype=bool)
        distance = None
        if self._head_norm:
            distance = logits[:, self._labels.index(ENTAILMENT)] / self._head_norm
        return NLIScores(self._labels, logits, softmax(logits), distance, truncated)

    def consistency(self, premises: Sequence[str], hypotheses: Sequence[str]) -> np.ndarray:
        """P(hypothesis consistent with premise) per pair.

        Models with their own ``predict(pairs)`` (Vectara HHEM-2.1-open, loaded with
        ``trust_remote_code=True``, which formats its prompt itself) are asked directly;
        otherwise :meth:`NLIScores.consistency` of :meth:`predict`.
        """
        _, model = self.load()
        custom = getattr(model, "predict", None)
        if self.trust_remote_code and callable(custom):
            import torch

            with torch.inference_mode():
                out = custom(list(zip(premises, hypotheses, strict=True)))
            return np.asarray(out, dtype=np.float64).reshape(-1)
        return self.predict(premises, hypotheses).consistency()

    def _forward(self, tokenizer: Any, model: Any, batch: list[tuple[str, str]]) -> None:
        import torch

        firsts = [p for p, _ in batch]
        seconds = [h for _, h in batch]
        lengths = tokenizer(firsts, seconds, truncation=False)["input_ids"]
        cut = [len(ids) > self._limit for ids in lengths]
        strategy = "only_first"
        if any(len(tokenizer(h, truncation=False)["input_ids"]) >= self._limit for h in seconds):
            strategy = "longest_first"  # a hypothesis alone fills the window
        encoded = tokenizer(firsts, seconds, truncation=strategy, max_length=self._limit,
                            padding=True, return_tensors="pt")
        with torch.inference_mode():
            out = model(**encoded).logits.float().cpu().numpy().astype(np.float64)
        for pair, row, was_cut in zip(batch, out, cut, strict=True):
            self._memo[pair] = (row, was_cut)
