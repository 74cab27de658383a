"""Shared machinery of the causal-LM evaluators (perplexity, GPTScore); registers nothing."""

from __future__ import annotations

from assay.backends.lm import DEFAULT_LM, LanguageModel, get_lm
from assay.evaluators.base import Evaluator
from assay.evaluators.resolved import ResolvesOnce
from assay.params import check


class LMEvaluator(ResolvesOnce, Evaluator):
    """Base of the language-model evaluators: injected model, sliding-window stride."""

    family = "lm"
    extra = "lm"

    def __init__(self, lm: str | LanguageModel = DEFAULT_LM, stride: int | None = None) -> None:
        check(isinstance(lm, str | LanguageModel), "lm", type(self).__name__,
              "'smollm2', a .gguf path, 'hf:<name>', a folder or a LanguageModel", lm)
        check(stride is None or (isinstance(stride, int) and stride >= 1), "stride",
              type(self).__name__, "None or a positive integer (< the model's window)", stride)
        self.lm = lm
        self.stride = stride

    def resolved_lm(self) -> LanguageModel:
        """The model behind ``self.lm`` (loaded on first use)."""
        return self.resolve_once(lambda: get_lm(self.lm))
