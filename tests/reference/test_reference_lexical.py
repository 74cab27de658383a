"""Conformance of the lexical evaluators (looping, ROUGE, BLEU, token F1, exact match, lexical
groundedness) with their reference definitions: H2O Sonar's evaluator catalogue, the
six-dimension validation framework (ROUGE-L with β ≈ 1.2) and the reference implementations
(rouge-score, sacrebleu, the SQuAD script)."""

from __future__ import annotations

import pytest

from assay.data.case import TestCase
from assay.evaluators.looping import Looping


def _looping(text: str) -> dict[str, float | None]:
    result = Looping().evaluate([TestCase(id="q", actual_answer=text)])[0]
    return {name: o.value for name, o in result.outcomes.items()}


def test_looping_primary_metric_is_the_unique_sentence_score() -> None:
    assert Looping.primary_metric().name == "unique_sentence_ratio"
    compression = Looping.metric("compression_ratio")
    assert compression.higher_is_better  # compressed / original: low means repetitive


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
