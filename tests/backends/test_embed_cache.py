"""The embedding cache: dedup, memory and SQLite persistence, tokens, concurrency, pickling."""

from __future__ import annotations

import multiprocessing
import pickle
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from assay.backends.embed import CachedEmbedder, EmbeddingCache, default_cache_dir, get_embedder
from assay.backends.embed.cache import round_tokens
from assay.backends.embed.fake import FakeEmbedder, TableEmbedder
from assay.errors import BackendError, InvalidInputError

TEXTS = ["The fee is 12 euros.", "Cards cost 1.5% abroad.", "The fee is 12 euros."]


def test_duplicates_are_encoded_once_and_rows_follow_input_order() -> None:
    fake = FakeEmbedder()
    cached = CachedEmbedder(fake)
    rows = cached.encode(TEXTS)
    assert fake.texts_encoded == 2
    assert np.array_equal(rows[0], rows[2])
    assert np.allclose(rows, FakeEmbedder().encode(TEXTS), atol=1e-7)
    cached.encode(TEXTS[:2])
    assert fake.texts_encoded == 2 and fake.calls == 1


def test_disk_cache_serves_a_fresh_process_without_the_model(tmp_path: Path) -> None:
    first = CachedEmbedder(FakeEmbedder(), EmbeddingCache(tmp_path))
    cold_rows, cold_tokens = first.encode_with_tokens(TEXTS)
    fake = FakeEmbedder()
    second = CachedEmbedder(fake, EmbeddingCache(tmp_path))
    warm_rows, warm_tokens = second.encode_with_tokens(TEXTS)
    assert fake.texts_encoded == 0 and second.stats["disk"] == 2
    assert np.array_equal(cold_rows, warm_rows)  # float32 rows stored exactly
    for cold, warm in zip(cold_tokens, warm_tokens, strict=True):
        assert np.array_equal(cold, warm)  # tokens rounded through float16 both times


def test_token_matrices_reach_the_disk_only_once_asked_for(tmp_path: Path) -> None:
    fake = FakeEmbedder()
    cached = CachedEmbedder(fake, EmbeddingCache(tmp_path))
    cached.encode(TEXTS)  # sentence vectors only: the tokens of the same pass stay in memory
    disk = EmbeddingCache(tmp_path)
    assert len(disk.get(fake.model_id, TEXTS)) == 2
    assert disk.get(fake.model_id, TEXTS, tokens=True) == {}
    _, tokens = cached.encode_with_tokens(TEXTS[:1])  # served from memory, now persisted
    assert fake.texts_encoded == 2
    stored = disk.get(fake.model_id, TEXTS, tokens=True)
    assert list(stored) == [TEXTS[0]]
    assert np.array_equal(stored[TEXTS[0]][1], tokens[0])
    fresh = FakeEmbedder()  # a new process finds the tokens of the first text on disk
    _, again = CachedEmbedder(fresh, EmbeddingCache(tmp_path)).encode_with_tokens(TEXTS[:1])
    assert fresh.texts_encoded == 0 and np.array_equal(again[0], tokens[0])


