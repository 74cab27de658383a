"""A fine-tuned copy of MiniLM's last layer, run on the input of the shared pass's last layer.

A text head over *frozen* MiniLM features cannot change what the encoder reads; fine-tuning the
whole encoder would give every head its own 90 MB model and its own pass. In between, a head may
carry its own copy of the **last** transformer layer (1.77 M parameters, 3.5 MB in float16),
trained with it (design note 0044). :class:`TopLayerEmbedder` is then an embedder like any
other — MiniLM with its last layer replaced — except that it never runs layers 1-5 on its own:
it asks the base embedder for one forward pass that returns both the base's outputs (handed to
the base's cache, so the run's other evaluators find them there) and the hidden states entering
the last layer, and runs its layer on those (``SentenceTransformerEmbedder.encode_with_top``).
Its vectors and token matrices are pooled exactly as the base's and cached under its own
identity (the base's and the head's digests), so a warm rerun reads them from disk and runs
nothing.

The layer is torch (already loaded when layers 1-5 run): in numpy it was measured 3.5x slower,
over the 20 % budget a head may add to the pass (design note 0042). Its weights are the head's
``x_top_*`` arrays (float16, covered by the head's sha256).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from assay.backends.embed.base import DTYPE
from assay.errors import BackendError
from assay.params import PickledAsParams

#: The sub-layers of one BERT encoder layer, in order (``x_top_<name>_W`` / ``_b`` arrays).
PARTS = ("query", "key", "value", "attention_out", "attention_norm", "up", "down", "output_norm")
_PREFIX = "top_"
_NORMS = ("attention_norm", "output_norm")


def top_layer_class() -> type[Any]:
    """The torch module of one post-LayerNorm BERT encoder layer (exact GELU), built on first
    use so that importing this module does not import torch."""
    global _TOP_LAYER
    if _TOP_LAYER is None:
        _TOP_LAYER = _define_top_layer()
    return _TOP_LAYER


_TOP_LAYER: type[Any] | None = None


def _define_top_layer() -> type[Any]:
    import torch
    from torch import nn
    from torch.nn import functional as F

    class TopLayer(nn.Module):
        """``h -> LN(a + FFN(a))`` with ``a = LN(h + Attention(h))``: BERT's encoder layer.

        Args:
            dim: hidden size (384 for MiniLM).
            heads: attention heads (12).
            inner: feed-forward size (1536).
            eps: LayerNorm epsilon (1e-12 in BERT).
            dropout: dropout while training (none at inference).
        """

        def __init__(self, dim: int, heads: int, inner: int, eps: float, dropout: float = 0.0
                     ) -> None:
            super().__init__()
            self.heads, self.dropout = heads, dropout
            self.query, self.key, self.value = (nn.Linear(dim, dim) for _ in range(3))
            self.attention_out = nn.Linear(dim, dim)
            self.attention_norm = nn.LayerNorm(dim, eps=eps)
            self.up, self.down = nn.Linear(dim, inner), nn.Linear(inner, dim)
            self.output_norm = nn.LayerNorm(dim, eps=eps)

        @classmethod
        def from_bert(cls, layer: Any, heads: int, dropout: float = 0.0) -> TopLayer:
            """A copy of a Hugging Face ``BertLayer``'s weights."""
            att = layer.attention
            norm = att.output.LayerNorm
            top = cls(norm.normalized_shape[0], heads, layer.intermediate.dense.out_features,
                      norm.eps, dropout)
            sources = (att.self.query, att.self.key, att.self.value, att.output.dense, norm,
                       layer.intermediate.dense, layer.output.dense, layer.output.LayerNorm)
            for name, source in zip(PARTS, sources, strict=True):
                getattr(top, name).load_state_dict(source.state_dict())
            return top

        @classmethod
        def from_arrays(cls, arrays: Mapping[str, np.ndarray], heads: int, eps: float
                        ) -> TopLayer:
            """The layer stored in a head's arrays (as :meth:`arrays` writes them)."""
            found = _top_arrays(arrays)
            dim, inner = found["up_W"].shape
            top = cls(dim, heads, inner, eps)
            with torch.no_grad():
                for name in PARTS:
                    part = getattr(top, name)
                    weight = torch.from_numpy(found[f"{name}_W"])
                    part.weight.copy_(weight if name in _NORMS else weight.T)
                    part.bias.copy_(torch.from_numpy(found[f"{name}_b"]))
            return top.eval()

        def arrays(self) -> dict[str, np.ndarray]:
            """The weights as float16 head arrays (``top_<part>_W`` inputs x outputs)."""
            out = {}
            for name in PARTS:
                part = getattr(self, name)
                weight = part.weight.detach().cpu().numpy()
                out[f"{_PREFIX}{name}_W"] = (weight if name in _NORMS else weight.T
                                             ).astype(np.float16)
                out[f"{_PREFIX}{name}_b"] = part.bias.detach().cpu().numpy().astype(np.float16)
            return out

        def forward(self, h: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            """Hidden states ``(batch, tokens, dim)`` with a boolean ``mask`` of real tokens."""
            b, t, d = h.shape

            def split(x: torch.Tensor) -> torch.Tensor:
                return x.view(b, t, self.heads, d // self.heads).transpose(1, 2)

            drop = self.dropout if self.training else 0.0
            context = F.scaled_dot_product_attention(
                split(self.query(h)), split(self.key(h)), split(self.value(h)),
                attn_mask=mask[:, None, None, :], dropout_p=drop)
            context = context.transpose(1, 2).reshape(b, t, d)
            a = self.attention_norm(F.dropout(self.attention_out(context), drop) + h)
            f = self.down(F.gelu(self.up(a)))
            return self.output_norm(F.dropout(f, drop) + a)

    return TopLayer


def _top_arrays(arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The ``top_*`` arrays of a head, as float32, without the prefix."""
    names = [f"{_PREFIX}{name}_{kind}" for name in PARTS for kind in "Wb"]
    missing = [n for n in names if n not in arrays]
    if missing:
        raise BackendError(f"the head has no fine-tuned layer: arrays {missing[:3]} missing")
    return {n[len(_PREFIX):]: np.asarray(arrays[n], dtype=np.float32) for n in names}


def has_top_layer(arrays: Mapping[str, Any]) -> bool:
    """Whether a head's arrays carry a fine-tuned top layer."""
    return f"{_PREFIX}{PARTS[0]}_W" in arrays


class TopLayerEmbedder(PickledAsParams):
    """The base embedder with its last layer replaced by the fine-tuned copy in a shipped head.

    Args:
        head: the shipped head (name or folder) whose ``x_top_*`` arrays hold the layer.
        base: the spec of the base embedder (all-MiniLM-L6-v2: the layer was trained on its
            layer-5 states).

    Example (needs the bundled MiniLM):
        >>> embedder = TopLayerEmbedder("toxicity-tuned")  # doctest: +SKIP
        >>> vectors, tokens = embedder.encode_with_tokens(["Have a nice day."])  # doctest: +SKIP
    """

    cache_on_disk = True

    def __init__(self, head: str, base: str = "minilm") -> None:
        self.head = head
        self.base = base
        self._layer: Any = None
        self._lock = threading.Lock()

    @property
    def derived_from(self) -> str:
        """The base embedder's spec: its pass is shared (a prefetch fills this embedder first)."""
        return self.base

    def _base(self) -> Any:
        from assay.backends.embed.factory import get_embedder

        return get_embedder(self.base)

    def _loaded_head(self) -> Any:
        from assay.backends.heads.store import load_head

        return load_head(self.head)

    @property
    def model_id(self) -> str:
        """The base's identity and the head's (whose digest covers the layer)."""
        return f"{self._base().model_id}+{self._loaded_head().model_id}"

    @property
    def token_limit(self) -> int | None:
        """The base's input limit."""
        return self._base().token_limit

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """The base's token counts."""
        return self._base().count_tokens(texts)

    def layer(self) -> Any:
        """The torch layer, built once from the head's arrays."""
        if self._layer is None:
            with self._lock:
                if self._layer is None:
                    head = self._loaded_head()
                    spec = head.header.get("training", {}).get("top_layer", {})
                    self._layer = top_layer_class().from_arrays(
                        head.extra, int(spec.get("heads", 12)), float(spec.get("eps", 1e-12)))
        return self._layer

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Sentence rows (L2-normalised float32)."""
        return self.encode_with_tokens(texts)[0]

    def encode_with_tokens(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """Sentence rows and token matrices of the fine-tuned layer, from one base pass whose
        own outputs are handed to the base embedder's cache."""
        if not texts:
            return np.zeros((0, 0), dtype=DTYPE), []
        base = self._base()
        through = getattr(base.backend, "encode_with_top", None)
        if through is None:
            raise BackendError(f"the base embedder {base.backend!r} cannot run a fine-tuned "
                               "top layer (a local sentence-transformers BERT model is needed)")
        (rows, tokens), (top_rows, top_tokens) = through(list(texts), self.layer())
        base.remember(list(texts), rows, tokens)
        return top_rows, top_tokens

    def __repr__(self) -> str:
        return f"TopLayerEmbedder({self.head!r}, base={self.base!r})"
