"""BERTScore-style token matching: formula, references, skips and missing token access."""

from __future__ import annotations

import numpy as np
import pytest

from assay.backends.embed.fake import FakeEmbedder, TableEmbedder
from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.embedding_bertscore import EmbBertScore, EmbContextBertScore, bertscore


def test_greedy_matching_formula_against_a_direct_computation() -> None:
    rng = np.random.default_rng(0)
    cand, ref = rng.normal(size=(4, 8)), rng.normal(size=(6, 8))
    cand /= np.linalg.norm(cand, axis=1, keepdims=True)
    ref /= np.linalg.norm(ref, axis=1, keepdims=True)
    p, r, f, best = bertscore(cand, ref)
    sims = cand @ ref.T
    assert p == pytest.approx(sims.max(1).mean()) and r == pytest.approx(sims.max(0).mean())
    if p > 0 and r > 0:
        assert f == pytest.approx(2 * p * r / (p + r))
    assert np.allclose(best, sims.max(1))


def test_identical_answers_score_one_and_scores_use_fake_tokens() -> None:
    fake = FakeEmbedder()
    same, partial = EmbBertScore(embedder=fake).evaluate(
        [
            TestCase(
                id="1", actual_answer="The fee is 12 euros.", expected_answer="The fee is 12 euros."
            ),
            TestCase(
                id="2",
                actual_answer="The fee is 12 euros.",
                expected_answer="Fee waived. Call now.",
            ),
        ]
    )
    assert all(o.value == pytest.approx(1.0, abs=1e-3) for o in same.outcomes.values())
    _, tokens = FakeEmbedder().encode_with_tokens(
        ["The fee is 12 euros.", "Fee waived.", "Call now."]
    )
    cand, ref = (
        tokens[0].astype(np.float16).astype(np.float32),
        np.vstack(tokens[1:]).astype(np.float16).astype(np.float32),
    )
    p, r, f, _ = bertscore(cand, ref)
    got = {k: o.value for k, o in partial.outcomes.items()}
    assert got == pytest.approx(
        {"emb_bertscore_precision": p, "emb_bertscore_recall": r, "emb_bertscore_f1": f}, abs=1e-6
    )


def test_context_variant_reports_the_least_supported_answer_sentence() -> None:
    (result,) = EmbContextBertScore(embedder=FakeEmbedder()).evaluate(
        [
            TestCase(
                id="1",
                actual_answer="The fee is 12 euros. Penguins dance quietly.",
                retrieved_context=["The monthly fee is 12 euros.", "Cards cost extra."],
            )
        ]
    )
    assert result.outcomes["emb_context_bertscore_precision"].status is Status.OK
    precision = result.details["sentence_precision"]
    assert precision[0] > precision[1] and "Penguins dance quietly." in (result.explanation or "")


def test_an_embedder_without_tokens_gives_an_error_with_a_reason() -> None:
    table = TableEmbedder({"a": [1.0], "b": [1.0]})
    (result,) = EmbBertScore(embedder=table).evaluate(
        [TestCase(id="1", actual_answer="a", expected_answer="b")]
    )
    outcome = result.outcomes["emb_bertscore_f1"]
    assert outcome.status is Status.ERROR and "no token embeddings" in (outcome.reason or "")
