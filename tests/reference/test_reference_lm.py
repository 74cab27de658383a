"""GPTScore evaluators against the reference catalogue (H2O Sonar's GPTScore evaluators, which
take the templates of Fu et al., "GPTScore: Evaluate as You Desire", 2023).

Each test names the reference evaluator whose aspects, templates and primary metric it checks.
"""

from __future__ import annotations

import pytest

from assay.backends.lm import score_text
from assay.backends.lm.fake import FakeLM
from assay.data.case import TestCase
from assay.evaluators.gptscore import (
    TEMPLATES,
    GPTScoreQA,
    GPTScoreSummary,
    GPTScoreSummaryRef,
    GPTScoreTranslation,
    build_prompt,
)

# "Summarization without reference (GPT Score)": aspect -> instruction, then "\n\nTl;dr\n".
SUMMARY = {
    "semantic_coverage": "Generate a summary with as much semantic coverage as possible for the "
    "following text: {src}",
    "factuality": "Generate a summary with consistent facts for the following text: {src}",
    "consistency": "Generate factually consistent summary for the following text: {src}",
    "informativeness": "Generate an informative summary that captures the key points of the "
    "following text: {src}",
    "coherence": "Generate a coherent summary for the following text: {src}",
    "relevance": "Generate a relevant summary with consistent details for the following text: "
    "{src}",
    "fluency": "Generate a fluent and grammatical summary for the following text: {src}",
}
# "Summarization with reference (GPT Score)": "<instruction> {ref_hypo} In other words, ".
SUMMARY_REF = {
    "semantic_coverage": "Rewrite the following text with the same semantics.",
    "factuality": "Rewrite the following text with consistent facts.",
    "informativeness": "Rewrite the following text with its core information.",
    "coherence": "Rewrite the following text into a coherent text.",
    "relevance": "Rewrite the following text with consistent details.",
    "fluency": "Rewrite the following text into a fluent and grammatical text.",
}
# "Machine translation (GPTScore)": "<instruction>: {ref_hypo} In other words, ".
TRANSLATION = {
    "accuracy": "Rewrite the following text with its core information and consistent facts",
    "fluency": "Rewrite the following text to make it more grammatical and well-written",
    "mqm": "Rewrite the following text into high-quality text with its core information",
}
# "Question answering (GPTScore)": "Are the responses of AI <what>? (a) Yes. (b) No."
QA = {
    "interest": "interesting",
    "engagement": "engaging",
    "understandability": "understandable",
    "relevance": "relevant to the conversation",
    "specific": "generic or specific to the conversation",
    "correctness": "correct to conversations",
    "semantically_appropriate": "semantically appropriate",
    "fluency": "fluently written",
}


def test_summarization_without_reference_aspects_and_templates() -> None:
    assert list(TEMPLATES["summarization"]) == list(SUMMARY)
    for aspect, instruction in SUMMARY.items():
        assert build_prompt("summarization", aspect, "DOC") == (
            instruction.format(src="DOC") + "\n\nTl;dr\n")
    names = GPTScoreSummary.metric_names()
    assert names == [f"gptscore_summary_{a}" for a in SUMMARY]
    assert GPTScoreSummary.primary_metric().name == "gptscore_summary_semantic_coverage"


def test_summarization_with_reference_aspects_and_templates() -> None:
    assert list(TEMPLATES["summarization_ref"]) == list(SUMMARY_REF)
    for aspect, instruction in SUMMARY_REF.items():
        assert build_prompt("summarization_ref", aspect, "REF") == (
            f"{instruction} REF In other words, ")
    assert GPTScoreSummaryRef.primary_metric().name == "gptscore_summary_ref_semantic_coverage"


def test_machine_translation_aspects_and_templates() -> None:
    assert list(TEMPLATES["translation"]) == list(TRANSLATION)
    for aspect, instruction in TRANSLATION.items():
        assert build_prompt("translation", aspect, "REF") == f"{instruction}: REF In other words, "
    assert GPTScoreTranslation.primary_metric().name == "gptscore_translation_accuracy"


def test_question_answering_aspects_and_templates() -> None:
    assert list(TEMPLATES["qa"]) == list(QA)
    history = "\nhuman: What is the fee?\nAI: 12 euros."
    for aspect, what in QA.items():
        assert build_prompt("qa", aspect, history) == (
            "Answer the question based on the conversation between a human and AI.\n"
            f"Question: Are the responses of AI {what}? (a) Yes. (b) No.\n"
            f"Conversation: {history}\n")
    assert GPTScoreQA.primary_metric().name == "gptscore_qa_interest"


def test_every_aspect_is_scored_in_one_run_as_the_mean_log_likelihood() -> None:
    # GPTScore(h|d, a, S) = mean_t log p(h_t | h_<t, T(d, a, S)); with a reference, both
    # directions averaged (reference -> hypothesis, hypothesis -> reference).
    lm = FakeLM()
    ref, hyp = "The fee is 12 euros a month.", "It costs 12 euros monthly."
    [result] = GPTScoreSummaryRef(lm=lm).evaluate(
        [TestCase(id="c", expected_answer=ref, actual_answer=hyp)])
    for aspect in SUMMARY_REF:
        prompt = TEMPLATES["summarization_ref"][aspect]
        forward = score_text(lm, hyp, prompt=prompt.format(src=ref))
        backward = score_text(lm, ref, prompt=prompt.format(src=hyp))
        assert result.outcomes[f"gptscore_summary_ref_{aspect}"].value == pytest.approx(
            -(forward.mean_nll + backward.mean_nll) / 2)


def test_question_answering_target_is_answer_yes() -> None:
    lm = FakeLM()
    [result] = GPTScoreQA(lm=lm, aspects=["interest"]).evaluate(
        [TestCase(id="c", question="What is the fee?", actual_answer="12 euros.")])
    prompt = build_prompt("qa", "interest", "\nhuman: What is the fee?\nAI: 12 euros.")
    expected = score_text(lm, "Answer: Yes", prompt=prompt)
    assert result.outcomes["gptscore_qa_interest"].value == pytest.approx(-expected.mean_nll)
