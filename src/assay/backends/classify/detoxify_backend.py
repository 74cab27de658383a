"""Detoxify (Unitary) toxicity models, used when their weights are present locally.

Detoxify downloads its checkpoints from GitHub into the torch hub cache on first use; that is
impossible offline, so this backend only runs when the checkpoint file is already in
``torch.hub.get_dir()/checkpoints`` or is given by path (and the matching Hugging Face base
model config/tokenizer is cached, or given with ``huggingface_config_path``). Categories of the
``original`` model: toxicity, severe_toxicity, obscene, threat, insult, identity_attack.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from assay.backends.classify.base import ClassScores
from assay.errors import BackendError, require
from assay.params import PickledAsParams

#: Checkpoint file names that ``detoxify`` downloads, per model type.
CHECKPOINTS = {
    "original": "toxic_original-c1212f89.ckpt",
    "unbiased": "toxic_debiased-c7548aa0.ckpt",
    "multilingual": "multilingual_debiased-0b549669.ckpt",
}
_LOCK = threading.Lock()


def hub_checkpoint(model_type: str) -> Path | None:
    """The cached checkpoint of ``model_type`` when it is present, else None.

    Example:
        >>> hub_checkpoint("no-such-type") is None
        True
    """
    name = CHECKPOINTS.get(model_type)
    if name is None:
        return None
    root = os.environ.get("TORCH_HOME")
    base = Path(root) / "hub" if root else Path.home() / ".cache" / "torch" / "hub"
    path = base / "checkpoints" / name
    return path if path.is_file() else None


def weights_present(model_type: str = "original") -> bool:
    """Whether detoxify is installed and its ``model_type`` checkpoint is cached locally."""
    import importlib.util

    installed = importlib.util.find_spec("detoxify") is not None
    return installed and hub_checkpoint(model_type) is not None


class DetoxifyClassifier(PickledAsParams):
    """A detoxify model; categories as detoxify names them.

    Args:
        model_type: ``original``, ``unbiased`` or ``multilingual``.
        checkpoint: path of the checkpoint file (default: the torch hub cache).
        huggingface_config_path: local folder of the base model's config and tokenizer.
        device: torch device.
    """

    def __init__(
        self,
        model_type: str = "original",
        checkpoint: str | None = None,
        huggingface_config_path: str | None = None,
        device: str = "cpu",
    ) -> None:
        self.model_type = model_type
        self.checkpoint = checkpoint
        self.huggingface_config_path = huggingface_config_path
        self.device = device
        self._model: Any = None

    @property
    def model_id(self) -> str:
        """``detoxify-<type>@<checkpoint file name>``."""
        name = Path(self.checkpoint).name if self.checkpoint else CHECKPOINTS.get(
            self.model_type, "?")
        return f"detoxify-{self.model_type}@{name}"

    def load(self) -> Any:
        """Load (once) the detoxify model, refusing to download."""
        if self._model is None:
            with _LOCK:
                if self._model is None:
                    require("detoxify", extra="toxicity", package="detoxify")
                    from detoxify import Detoxify

                    checkpoint = self.checkpoint or hub_checkpoint(self.model_type)
                    if checkpoint is None or not Path(checkpoint).is_file():
                        raise BackendError(
                            f"detoxify '{self.model_type}' weights are not present (looked for "
                            f"{CHECKPOINTS.get(self.model_type)} in the torch hub cache). With "
                            "network access run Detoxify('original') once to download them, or "
                            "pass checkpoint='path/to/file.ckpt'; offline, use the "
                            "'profanity-check' backend"
                        )
                    kwargs: dict[str, Any] = {"checkpoint": str(checkpoint), "device": self.device}
                    if self.huggingface_config_path:
                        kwargs["huggingface_config_path"] = self.huggingface_config_path
                    try:
                        self._model = Detoxify(self.model_type, **kwargs)
                    except Exception as exc:
                        raise BackendError(f"could not load detoxify: {exc}") from exc
        return self._model

    def predict(self, texts: Sequence[str]) -> ClassScores:
        """Per text, the score of every detoxify category."""
        model = self.load()
        raw = model.predict(list(texts))
        categories = tuple(raw)
        scores = np.array([np.atleast_1d(raw[c]) for c in categories], dtype=np.float64).T
        return ClassScores(categories, scores.reshape(len(texts), len(categories)))

    def __repr__(self) -> str:
        return f"DetoxifyClassifier({self.model_type!r})"
