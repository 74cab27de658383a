"""Conformance of the lexical evaluators (looping, ROUGE, BLEU, token F1, exact match, lexical
groundedness) with their reference definitions: H2O Sonar's evaluator catalogue, the
six-dimension validation framework (ROUGE-L with β ≈ 1.2) and the reference implementations
(rouge-score, sacrebleu, the SQuAD script)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from assay.data import read_suite, write_suite
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.lexical_bleu import Bleu, tokenize_13a
from assay.evaluators.lexical_groundedness import LexicalGroundedness
from assay.evaluators.lexical_rouge import Rouge, rouge
from assay.evaluators.looping import Looping
from assay.evaluators.qa import ExactMatch, TokenF1, token_f1


def _looping(text: str) -> dict[str, float | None]:
    result = Looping().evaluate([TestCase(id="q", actual_answer=text)])[0]
    return {name: o.value for name, o in result.outcomes.items()}


def test_looping_primary_metric_is_the_unique_sentence_score() -> None:
    # H2O Sonar looping evaluator: unique sentences primary (threshold 0.75); compression ratio
    # = compressed / original bytes, capped at 1, higher is better
    assert Looping.primary_metric().name == "unique_sentence_ratio"
    assert Looping.metric("unique_sentence_ratio").threshold == 0.75
    compression = Looping.metric("compression_ratio")
    assert compression.higher_is_better and compression.range == (0.0, 1.0)
    assert _looping("Yes.")["compression_ratio"] == 1.0


def test_short_idioms_are_not_loops() -> None:
    # "New York, New York." scored 0.84 on repeated_substring_score and failed
    for idiom in ("New York, New York.", "Yes, yes.", "Step by step, day by day."):
        values = _looping(idiom)
        assert values["repeated_substring_score"] == 0.0, idiom
        assert Looping.metric("repeated_substring_score").passes(values["repeated_substring_score"])
    loop = "I can help with that. " * 8
    values = _looping(loop)
    assert values["repeated_substring_score"] > 0.5
    assert values["unique_sentence_ratio"] == pytest.approx(1 / 8)
    assert values["compression_ratio"] < 1 / 3


# --- ROUGE -----------------------------------------------------------------------------------

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")


def test_rouge_defaults_are_the_catalogue_s() -> None:
    # H2O Sonar ROUGE evaluator: rouge-score with use_stemmer=True, ROUGE-L F1 primary
    assert Rouge().use_stemmer is True
    assert Rouge.primary_metric().name == "rougeL_f1"


def test_rouge_l_beta_is_lins_f_measure() -> None:
    # Lin 2004: F_lcs = (1 + β²) R P / (R + β² P); the validation framework uses β ≈ 1.2
    expected, actual = "the monthly fee is 12 euros", "the fee is 12 euros a month"
    plain = Rouge().evaluate([TestCase(id="q", expected_answer=expected, actual_answer=actual)])
    weighted = Rouge(beta=1.2).evaluate(
        [TestCase(id="q", expected_answer=expected, actual_answer=actual)]
    )
    p = plain[0].outcomes["rougeL_precision"].value
    r = plain[0].outcomes["rougeL_recall"].value
    assert p is not None and r is not None
    f_beta = (1 + 1.44) * p * r / (r + 1.44 * p)
    assert weighted[0].outcomes["rougeL_f1"].value == pytest.approx(f_beta)
    assert plain[0].outcomes["rougeL_f1"].value == pytest.approx(2 * p * r / (p + r))
    with pytest.raises(InvalidInputError, match="'beta' parameter"):
        Rouge(beta=0)


def test_rouge_lsum_equals_rouge_score() -> None:
    scorer = rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)
    expected = "The fee is 12 euros.\nIt is waived for students.\nCards are free."
    actual = "Students pay no fee.\nThe fee is 12 euros a month.\nCards cost nothing."
    reference = scorer.score(expected, actual)["rougeLsum"]
    [result] = Rouge().evaluate([TestCase(id="q", expected_answer=expected, actual_answer=actual)])
    assert result.outcomes["rougeLsum_f1"].value == reference.fmeasure
    assert result.outcomes["rougeLsum_recall"].value == reference.recall
    assert tuple(rouge(expected, actual, ["rougeLsum"], True)["rougeLsum"]) == tuple(reference)


@pytest.mark.parametrize("text", ["Плата составляет 12 евро в месяц.", "每月费用为十二欧元。"])
def test_non_latin_scripts_are_never_a_silent_zero(text: str) -> None:
    case = TestCase(id="q", expected_answer=text, actual_answer=text)
    [auto] = Rouge().evaluate([case])
    assert auto.outcomes["rougeL_f1"].value == 1.0 and auto.details["tokenizer"] == "unicode"
    # rouge-score's own tokeniser drops these scripts: skipped with the reason, not 0
    [latin] = Rouge(tokenizer="rouge_score").evaluate([case])
    outcome = latin.outcomes["rougeL_f1"]
    assert outcome.status is Status.SKIPPED and "tokenizer='unicode'" in (outcome.reason or "")


def test_several_references_take_rouge_score_multi() -> None:
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"], use_stemmer=True)
    refs = ["The fee is 12 euros a month.", "It costs twelve euros monthly.", "Twelve euros."]
    actual = "It costs 12 euros each month."
    reference = scorer.score_multi(refs, actual)
    [result] = Rouge().evaluate([TestCase(id="q", expected_answer=refs, actual_answer=actual)])
    for kind in ("rouge1", "rouge2", "rougeL"):
        assert result.outcomes[f"{kind}_f1"].value == reference[kind].fmeasure
        assert result.outcomes[f"{kind}_precision"].value == reference[kind].precision
    assert result.details["n_references"] == 3


# --- BLEU ------------------------------------------------------------------------------------


def test_bleu_several_references_equal_sacrebleu() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    refs = ["The fee is 12 euros a month.", "It costs twelve euros per month."]
    actual = "It costs 12 euros per month."
    [result] = Bleu().evaluate([TestCase(id="q", expected_answer=refs, actual_answer=actual)])
    assert result.outcomes["bleu4"].value == pytest.approx(
        sacrebleu.sentence_bleu(actual, refs).score / 100, abs=1e-12
    )
    floor = sacrebleu.metrics.BLEU(smooth_method="floor", effective_order=True)
    [floored] = Bleu(smooth_method="floor").evaluate(
        [TestCase(id="q", expected_answer=refs, actual_answer="Twelve euros, it costs.")]
    )
    expected = floor.sentence_score("Twelve euros, it costs.", refs).score / 100
    assert floored.outcomes["bleu4"].value == pytest.approx(expected, abs=1e-12)


def test_bleu_corpus_with_variable_references_equals_sacrebleu() -> None:
    sacrebleu = pytest.importorskip("sacrebleu")
    hyps = ["The fee is 12 euros.", "Cards are free.", "Transfers take a day."]
    first = ["The fee is 12 euros a month.", "Card payments are free.", "Transfers take 1 day."]
    second = ["It costs 12 euros.", None, "A transfer takes one working day."]
    cases = [
        TestCase(id=str(i), actual_answer=h, expected_answer=[r for r in (a, b) if r])
        for i, (h, a, b) in enumerate(zip(hyps, first, second, strict=True))
    ]
    evaluator = Bleu()
    accumulator = evaluator.corpus_accumulator()
    accumulator.add(cases, evaluator.evaluate(cases))
    corpus = sacrebleu.corpus_bleu(hyps, [first, second]).score / 100
    assert accumulator.finish()["corpus_bleu"] == pytest.approx(corpus, abs=1e-12)


# --- SQuAD token F1 and exact match ----------------------------------------------------------


def test_token_f1_and_exact_match_take_the_best_reference() -> None:
    # SQuAD v1.1: metric_max_over_ground_truths
    refs = ["12 euros a month", "twelve euros"]
    case = TestCase(id="q", expected_answer=refs, actual_answer="Twelve euros.")
    [f1] = TokenF1().evaluate([case])
    [em] = ExactMatch().evaluate([case])
    assert f1.outcomes["token_f1"].value == max(token_f1("Twelve euros.", r) for r in refs) == 1.0
    assert em.outcomes["exact_match"].value == 1.0


def test_several_references_in_the_data_model_and_files(tmp_path: Path) -> None:
    case = TestCase(id="q", expected_answer=["a", "b"])
    assert case.expected_answer == "a" and case.references == ["a", "b"]
    with pytest.raises(ValueError, match="first of expected_answers"):
        TestCase(id="q", expected_answer="b", expected_answers=["a", "b"])
    with pytest.raises(ValueError, match="non-empty list"):
        TestCase(id="q", expected_answers=[])
    for name in ("suite.jsonl", "suite.csv"):
        write_suite([case], tmp_path / name)
        [back] = read_suite(tmp_path / name)
        assert back.references == ["a", "b"], name
    path = tmp_path / "given.jsonl"
    path.write_text('{"id": "1", "expected_answer": ["x", "y"], "actual_answer": "y"}\n')
    [given] = read_suite(path)
    assert given.references == ["x", "y"]
    assert ExactMatch().evaluate([given])[0].outcomes["exact_match"].value == 1.0


# --- lexical groundedness --------------------------------------------------------------------


def test_lexical_groundedness_scores_the_answer_against_the_context() -> None:
    context = ["The Everyday account fee is 4.50 euros a month.", "Cards are free."]
    copied = TestCase(
        id="a",
        actual_answer="The Everyday account fee is 4.50 euros a month.",
        retrieved_context=context,
    )
    invented = TestCase(
        id="b",
        actual_answer="The fee is 9 dollars, charged weekly by post.",
        retrieved_context=context,
    )
    [good, bad] = LexicalGroundedness().evaluate([copied, invented])
    for metric in LexicalGroundedness.metric_names():
        assert good.outcomes[metric].value == 1.0, metric
        assert (bad.outcomes[metric].value or 0) < 0.7, metric
    # ROUGE-1 precision is rouge-score's with the context as the target
    reference = rouge_scorer.RougeScorer(["rouge1"]).score(
        "\n".join(context), invented.actual_answer
    )
    assert (
        bad.outcomes["lexical_groundedness_rouge1_precision"].value == reference["rouge1"].precision
    )
    empty = TestCase(id="c", actual_answer="x", retrieved_context=[""])
    assert (
        LexicalGroundedness()
        .evaluate([empty])[0]
        .outcomes["lexical_groundedness_rougeL_precision"]
        .status
        is Status.SKIPPED
    )


def test_bleu_primary_metric_and_threshold_are_the_catalogue_s() -> None:
    # H2O Sonar BLEU evaluator: BLEU-1 primary, default metric threshold 0.75
    assert Bleu.primary_metric().name == "bleu1"
    assert Bleu.metric("bleu1").threshold == 0.75


def test_bleu_individual_orders_equal_nltk_sentence_bleu() -> None:
    # the catalogue's BLEU-n: nltk sentence_bleu with all weight on order n, no smoothing
    bleu_score = pytest.importorskip("nltk.translate.bleu_score")
    expected = "The monthly fee of the Everyday account is 4.50 euros."
    actual = "The Everyday account costs 4.50 euros each month."
    [result] = Bleu(ngram_weights="individual").evaluate(
        [TestCase(id="q", expected_answer=expected, actual_answer=actual)]
    )
    weights = [(1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1)]
    with warnings.catch_warnings():  # nltk warns about orders without a match
        warnings.simplefilter("ignore")
        reference = bleu_score.sentence_bleu(
            [list(tokenize_13a(expected))], list(tokenize_13a(actual)), weights=weights
        )
    for n in range(1, 5):
        assert result.outcomes[f"bleu{n}"].value == pytest.approx(reference[n - 1], abs=1e-12)
    [cumulative] = Bleu().evaluate(
        [TestCase(id="q", expected_answer=expected, actual_answer=actual)]
    )
    assert cumulative.outcomes["bleu1"].value == pytest.approx(result.outcomes["bleu1"].value)
