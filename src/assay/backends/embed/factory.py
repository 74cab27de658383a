"""Turning an embedder spec (a string or an instance) into a ready, cached embedder.

Specs: ``"minilm"`` (the offline default, verified by sha256), ``"minilm-top:<head>"`` (MiniLM
with its last layer replaced by the fine-tuned copy a shipped head carries, sharing MiniLM's
pass: :mod:`assay.backends.embed.top_layer`), ``"fake"`` (the deterministic test embedder),
any Hugging Face model name (e.g. ``"BAAI/bge-small-en-v1.5"``, needs network access
once) or the path of a local sentence-transformers folder. A string spec is loaded once per
process (and cache directory) and shared by every evaluator that names it
(:mod:`assay.backends.resolve`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TypeVar

from assay.backends.embed import minilm
from assay.backends.embed.base import Embedder
from assay.backends.embed.cache import CachedEmbedder, EmbeddingCache, default_cache_dir
from assay.backends.offline import offline_mode
from assay.backends.resolve import BackendFamily, resolve

#: The spec used when none is given.
DEFAULT_SPEC = "minilm"
S = TypeVar("S")


def _minilm(argument: str) -> Embedder:
    from assay.backends.embed.sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(minilm.model_dir(), offline=True, verify_minilm=True)


def _fake(argument: str) -> Embedder:
    from assay.backends.embed.fake import FakeEmbedder

    return FakeEmbedder()


def _top(head: str) -> Embedder:
    from assay.backends.embed.top_layer import TopLayerEmbedder
    from assay.errors import InvalidInputError

    if not head:
        raise InvalidInputError("the embedder spec 'minilm-top' needs the head holding the "
                                "fine-tuned layer: 'minilm-top:<head name or folder>'")
    return TopLayerEmbedder(head, base=DEFAULT_SPEC)


def _named(spec: str) -> Embedder:
    from assay.backends.embed.sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(spec, offline=offline_mode())


def _close(embedder: Embedder) -> None:
    if isinstance(embedder, CachedEmbedder) and embedder.cache is not None:
        embedder.cache.close()


EMBEDDERS: BackendFamily[Embedder] = BackendFamily(
    "embedder", Embedder, where="get_embedder",
    expected="a spec string or an object with model_id and encode()", fallback=_named,
    # one wrapper per instance, so evaluators sharing an instance share its memory
    wrap=lambda instance: CachedEmbedder(instance, cache=None), close=_close)
for _alias in minilm.ALIASES:
    EMBEDDERS.register(_alias, _minilm)
EMBEDDERS.register("fake", _fake)
#: ``"minilm-top:<head>"``: MiniLM with its last layer replaced by a head's fine-tuned copy.
TOP_LAYER_SPEC = "minilm-top"
EMBEDDERS.register(TOP_LAYER_SPEC, _top)


def head_embedder_spec(head: str, arrays: Mapping[str, object], embedder: S) -> str | S:
    """The embedder a head reads: ``embedder``, or for a head whose ``arrays`` carry a
    fine-tuned top layer, MiniLM with its last layer replaced by the head's
    (``"minilm-top:<head>"``, sharing MiniLM's pass) — the layer was trained on MiniLM's states.

    Example:
        >>> head_embedder_spec("toxicity", {}, "minilm")
        'minilm'
        >>> head_embedder_spec("toxicity-tuned", {"top_query_W": None}, "minilm")
        'minilm-top:toxicity-tuned'
    """
    from assay.backends.embed.top_layer import has_top_layer

    return f"{TOP_LAYER_SPEC}:{head}" if has_top_layer(arrays) else embedder


def get_embedder(
    spec: str | Embedder = DEFAULT_SPEC, *, cache_dir: str | Path | None = None
) -> CachedEmbedder:
    """Resolve ``spec`` into a deduplicating, caching embedder.

    A string spec is resolved once per process (and ``cache_dir``); the on-disk cache lives in
    ``cache_dir`` or :func:`~assay.backends.embed.cache.default_cache_dir` (none for a backend
    whose ``cache_on_disk`` is False, like the fake). An instance is wrapped,
    once per process, with a memory-only cache (a :class:`CachedEmbedder` is returned as is).

    Example:
        >>> emb = get_embedder("fake", cache_dir=None)
        >>> emb.encode(["hello world"]).shape
        (1, 256)
    """
    if isinstance(spec, CachedEmbedder):
        return spec
    directory = Path(cache_dir) if cache_dir is not None else default_cache_dir()

    def build(text: str) -> CachedEmbedder:
        backend = EMBEDDERS.build(text)
        persist = getattr(backend, "cache_on_disk", True)
        cache = EmbeddingCache(directory) if directory is not None and persist else None
        return CachedEmbedder(backend, cache)

    resolved = resolve(EMBEDDERS, spec, options=None if directory is None else str(directory),
                       build=build)
    assert isinstance(resolved, CachedEmbedder)  # built and wrapped ones are
    return resolved


__all__ = ["DEFAULT_SPEC", "EMBEDDERS", "TOP_LAYER_SPEC", "get_embedder", "head_embedder_spec"]
