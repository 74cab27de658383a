"""The shipped fake embedder: deterministic, normalised, similarity-preserving."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from assay.backends.embed import Embedder, TokenEmbedder
from assay.backends.embed.fake import FakeEmbedder, TableEmbedder


def test_rows_are_unit_float32_and_deterministic_across_processes() -> None:
    texts = ["The monthly fee is 12 euros.", "Über 5.000 € ist es gratis."]
    rows = FakeEmbedder().encode(texts)
    assert rows.dtype == np.float32 and rows.shape == (2, 256)
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-6)
    code = (
        "from assay.backends.embed.fake import FakeEmbedder;"
        f"print(FakeEmbedder().encode({texts!r}).round(6).tolist())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(rows.round(6).tolist())  # no salted hash()


def test_shared_words_score_higher_than_unrelated_text() -> None:
    a, b, c = FakeEmbedder().encode(
        ["The account fee is waived", "The fee of the account is waived", "Cats sleep all day"]
    )
    assert a @ b > 0.6 > a @ c


def test_tokens_are_one_unit_row_per_word_and_empty_text_is_a_zero_row() -> None:
    rows, tokens = FakeEmbedder(dim=32).encode_with_tokens(["Close the account", ""])
    assert tokens[0].shape == (3, 32) and tokens[1].shape == (0, 32)
    assert np.allclose(np.linalg.norm(tokens[0], axis=1), 1.0, atol=1e-6)
    assert not rows[1].any()


def test_protocols() -> None:
    assert isinstance(FakeEmbedder(), TokenEmbedder)
    table = TableEmbedder({"x": [0.0, 3.0]})
    assert isinstance(table, Embedder) and not isinstance(table, TokenEmbedder)
    assert table.model_id == TableEmbedder({"x": [0.0, 1.0]}).model_id  # same unit rows
