"""Any Hugging Face text-classification model (bias, toxicity...) by name or local folder.

Texts longer than the model's limit (512 tokens for BERT-style models) are truncated
explicitly, and :class:`ClassScores` reports each text's token count so callers can report it.
Multi-label models (``problem_type = multi_label_classification``) get a sigmoid per label,
others a softmax.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from assay.backends.classify.base import ClassScores
from assay.backends.nli.base import softmax
from assay.backends.nli.hf import LazyHFModel, load_classifier, max_length_of
from assay.params import check


class HFTextClassifier(LazyHFModel):
    """A sequence classifier; categories are the config's label names.

    Args:
        model: model name or path of a saved folder.
        what: what the model detects (used in error messages).
        examples: recommended model names for the "how to provide one" message.
        batch_size: texts per forward pass.
        max_length: token limit (default: the model's, at most 512).
    """

    _state = ("model", "what", "examples", "batch_size", "max_length")

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
        super()._reset()
        self._categories: tuple[str, ...] = ()
        self._limit = 0

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

    def _load(self) -> tuple[Any, Any]:
        tokenizer, model = load_classifier(
            self.model, what=self.what, examples=self.examples, extra="nli"
        )
        n = int(model.config.num_labels)
        id2label = model.config.id2label or {}
        self._categories = tuple(str(id2label.get(i, f"LABEL_{i}")) for i in range(n))
        self._limit = self.max_length or max_length_of(tokenizer, model)
        return tokenizer, model

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
