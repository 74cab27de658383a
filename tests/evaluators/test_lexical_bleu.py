"""BLEU: sentence BLEU-1..4 and corpus BLEU equal to sacrebleu under the documented settings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lexical_pairs import answer_pairs

from assay import TestCase, evaluate
from assay.evaluators import get_evaluator
from assay.evaluators.lexical_bleu import bleu_from_statistics, bleu_statistics, tokenize_13a

sacrebleu_metrics = pytest.importorskip("sacrebleu.metrics")
BLEU = sacrebleu_metrics.BLEU

EDGE = [
    ("", ""),
    ("", "a b"),
    ("a b", ""),
    ("x &amp; y-\nz <skipped>", "x & y z"),
    ("Rates 1,000.50-2,000 (p.a.).", "Rates: 1,000.50 - 2,000 p.a."),
    ("  x  ", "x\n"),
]


def test_13a_tokeniser_equals_sacrebleu() -> None:
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    reference = Tokenizer13a()
    for text in [t for pair in answer_pairs(400, seed=2) + EDGE for t in pair]:
        assert " ".join(tokenize_13a(text)) == reference(text.rstrip())


@given(st.lists(st.sampled_from([*"ab9 0.,-&;:/()[]{}<>\"'!?$%@#~^_|`+*=\n\t",
                                 "&quot;", "&amp;", "<skipped>", "-\n", "é", "  "]),
                max_size=40).map("".join))
@settings(max_examples=400, deadline=None)
def test_13a_tokeniser_equals_sacrebleu_on_punctuation_runs(text: str) -> None:
    """Runs of spaces, punctuation next to digits and entities: the per-character padding (no
    padding of spaces) gives sacrebleu's tokens."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    assert " ".join(tokenize_13a(text, cache=False)) == Tokenizer13a()(text.rstrip())


@pytest.mark.parametrize("lowercase", [False, True])
@pytest.mark.parametrize("order", [1, 2, 3, 4])
def test_sentence_bleu_identical_to_sacrebleu(order: int, lowercase: bool) -> None:
    metric = BLEU(max_ngram_order=order, effective_order=True, lowercase=lowercase)
    for expected, actual in answer_pairs(300, seed=order) + EDGE:
        reference = metric.sentence_score(actual, [expected]).score
        assert (
            bleu_from_statistics(bleu_statistics(actual, expected, lowercase), order) == reference
        )


def test_sentence_bleu4_equals_sacrebleu_sentence_bleu_function() -> None:
    import sacrebleu

    for expected, actual in answer_pairs(200, seed=9):
        [result] = get_evaluator("bleu").evaluate(
            [TestCase(id="1", expected_answer=expected, actual_answer=actual)]
        )
        # values past the range by float rounding (100.00000000000004) are clipped to it
        expected_value = min(sacrebleu.sentence_bleu(actual, [expected]).score / 100, 1.0)
        assert result.outcomes["bleu4"].value == expected_value


def test_corpus_bleu_per_model_equals_sacrebleu_corpus_bleu() -> None:
    import sacrebleu

    pairs = answer_pairs(300, seed=11)
    cases = [
        TestCase(id=str(i), model="a" if i % 3 else "b", expected_answer=e, actual_answer=a)
        for i, (e, a) in enumerate(pairs)
    ]
    run = evaluate(cases, ["bleu"], batch_size=97)
    for model in ("a", "b"):
        mine = [c for c in cases if c.model == model]
        reference = sacrebleu.corpus_bleu(
            [c.actual_answer or "" for c in mine], [[c.expected_answer or "" for c in mine]]
        ).score
        assert run.metric(model, "corpus_bleu") == reference / 100
        assert run.metric(model, "corpus_bleu") != run.metric(model, "bleu4")


def test_corpus_accumulator_ignores_unscored_cases() -> None:
    evaluator = get_evaluator("bleu")
    accumulator = evaluator.corpus_accumulator()
    assert accumulator.finish() == {"corpus_bleu": None}
    cases = [
        TestCase(id="1", expected_answer="a b c d e", actual_answer="a b c d e"),
        TestCase(id="2"),
    ]
    accumulator.add(cases, evaluator.evaluate(cases))
    assert accumulator.finish()["corpus_bleu"] == pytest.approx(1.0)
    assert accumulator.n_segments == 1


def test_explanation_and_details() -> None:
    [result] = get_evaluator("bleu").evaluate(
        [TestCase(id="1", expected_answer="the cat sat down", actual_answer="the cat sat")]
    )
    assert result.details["stats"] == [3, 4, 3, 2, 1, 0, 3, 2, 1, 0]
    assert "BLEU-4" in (result.explanation or "")
    [other] = get_evaluator("bleu").evaluate(
        [
            TestCase(
                id="1", expected_answer="the cat sat on the mat", actual_answer="the cat on the mat"
            )
        ]
    )
    assert (
        other.outcomes["bleu1"].value
        > other.outcomes["bleu2"].value
        > other.outcomes["bleu4"].value
    )


@pytest.mark.parametrize(
    ("smooth_method", "smooth_value"),
    [("exp", None), ("floor", None), ("floor", 0.3), ("add-k", None), ("none", None)],
)
def test_sentence_bleus_equal_four_separate_computations(
    smooth_method: str, smooth_value: float | None
) -> None:
    import random

    from assay.evaluators.lexical_bleu import bleu_from_statistics, sentence_bleus

    rng = random.Random(0)
    for _ in range(3000):
        hyp_len, ref_len = rng.randint(0, 8), rng.randint(0, 8)
        total = [max(hyp_len - n, 0) for n in range(4)]
        correct = [rng.randint(0, t) for t in total]
        stats = [hyp_len, ref_len, *correct, *total]
        expected = [
            bleu_from_statistics(stats, n, True, smooth_method, smooth_value) for n in range(1, 5)
        ]
        assert sentence_bleus(stats, smooth_method, smooth_value) == expected  # bit for bit
