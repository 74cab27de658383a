"""hallucination_score: monotone, explained by the least supported sentence, offline by default."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from assay.backends.heads.store import load_head
from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.hallucination import HallucinationScore
from assay.evaluators.hallucination_signals import FEATURE_SET, SIGNALS
from assay.testing import with_test_doubles

CONTEXT = ["The monthly account fee is 5 euros. It is waived for customers under 26.",
           "Cards are sent by post within 7 days."]


def test_the_shipped_head_is_monotone_in_every_signal() -> None:
    head = load_head("hallucination")
    assert head.features == FEATURE_SET and head.n_inputs == len(SIGNALS)
    assert len(head.layers) == 1
    assert (head.layers[0][0] >= 0).all(), "a support signal lowers P(supported)"
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, size=(50, len(SIGNALS)))
    for j in range(len(SIGNALS)):
        more = x.copy()
        more[:, j] += 0.1
        assert (head.logits(more) >= head.logits(x) - 1e-9).all()


def test_a_copied_sentence_passes_and_the_same_sentence_with_a_changed_figure_fails() -> None:
    """The head is fitted at even prior odds: a copy of a context sentence is below the metric's
    0.5 (fitted on the training mix as it was, three unsupported rows to one, it scored 0.61),
    and with no signal below its training average the explanation does not invent a culprit.
    The same sentence with its figure changed keeps every other signal at full support; the
    figure cap (design note 0053) puts it past the threshold (the linear head alone: 0.49)."""
    evaluator = HallucinationScore()
    copied, changed = evaluator.evaluate([
        TestCase(id="copy", actual_answer="The monthly account fee is 5 euros.",
                 retrieved_context=CONTEXT[:1]),
        TestCase(id="changed", actual_answer="The monthly account fee is 9 euros.",
                 retrieved_context=CONTEXT[:1])])
    threshold = next(m.threshold for m in evaluator.metrics if m.name == "hallucination_score")
    assert copied.outcomes["hallucination_score"].value < threshold
    assert copied.details["reason_signal"] == "none"
    assert "cannot see" in (copied.explanation or "")
    cap = load_head("hallucination").data["p_supported_with_unstated_figure"]
    assert changed.outcomes["hallucination_score"].value == pytest.approx(1 - cap)
    assert changed.outcomes["hallucination_score"].value >= threshold
    assert changed.details["reason_signal"] == "figures_supported"
    assert "figures the context does not state: '9' (P(supported) capped" in (
        changed.explanation or "")


def test_a_conversational_opening_does_not_make_a_faithful_reply_look_invented() -> None:
    """"Oh nice!" and "Well," react to the user and state nothing the context could hold.
    Scored as claims, the reaction was the least supported sentence (0.77 for a faithful reply,
    above the 0.71 of a wrong year). A faithful reply scores as its bare claim; a changed figure
    still fails."""
    context = ["The Eiffel Tower was completed in 1889 for the World's Fair in Paris."]
    answers = ["It was completed in 1889 for the World's Fair.",
               "Oh nice! Well, it was completed in 1889 for the World's Fair.",
               "Oh nice! Well, it was completed in 1899 for the World's Fair."]
    bare, chatty, wrong = (r.outcomes["hallucination_score"].value for r in HallucinationScore(
    ).evaluate([TestCase(id=str(i), actual_answer=a, retrieved_context=context)
                for i, a in enumerate(answers)]))
    assert chatty == pytest.approx(bare)
    assert wrong > chatty + 0.2


def test_a_pronoun_one_is_not_an_unstated_figure() -> None:
    """"One" as a pronoun counts nothing; it used to be an unsupported number (and so, with the
    figure cap, would have failed a faithful answer)."""
    result = HallucinationScore().evaluate([TestCase(
        id="1", actual_answer="The monthly account fee is 5 euros for the basic one.",
        retrieved_context=CONTEXT[:1])])[0]
    assert result.details["sentences"][0]["signals"]["figures_supported"] == 0.0


def test_an_invented_fact_scores_higher_and_is_named() -> None:
    evaluator = HallucinationScore()
    cases = [
        TestCase(id="grounded", actual_answer="The monthly account fee is 5 euros.",
                 retrieved_context=CONTEXT),
        TestCase(id="invented", actual_answer=(
            "The monthly account fee is 5 euros. Gold customers in Zurich get 40 free flights."),
            retrieved_context=CONTEXT),
    ]
    grounded, invented = evaluator.evaluate(cases)
    g = grounded.outcomes["hallucination_score"]
    i = invented.outcomes["hallucination_score"]
    assert g.status is Status.OK and i.status is Status.OK
    assert 0.0 <= g.value < i.value <= 1.0  # type: ignore[operator]
    assert "Zurich" in (invented.explanation or "")
    assert invented.details["least_supported"] == 1
    assert set(invented.details["sentences"][1]["signals"]) == set(SIGNALS)


@pytest.mark.parametrize(("answer", "named"), [
    ("The monthly account fee is 9 euros.", "'9'"),  # a changed number
    ("Cards are not sent by post within 7 days.", "'not'"),  # an added negation
    ("The monthly account fee decreased to 5 euros.", "'decreased'"),  # a swapped predicate
])
def test_a_changed_detail_is_named_as_the_reason(answer: str, named: str) -> None:
    context = [*CONTEXT, "The fee increased last year."]
    faithful, edited = HallucinationScore().evaluate([
        TestCase(id="faithful", actual_answer="The monthly account fee is 5 euros.",
                 retrieved_context=context),
        TestCase(id="edited", actual_answer=answer, retrieved_context=context),
    ])
    assert edited.details["reason_signal"] in ("key_facts_supported", "figures_supported",
                                               "nli_not_contradiction")
    assert named in (edited.explanation or "")  # named as the reason or as an unsupported fact
    assert (edited.outcomes["hallucination_score"].value  # type: ignore[operator]
            > faithful.outcomes["hallucination_score"].value)


@pytest.mark.parametrize(
    ("case", "reason"),
    [
        (TestCase(id="1", actual_answer="", retrieved_context=CONTEXT), "no sentences"),
        (TestCase(id="2", actual_answer="Fees are low.", retrieved_context=[" "]), "context"),
    ],
)
def test_unscorable_cases_are_skipped_with_a_reason(case: TestCase, reason: str) -> None:
    result = with_test_doubles(HallucinationScore).evaluate([case])[0]
    outcome = result.outcomes["hallucination_score"]
    assert outcome.status is Status.SKIPPED and reason in (outcome.reason or "")


@pytest.mark.parametrize(("answer", "moved"), [
    ("Maria Lopez opened the Porto branch in 2021.", "'2021'"),  # a year from another passage
    ("Tom Reyes opened the Porto branch in 2019.", "'Tom', 'Reyes'"),  # a name from another one
])
def test_a_detail_moved_from_elsewhere_in_the_context_is_named(answer: str, moved: str) -> None:
    """Every word of the edited answer is in the context, so no key fact is unsupported: the
    alignment signal names the detail that its best-matching passage does not hold."""
    context = ["Maria Lopez opened the Porto branch in 2019. The branch serves small businesses.",
               "In 2021 the bank hired Tom Reyes to run its Lisbon office. It has 40 staff."]
    faithful, edited = HallucinationScore().evaluate([
        TestCase(id="faithful", actual_answer="Maria Lopez opened the Porto branch in 2019.",
                 retrieved_context=context),
        TestCase(id="edited", actual_answer=answer, retrieved_context=context),
    ])
    assert edited.details["reason_signal"] == "aligned_support"
    assert f"does not hold {moved}, found elsewhere" in (edited.explanation or "")
    signals = edited.details["sentences"][0]["signals"]
    assert signals["key_facts_supported"] == signals["figures_supported"] == 0.0
    assert signals["aligned_support"] < 1.0
    assert faithful.details["sentences"][0]["signals"]["aligned_support"] == 1.0
    assert (edited.outcomes["hallucination_score"].value  # type: ignore[operator]
            > faithful.outcomes["hallucination_score"].value)


def test_the_window_signals_judge_a_sentence_against_its_aligned_window_only() -> None:
    """A year moved from a distant sentence of the same passage: the passage as a whole holds
    it (no contradiction for the word-overlap test NLI), the window the claim aligns with does
    not, so only the window signal reads it as contradicted."""
    passage = ("Maria Lopez opened the Porto branch in 2019. The branch serves small businesses. "
               "Its clients are mostly shops. Most of them pay by card. In 2021 the bank hired "
               "a new manager for Lisbon.")
    result = with_test_doubles(HallucinationScore).evaluate([TestCase(
        id="moved", actual_answer="Maria Lopez opened the Porto branch in 2021.",
        retrieved_context=[passage])])[0]
    signals = result.details["sentences"][0]["signals"]
    assert signals["nli_not_contradiction"] > 0.5
    assert signals["window_not_contradiction"] < signals["nli_not_contradiction"]
    assert signals["window_entailment"] < signals["nli_entailment"]


def test_an_unrelated_passage_does_not_contradict_a_supported_sentence() -> None:
    """The NLI heads read a premise about something else as a contradiction (SNLI's habit); the
    contradiction signal is taken from the passage the sentence aligns with, so adding an
    unrelated retrieved passage changes nothing, while a contradiction of the aligned passage
    still counts."""
    evaluator = HallucinationScore()
    alone, with_unrelated, changed = evaluator.evaluate([
        TestCase(id="alone", actual_answer="The monthly account fee is 5 euros.",
                 retrieved_context=CONTEXT[:1]),
        TestCase(id="two", actual_answer="The monthly account fee is 5 euros.",
                 retrieved_context=CONTEXT),
        TestCase(id="changed", actual_answer="The monthly account fee is 9 euros.",
                 retrieved_context=CONTEXT)])
    assert with_unrelated.outcomes["hallucination_score"].value == pytest.approx(
        alone.outcomes["hallucination_score"].value, abs=1e-6)
    changed_signals = changed.details["sentences"][0]["signals"]
    copied_signals = with_unrelated.details["sentences"][0]["signals"]
    assert changed_signals["nli_not_contradiction"] < copied_signals["nli_not_contradiction"]


def test_a_combining_head_without_a_figure_cap_is_refused(tmp_path: Path) -> None:
    """A head trained before the figure cap (or by hand) would score unstated figures as the
    linear head did: refused with what to do, never used silently."""
    from assay.backends.heads.store import save_head
    from assay.errors import BackendError

    shipped = load_head("hallucination")
    save_head(tmp_path / "old", name="hallucination", labels=("supported",),
              features=FEATURE_SET, layers=shipped.layers, mean=shipped.mean,
              scale=shipped.scale, info={})
    with pytest.raises(BackendError, match=r"p_supported_with_unstated_figure.*retrain"):
        HallucinationScore(head=str(tmp_path / "old")).resolved_head()


MORTGAGE = ["The minimum deposit for a mortgage is 10% of the property price.",
            "Terms run up to 35 years, and a mortgage must end by the borrower's 75th birthday."]
TERM = "How long can a mortgage term run?"


def test_with_question_reads_a_short_answer_with_the_question_it_answers() -> None:
    """Design note 0062: "10%." to a question about the term states a figure the context holds,
    for the deposit. Read alone it is a figure the context states; read with the question, the
    window it must be found in is the one the question points to, which does not hold it."""
    right, wrong = (TestCase(id=a, question=TERM, actual_answer=a, retrieved_context=MORTGAGE)
                    for a in ("35 years.", "10%."))
    right_q, wrong_q = HallucinationScore(with_question=True).evaluate([right, wrong])
    right_alone, wrong_alone = HallucinationScore().evaluate([right, wrong])
    threshold = next(m.threshold for m in HallucinationScore.metrics
                     if m.name == "hallucination_score")
    assert right_q.outcomes["hallucination_score"].value < threshold  # type: ignore[operator]
    assert wrong_q.outcomes["hallucination_score"].value > 0.75  # type: ignore[operator]
    assert (right_alone.outcomes["hallucination_score"].value  # type: ignore[operator]
            > right_q.outcomes["hallucination_score"].value)
    assert wrong_alone.details["sentences"][0]["signals"]["aligned_support"] == 1.0
    assert wrong_q.details["sentences"][0]["signals"]["aligned_support"] == 0.0
    assert wrong_q.details["reason_signal"] == "aligned_support"
    assert "'10%.' (read with the question it answers)" in (wrong_q.explanation or "")
    assert "does not hold '10', found elsewhere" in (wrong_q.explanation or "")
    assert wrong_q.details["sentences"][0]["read_with_question"] is True


def test_by_default_and_without_a_question_the_answer_is_read_alone() -> None:
    wrong = TestCase(id="w", question=TERM, actual_answer="10%.", retrieved_context=MORTGAGE)
    unasked = wrong.model_copy(update={"question": None})
    default = HallucinationScore().evaluate([wrong])[0]
    assert "read_with_question" not in default.details["sentences"][0]
    assert "read with the question" not in (default.explanation or "")
    for alone in (HallucinationScore().evaluate([unasked])[0],
                  HallucinationScore(with_question=True).evaluate([unasked])[0]):
        assert alone.outcomes == default.outcomes and alone.details == default.details


def test_with_question_leaves_a_claim_of_more_than_five_words_as_it_was() -> None:
    long = TestCase(id="l", question=TERM, retrieved_context=MORTGAGE,
                    actual_answer="A mortgage term can run for up to 10 years.")
    with_q, default = (HallucinationScore(with_question=q).evaluate([long])[0]
                       for q in (True, False))
    assert with_q.outcomes == default.outcomes and with_q.details == default.details
    assert HallucinationScore(with_question=True).texts_to_encode(
        long.model_copy(update={"actual_answer": "10%."}))[-1] == f"{TERM} 10%."


def test_a_plan_turns_with_question_on_by_name_and_a_wrong_value_is_refused() -> None:
    from assay.errors import InvalidInputError
    from assay.evaluators.registry import get_evaluator

    assert get_evaluator("hallucination_score", with_question=True).with_question is True
    assert get_evaluator("hallucination_score").with_question is False
    with pytest.raises(InvalidInputError, match="with_question"):
        get_evaluator("hallucination_score", with_question="yes")


def test_a_bare_number_answer_is_a_claim_not_a_list_marker() -> None:
    """A whole answer "35." replies to a question asking for a figure; read as a Markdown list
    marker it was set aside as a heading and the case skipped."""
    result = HallucinationScore(with_question=True).evaluate([TestCase(
        id="n", question="Up to how many years can a mortgage term run?", actual_answer="35.",
        retrieved_context=MORTGAGE)])[0]
    assert result.outcomes["hallucination_score"].status is Status.OK
    assert result.details["sentences"][0]["sentence"] == "35."
