"""Step alignment against H2O Sonar's procedure evaluator ("Step alignment and completeness").

Reference: its metrics edits, insertions, deletions and mismatches; its alignment traceback names a
context step with no answer step "Gap in Generated (Deletion)" and an answer step with no context
step "Possible hallucination (Gap in Original (Insertion))".
"""

from __future__ import annotations

from assay.backends.embed.fake import TableEmbedder
from assay.data.case import TestCase
from assay.evaluators.embedding_steps import EmbStepAlignment

STEPS = TableEmbedder(
    {
        "Log in.": [1.0, 0.0, 0.0, 0.0],
        "Open settings.": [0.0, 1.0, 0.0, 0.0],
        "Confirm.": [0.0, 0.0, 1.0, 0.0],
        "Buy shares.": [0.0, 0.0, 0.0, 1.0],
    }
)


def test_insertions_deletions_and_mismatches_are_metrics_named_as_in_the_reference() -> None:
    case = TestCase(
        id="s",
        retrieved_context=["1. Log in.\n2. Open settings.\n3. Confirm."],
        actual_answer="1. Log in.\n2. Confirm.\n3. Buy shares.",
    )
    (result,) = EmbStepAlignment(embedder=STEPS).evaluate([case])
    got = {k: o.value for k, o in result.outcomes.items()}
    # "Open settings." is missing from the answer (deletion); "Buy shares." is not in the context
    # (insertion, a possible hallucination); nothing is aligned but dissimilar.
    assert got["emb_step_deletions"] == 1.0
    assert got["emb_step_insertions"] == 1.0
    assert got["emb_step_mismatches"] == 0.0
    assert got["emb_step_edits"] == 2.0
    ops = [(row["context"], row["answer"], row["op"]) for row in result.details["alignment"]]
    assert ("Open settings.", None, "deletion") in ops
    assert (None, "Buy shares.", "insertion") in ops


def test_a_substituted_step_is_a_mismatch() -> None:
    case = TestCase(
        id="m",
        retrieved_context=["1. Log in.\n2. Open settings.\n3. Confirm."],
        actual_answer="1. Log in.\n2. Buy shares.\n3. Confirm.",
    )
    (result,) = EmbStepAlignment(embedder=STEPS).evaluate([case])
    got = {k: o.value for k, o in result.outcomes.items()}
    assert (got["emb_step_mismatches"], got["emb_step_insertions"], got["emb_step_deletions"]) == (
        1.0,
        0.0,
        0.0,
    )
