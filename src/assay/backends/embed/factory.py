"""Turning an embedder spec (a string or an instance) into a ready, cached embedder.

Specs: ``"minilm"`` (the offline default, verified by sha256), ``"fake"`` (the deterministic test
embedder), any Hugging Face model name (e.g. ``"BAAI/bge-small-en-v1.5"``, needs network access
once) or the path of a local sentence-transformers folder. A string spec is loaded once per
process and shared by every evaluator that names it.
"""

from __future__ import annotations

import threading
from pathlib import Path

from assay.backends.embed import minilm
from assay.backends.embed.base import Embedder
from assay.backends.embed.cache import CachedEmbedder, EmbeddingCache, default_cache_dir
from assay.backends.offline import offline_mode
from assay.params import check

#: The spec used when none is given.
DEFAULT_SPEC = "minilm"
_LOADED: dict[tuple[str, str | None], CachedEmbedder] = {}
_WRAPPED: dict[int, tuple[Embedder, CachedEmbedder]] = {}  # instance specs (kept alive here)
_LOCK = threading.Lock()


def _backend(spec: str) -> Embedder:
    if spec in minilm.ALIASES:
        from assay.backends.embed.sentence_transformers import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(minilm.model_dir(), offline=True, verify_minilm=True)
    if spec == "fake":
        from assay.backends.embed.fake import FakeEmbedder

        return FakeEmbedder()
    from assay.backends.embed.sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(spec, offline=offline_mode())


def get_embedder(
    spec: str | Embedder = DEFAULT_SPEC, *, cache_dir: str | Path | None = None
) -> CachedEmbedder:
    """Resolve ``spec`` into a deduplicating, caching embedder.

    A string spec is resolved once per process (and ``cache_dir``); the on-disk cache lives in
    ``cache_dir`` or :func:`~assay.backends.embed.cache.default_cache_dir`. An instance is wrapped,
    once per process, with a memory-only cache (a :class:`CachedEmbedder` is returned as is).

    Example:
        >>> emb = get_embedder("fake", cache_dir=None)
        >>> emb.encode(["hello world"]).shape
        (1, 256)
    """
    if isinstance(spec, CachedEmbedder):
        return spec
    if not isinstance(spec, str):
        check(
            isinstance(spec, Embedder),
            "embedder",
            "get_embedder",
            "a spec string or an object with model_id and encode()",
            spec,
        )
        with _LOCK:  # one wrapper per instance, so evaluators sharing it share its memory
            held = _WRAPPED.get(id(spec))
            if held is None or held[0] is not spec:
                held = _WRAPPED[id(spec)] = (spec, CachedEmbedder(spec, cache=None))
        return held[1]
    check(bool(spec.strip()), "embedder", "get_embedder", "a non-empty spec", spec)
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    key = (spec, None if directory is None else str(directory))
    with _LOCK:
        loaded = _LOADED.get(key)
        if loaded is None:
            backend = _backend(spec)
            cache = None if directory is None or spec == "fake" else EmbeddingCache(directory)
            loaded = _LOADED[key] = CachedEmbedder(backend, cache)
    return loaded


def clear_loaded() -> None:
    """Forget the embedders loaded in this process (tests and benchmarks use it)."""
    with _LOCK:
        for embedder in _LOADED.values():
            if embedder.cache is not None:
                embedder.cache.close()
        _LOADED.clear()
        _WRAPPED.clear()
