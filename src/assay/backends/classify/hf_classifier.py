"""Any Hugging Face text-classification model (bias, toxicity...) by name or local folder.

Texts longer than the model's limit (512 tokens for BERT-style models) are truncated
explicitly, and :class:`ClassScores` reports each text's token count so callers can report it.
Multi-label models (``problem_type = multi_label_classification``) get a sigmoid per label,
others a softmax.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.backends.classify.base import ClassScores
from assay.backends.nli.base import softmax
from assay.backends.nli.hf import load_classifier, max_length_of, weights_identity
from assay.params import check


class HFTextClassifier:
    """A sequence classifier; categories are the config's label names.

    Args:
        model: model name or path of a saved folder.
        what: what the model detects (used in error messages).
        examples: recommended model names for the "how to provide one" message.
        batch_size: texts per forward pass.
        max_length: token limit (default: the model's, at most 512).
    """

    def __init__(
        self,
        model: str,
        *,
        what: str = "text-classification",
        examples: str = "'d4data/bias-detection-model'",
        batch_size: int = 16,
        max_length: int | None = None,
    ) -> None:
        check(isinstance(model, str) and bool(model.strip()), "model", "HFTextClassifier",
              "a model name or folder path", model)
        self.model = model
        self.what = what
        self.examples = examples
        self.batch_size = batch_size
        self.max_length = max_length
        self._reset()

    def _reset(self) -> None:
        self._loaded: tuple[Any, Any] | None = None
        self._categories: tuple[str, ...] = ()
        self._limit = 0
        self._lock = threading.Lock()
        self._model_id: str | None = None

    @property
    def model_id(self) -> str:
        """``name@sha256:<16 hex>`` of the local weights, else ``name@unverified``."""
        if self._model_id is None:
            self._model_id = weights_identity(self.model)
        return self._model_id

    @property
    def categories(self) -> tuple[str, ...]:
        """The label names (loads the model)."""
        self.load()
        return self._categories

    @property
    def limit(self) -> int:
        """The token limit in use (loads the model)."""
        self.load()
        return self._limit

    def load(self) -> tuple[Any, Any]:
        """Load (once) and return ``(tokenizer, model)``."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    tokenizer, model = load_classifier(
                        self.model, what=self.what, examples=self.examples, extra="nli"
                    )
                    n = int(model.config.num_labels)
                    id2label = model.config.id2label or {}
                    self._categories = tuple(str(id2label.get(i, f"LABEL_{i}")) for i in range(n))
                    self._limit = self.max_length or max_length_of(tokenizer, model)
                    self._loaded = (tokenizer, model)
        assert self._loaded is not None
        return self._loaded

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """Scores per label; token counts recorded before truncation."""
        import torch

        tokenizer, model = self.load()
        texts = list(texts)
        n_tokens = np.array([len(ids) for ids in tokenizer(texts, truncation=False)["input_ids"]],
                            dtype=np.int64) if texts else np.zeros(0, dtype=np.int64)
        rows = []
        multi = getattr(model.config, "problem_type", None) == "multi_label_classification"
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            encoded = tokenizer(batch, truncation=True, max_length=self._limit, padding=True,
                                return_tensors="pt")
            with torch.inference_mode():
                logits = model(**encoded).logits.double().cpu().numpy()
            rows.append(1 / (1 + np.exp(-logits)) if multi else softmax(logits))
        scores = np.concatenate(rows) if rows else np.zeros((0, len(self._categories)))
        return ClassScores(self._categories, scores, n_tokens, self._limit)

    def __getstate__(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in ("model", "what", "examples", "batch_size",
                                              "max_length")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()

    def __repr__(self) -> str:
        return f"HFTextClassifier({self.model!r})"
