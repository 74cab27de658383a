"""Perplexity and GPTScore evaluators (hand-checked with the fake LM, then a tiny real GPT-2)."""

from __future__ import annotations

import numpy as np
import pytest

from assay.backends.lm import score_text
from assay.backends.lm.fake import FakeLM
from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import Status
from assay.evaluators.gptscore import (
    GPTScoreQA,
    GPTScoreSummary,
    GPTScoreSummaryRef,
    GPTScoreTranslation,
    build_prompt,
)
from assay.evaluators.perplexity import LMPerplexity


def case(**fields: str) -> TestCase:
    return TestCase(id="c", model="m", **fields)


def test_perplexity_is_exp_mean_nll_of_the_answer() -> None:
    lm = FakeLM()
    result, empty = LMPerplexity(lm=lm).evaluate([case(actual_answer="fee fee fee"),
                                                  case(actual_answer="  ")])
    expected = np.exp(-np.mean([np.log(1 / 1001), np.log(2 / 1002), np.log(3 / 1003)]))
    assert result.outcomes["lm_perplexity"].value == pytest.approx(expected)
    assert result.details["n_tokens"] == 3 and result.details["windows"] == 1
    assert empty.outcomes["lm_perplexity"].status is Status.SKIPPED


def test_repetitive_answer_has_lower_perplexity_than_varied_one() -> None:
    low, high = LMPerplexity(lm=FakeLM()).evaluate(
        [case(actual_answer="fee fee fee fee"), case(actual_answer="alpha beta gamma delta")])
    assert low.outcomes["lm_perplexity"].value < high.outcomes["lm_perplexity"].value


def test_gptscore_scores_the_target_under_the_template() -> None:
    lm = FakeLM()
    doc, summary = "The fee is 12 euros.", "Fee 12 euros."
    result = GPTScoreSummary(lm=lm, aspects=["fluency"]).evaluate(
        [case(actual_answer=summary, retrieved_context=[doc])])[0]  # type: ignore[arg-type]
    expected = score_text(lm, summary, prompt=build_prompt("summarization", "fluency", doc))
    assert result.outcomes["gptscore_summary_fluency"].value == pytest.approx(-expected.mean_nll)
    assert set(result.details["aspects"]) == {"fluency"}
    skipped = result.outcomes["gptscore_summary_semantic_coverage"]
    assert skipped.status is Status.SKIPPED and "not selected" in (skipped.reason or "")


def test_reference_based_gptscore_averages_both_directions() -> None:
    lm = FakeLM()
    ref, hyp = "The fee is 12 euros a month.", "It costs 12 euros monthly."
    for cls, task, aspect in [
        (GPTScoreSummaryRef, "summarization_ref", "factuality"),
        (GPTScoreTranslation, "translation", "accuracy"),
    ]:
        result = cls(lm=lm).evaluate([case(expected_answer=ref, actual_answer=hyp)])[0]
        forward = score_text(lm, hyp, prompt=build_prompt(task, aspect, ref))
        backward = score_text(lm, ref, prompt=build_prompt(task, aspect, hyp))
        assert result.outcomes[f"{cls.name}_{aspect}"].value == pytest.approx(
            -(forward.mean_nll + backward.mean_nll) / 2)
        assert result.details["directions"] == 2


def test_gptscore_qa_scores_answer_yes_after_the_conversation() -> None:
    lm = FakeLM()
    [result] = GPTScoreQA(lm=lm).evaluate(
        [case(question="What is the fee?", actual_answer="The fee is 12.")])
    prompt = build_prompt("qa", "correctness", "\nhuman: What is the fee?\nAI: The fee is 12.")
    expected = score_text(lm, "Answer: Yes", prompt=prompt)
    assert result.outcomes["gptscore_qa_correctness"].value == pytest.approx(-expected.mean_nll)


def test_gptscore_metrics_are_derived_from_the_name_and_task() -> None:
    declared = {cls.name: (cls.metric_names(), cls.primary_metric().name)
                for cls in (GPTScoreSummary, GPTScoreSummaryRef, GPTScoreTranslation, GPTScoreQA)}
    assert declared == {  # the metric names the evaluators had when each spelt them out
        "gptscore_summary": (
            [f"gptscore_summary_{a}" for a in ("semantic_coverage", "factuality", "consistency",
                                               "informativeness", "coherence", "relevance",
                                               "fluency")],
            "gptscore_summary_semantic_coverage"),
        "gptscore_summary_ref": (
            [f"gptscore_summary_ref_{a}" for a in ("semantic_coverage", "factuality",
                                                   "informativeness", "coherence", "relevance",
                                                   "fluency")],
            "gptscore_summary_ref_semantic_coverage"),
        "gptscore_translation": (
            ["gptscore_translation_accuracy", "gptscore_translation_fluency",
             "gptscore_translation_mqm"], "gptscore_translation_accuracy"),
        "gptscore_qa": (
            [f"gptscore_qa_{a}" for a in ("interest", "engagement", "understandability",
                                          "relevance", "specific", "correctness",
                                          "semantically_appropriate", "fluency")],
            "gptscore_qa_interest"),
    }

    class Renamed(GPTScoreQA):  # a subclass under another name scores into its own metrics
        name = "gptscore_chat"

    assert Renamed.metric_names()[0] == "gptscore_chat_interest"
    assert GPTScoreQA.metric_names()[0] == "gptscore_qa_interest"
    [result] = Renamed(lm=FakeLM(), aspects=["fluency"]).evaluate(
        [case(question="What is the fee?", actual_answer="The fee is 12.")])
    assert result.outcomes["gptscore_chat_fluency"].status is Status.OK
    assert result.outcomes["gptscore_chat_interest"].status is Status.SKIPPED
    assert set(result.outcomes) == set(Renamed.metric_names())


def test_unknown_aspect_is_rejected() -> None:
    with pytest.raises(InvalidInputError, match="aspects"):
        GPTScoreSummary(lm=FakeLM(), aspects=["humour"])
    with pytest.raises(InvalidInputError, match="aspects"):
        GPTScoreSummary(lm=FakeLM(), aspects="fluency")


def test_lm_evaluators_run_on_a_tiny_real_gpt2() -> None:
    pytest.importorskip("transformers")
    cases = [case(question="what is the fee ?", expected_answer="the fee is 12 euros .",
                  actual_answer=" ".join(["the fee is 12 euros ."] * 30))]
    for evaluator in (LMPerplexity("tiny", stride=16), GPTScoreSummaryRef("tiny"),
                      GPTScoreQA("tiny")):
        result = evaluator.evaluate(cases)[0]
        for outcome in result.outcomes.values():
            assert outcome.status is Status.OK, outcome.reason
    ppl = LMPerplexity("tiny", stride=16).evaluate(cases)[0]
    assert ppl.details["windows"] > 1
