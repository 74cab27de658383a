"""Step extraction and dynamic-programming alignment of answer steps to context steps."""

from __future__ import annotations

import numpy as np
import pytest

from assay.backends.embed.fake import FakeEmbedder
from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.embedding_steps import EmbStepAlignment, align_steps, extract_steps

CONTEXT = (
    "To close your account:\n1. Log in to online banking.\n2. Open the account settings.\n"
    "3. Choose close account.\n4. Confirm with your card reader."
)


def test_extract_steps_handles_numbers_bullets_and_step_labels() -> None:
    text = "Intro\n1) First thing\n  - Second thing\n• Third\nStep 4: Fourth\n(5) Fifth\nNot a step"
    assert extract_steps(text) == ["First thing", "Second thing", "Third", "Fourth", "Fifth"]
    assert extract_steps("No list here. Just prose.") == []


def test_alignment_counts_every_operation() -> None:
    # context 4 steps, answer: step1, unrelated, step3 (step2 and step4 missing, one inserted)
    sims = np.array([[0.9, 0.0, 0.0], [0.1, 0.2, 0.1], [0.0, 0.1, 0.95], [0.0, 0.0, 0.1]])
    result = align_steps(sims, 0.7)
    assert (result["matches"], result["mismatches"], result["insertions"], result["deletions"]) == (
        2,
        1,
        0,
        1,
    )
    assert result["edits"] == 2
    assert [op for _, _, op in result["pairs"]] == ["match", "mismatch", "match", "deletion"]


def test_alignment_of_an_empty_side_and_reordering() -> None:
    swapped = align_steps(np.array([[0.1, 0.9], [0.9, 0.1]]), 0.7)
    assert swapped["matches"] == 1 and swapped["edits"] == 2  # order matters


def test_evaluator_on_a_procedure() -> None:
    complete = "1. Log in to online banking.\n2. Open the account settings.\n3. Choose close account.\n4. Confirm with your card reader."
    partial = "1. Log in to online banking.\n2. Confirm with your card reader."
    full, half, prose = EmbStepAlignment(embedder=FakeEmbedder()).evaluate(
        [
            TestCase(id="1", actual_answer=complete, retrieved_context=[CONTEXT]),
            TestCase(id="2", actual_answer=partial, retrieved_context=[CONTEXT]),
            TestCase(
                id="3", actual_answer="Log in to online banking.", retrieved_context=["No steps."]
            ),
        ]
    )
    assert full.outcomes["emb_step_alignment"].value == 1.0
    assert full.outcomes["emb_step_completeness"].value == 1.0
    assert half.outcomes["emb_step_completeness"].value == pytest.approx(0.5)
    assert half.outcomes["emb_step_edits"].value == 2.0
    assert half.details["deletions"] == 2 and half.details["n_context_steps"] == 4
    assert "Open the account settings." in (half.explanation or "")
    assert prose.outcomes["emb_step_alignment"].status is Status.SKIPPED


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def test_a_custom_extractor_plugs_in() -> None:
    evaluator = EmbStepAlignment(embedder=FakeEmbedder(), extractor=_lines)
    (result,) = evaluator.evaluate(
        [TestCase(id="1", actual_answer="a b\nc d", retrieved_context=["a b\nc d"])]
    )
    assert (
        result.details["n_context_steps"] == 2
        and result.outcomes["emb_step_alignment"].value == 1.0
    )
