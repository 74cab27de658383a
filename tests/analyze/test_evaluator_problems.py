"""Evaluator-specific problems reach problems.json (issue 18: "input over the model's token
limit, empty embeddings, too few cases for a corpus metric ... as the reference's problems do")."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

import assay
from assay import TestCase
from assay.backends.classify.fake import KeywordClassifier, bias_words
from assay.backends.embed.fake import TableEmbedder
from assay.backends.nli import NLIScores
from assay.backends.nli.fake import FakeNLI
from assay.evaluators.base import Status
from assay.evaluators.bias import Bias
from assay.evaluators.embedding_drift import EmbQuestionsDrift
from assay.evaluators.embedding_groundedness import EmbGroundedness
from assay.evaluators.nli_faithfulness import NLIFaithfulness
from assay.evaluators.nli_groundedness import NLIGroundedness
from assay.testing.doubles import with_test_doubles


def _problems(cases: list[TestCase], evaluators: list[Any], tmp_path: Path) -> list[dict[str, Any]]:
    run = assay.evaluate(cases, evaluators, out=tmp_path / "run")
    on_disk = json.loads((tmp_path / "run" / "problems.json").read_text())
    assert on_disk == json.loads(json.dumps(run.problems, default=str))
    return [p for p in on_disk if p["kind"] == "evaluator_problem"]


def test_input_over_the_token_limit_is_a_problem(tmp_path: Path) -> None:
    model = KeywordClassifier(bias_words(), categories=("Non-biased", "Biased"), max_tokens=10)
    cases = [TestCase(id="short", model="m", actual_answer="People are nice."),
             TestCase(id="long", model="m", actual_answer=" ".join(["People are nice."] * 5))]
    [found] = _problems(cases, [Bias(classifier=model)], tmp_path)
    assert (found["problem"], found["evaluator"], found["model"]) == ("token_limit", "bias", "m")
    assert found["evidence"] == {"n_cases": 1, "case_ids": ["long"]}
    assert "10-token limit" in found["message"]


def test_an_empty_embedding_is_an_error_and_a_problem_never_a_silent_zero(tmp_path: Path) -> None:
    table = TableEmbedder({"The fee is 12 euros.": [1.0, 0.0], "Fees are 12 euros.": [0.9, 0.1],
                           "###": [0.0, 0.0]})
    cases = [TestCase(id="ok", model="m", actual_answer="The fee is 12 euros.",
                      retrieved_context=["Fees are 12 euros."]),
             TestCase(id="empty", model="m", actual_answer="###",
                      retrieved_context=["Fees are 12 euros."])]
    evaluator = EmbGroundedness(embedder=table)  # type: ignore[arg-type]
    ok, empty = evaluator.evaluate(cases)
    assert ok.outcomes["emb_groundedness_min"].status is Status.OK
    assert empty.outcomes["emb_groundedness_min"].status is Status.ERROR
    [found] = _problems(cases, [EmbGroundedness(embedder=table)], tmp_path)  # type: ignore[arg-type]
    assert found["problem"] == "empty_embedding" and found["evidence"]["case_ids"] == ["empty"]


def test_too_few_cases_for_a_corpus_metric_is_a_problem(tmp_path: Path) -> None:
    cases = [TestCase(id=f"q{i}", model="m", question=f"What is fee {i}?") for i in range(4)]
    [found] = _problems(cases, [with_test_doubles(EmbQuestionsDrift)], tmp_path)
    assert found["problem"] == "corpus_metric_not_computed"
    assert "too few questions: 2 earlier and 2 later" in found["message"]


class _ShortNLI(FakeNLI):
    """FakeNLI that reports pairs longer than 12 words as cut to its input limit."""

    def predict(self, premises: Sequence[str], hypotheses: Sequence[str]) -> NLIScores:
        scores = super().predict(premises, hypotheses)
        cut = np.array([len(f"{p} {h}".split()) > 12 for p, h in zip(premises, hypotheses,
                                                                       strict=True)])
        return replace(scores, truncated=cut)


def test_nli_pairs_over_the_input_limit_are_a_problem(tmp_path: Path) -> None:
    long_chunk = "The Everyday account costs 4.50 euros a month and the fee is waived for students."
    cases = [TestCase(id="short", model="m", actual_answer="The fee is 4.50 euros.",
                      retrieved_context=["The fee is 4.50 euros."]),
             TestCase(id="long", model="m", actual_answer="The fee is 4.50 euros.",
                      retrieved_context=[long_chunk])]
    found = _problems(cases, [NLIGroundedness(nli=_ShortNLI()), NLIFaithfulness(nli=_ShortNLI())],
                      tmp_path)
    assert {(p["evaluator"], p["problem"]) for p in found} == {
        ("nli_groundedness", "token_limit"), ("nli_faithfulness", "token_limit")}
    assert all(p["evidence"]["case_ids"] == ["long"] for p in found)


def test_a_text_over_the_embedding_models_input_is_a_problem(tmp_path: Path) -> None:
    """all-MiniLM-L6-v2 reads 256 tokens: a longer answer is cut, and the run says so per case
    (short inputs are not even tokenised, a long one is counted by the model's own tokenizer)."""
    from assay.evaluators.embedding_answer import EmbAnswerSimilarity

    long_answer = " ".join(["The monthly account fee is twelve euros."] * 40)  # ~ 360 tokens
    cases = [TestCase(id="short", model="m", actual_answer="The fee is 12 euros.",
                      expected_answer="Fees are 12 euros."),
             TestCase(id="long", model="m", actual_answer=long_answer,
                      expected_answer="Fees are 12 euros.")]
    [found] = _problems(cases, [EmbAnswerSimilarity(embedder="minilm")], tmp_path)
    assert (found["problem"], found["evaluator"]) == ("token_limit", "emb_answer_similarity")
    assert found["evidence"] == {"n_cases": 1, "case_ids": ["long"]}
    assert "256-token input" in found["message"]