def test_cache_is_keyed_by_model_identity(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    CachedEmbedder(FakeEmbedder(dim=64), cache).encode(["same text"])
    other = FakeEmbedder(dim=32)
    rows = CachedEmbedder(other, cache).encode(["same text"])
    assert other.texts_encoded == 1 and rows.shape == (1, 32)
    assert len(list(tmp_path.glob("*.sqlite3"))) == 2


def test_sentence_only_entries_are_upgraded_with_tokens(tmp_path: Path) -> None:
    cache = EmbeddingCache(tmp_path)
    vec = np.ones(4, dtype=np.float32) / 2
    cache.put("m", [("t", vec, None)])
    assert cache.get("m", ["t"], tokens=True) == {}
    assert cache.get("m", ["t"])["t"][1] is None
    cache.put("m", [("t", vec, np.eye(2, 4, dtype=np.float32))])
    stored = cache.get("m", ["t"], tokens=True)["t"][1]
    assert stored is not None and stored.shape == (2, 4)
    cache.put("m", [("t", vec, None)])  # a later entry without tokens keeps them
    assert cache.get("m", ["t"], tokens=True)["t"][1] is not None


def test_many_texts_cross_the_sql_chunk_size(tmp_path: Path) -> None:
    texts = [f"sentence number {i}" for i in range(1234)]
    CachedEmbedder(FakeEmbedder(), EmbeddingCache(tmp_path)).encode(texts)
    fake = FakeEmbedder()
    rows = CachedEmbedder(fake, EmbeddingCache(tmp_path)).encode(texts)
    assert fake.texts_encoded == 0 and rows.shape == (1234, 256)


def test_token_rounding_is_stable() -> None:
    tokens = np.random.default_rng(0).normal(size=(3, 8)).astype(np.float32)
    once = round_tokens(tokens)
    assert np.array_equal(once, round_tokens(once))
    assert np.abs(once - tokens).max() < 1e-2


def _read_all(args: tuple[str, list[str]]) -> int:
    directory, texts = args
    cache = EmbeddingCache(directory)
    found = 0
    for _ in range(20):
        found = max(found, len(cache.get(FakeEmbedder().model_id, texts)))
    return found


def test_concurrent_readers_while_a_writer_writes(tmp_path: Path) -> None:
    texts = [f"text {i}" for i in range(300)]
    writer = CachedEmbedder(FakeEmbedder(), EmbeddingCache(tmp_path))
    writer.encode(texts[:100])
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(2) as pool:
        pending = pool.map_async(_read_all, [(str(tmp_path), texts)] * 2)
        writer.encode(texts[100:])  # writes while the readers read (WAL journal)
        counts = pending.get(timeout=120)
    assert all(100 <= c <= 300 for c in counts)
    assert _read_all((str(tmp_path), texts)) == 300
    with sqlite3.connect(EmbeddingCache(tmp_path).path(FakeEmbedder().model_id)) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_unwritable_cache_does_not_fail_encoding(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cache = EmbeddingCache(tmp_path)

    def broken_put(*args: object, **kwargs: object) -> None:
        raise sqlite3.OperationalError("disk I/O error")

    cache.put = broken_put  # type: ignore[method-assign]
    rows = CachedEmbedder(FakeEmbedder(), cache).encode(["a text"])
    assert rows.shape == (1, 256)
    assert "could not write" in caplog.text


def test_pickling_drops_connections_and_memory(tmp_path: Path) -> None:
    cached = CachedEmbedder(FakeEmbedder(), EmbeddingCache(tmp_path))
    cached.encode(TEXTS)
    clone = pickle.loads(pickle.dumps(cached))
    assert len(clone._vectors) == 0 and clone.cache is not None
    assert np.array_equal(clone.encode(TEXTS), cached.encode(TEXTS))
    assert clone.stats["disk"] == 2


def test_token_embeddings_need_a_token_backend() -> None:
    cached = CachedEmbedder(TableEmbedder({"a": [1.0, 0.0]}))
    assert not cached.has_tokens
    assert cached.encode(["a"]).shape == (1, 2)
    with pytest.raises(BackendError, match="no token embeddings"):
        cached.encode_with_tokens(["a"])


def test_get_embedder_resolves_specs_once_per_process(tmp_path: Path) -> None:
    first = get_embedder("fake", cache_dir=tmp_path)
    assert get_embedder("fake", cache_dir=tmp_path) is first
    assert get_embedder(first) is first
    fake = FakeEmbedder()
    wrapped = get_embedder(fake)
    assert isinstance(wrapped, CachedEmbedder) and wrapped.backend is fake and wrapped.cache is None
    with pytest.raises(InvalidInputError, match="'embedder' parameter"):
        get_embedder(42)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        get_embedder("  ")


def test_default_cache_dir_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path))
    assert default_cache_dir() == tmp_path / "embeddings"
    monkeypatch.delenv("ASSAY_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "assay" / "embeddings"
    monkeypatch.setenv("ASSAY_EMBED_CACHE", "off")
    assert default_cache_dir() is None
