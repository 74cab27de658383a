"""Summarization evaluators read the source document from one documented field.

Every summarization evaluator takes ``source`` (``"retrieved_context"`` by default, or
``"question"``: H2O Sonar's summarization evaluators read the document from the input), so a
suite lays out its documents once for all of them (docs/reference-definitions.md, nli).
"""

from __future__ import annotations

import inspect

import pytest

from assay.data.case import TestCase
from assay.evaluators.base import Status
from assay.evaluators.registry import evaluator_class
from assay.evaluators.summary_source import DEFAULT_SUMMARY_SOURCE
from assay.testing import with_test_doubles

SUMMARIZATION = ("nli_summac_zs", "nli_summac_conv", "gptscore_summary",
                 "emb_summary_completeness", "judge_summarization")
DOCUMENT = ("The Everyday account costs 4.50 euros a month. The fee is waived above 1,200 euros "
            "paid in. Customers aged 18 to 25 never pay it. Card payments in euros are free.")
SUMMARY = "The account costs 4.50 euros a month, waived for young customers."


@pytest.mark.parametrize("name", SUMMARIZATION)
def test_every_summarization_evaluator_reads_the_document_from_source(name: str) -> None:
    cls = evaluator_class(name)
    assert inspect.signature(cls.__init__).parameters["source"].default == "retrieved_context"
    assert DEFAULT_SUMMARY_SOURCE in cls.requires
    base = with_test_doubles(cls)
    params = {**base.get_params()}
    in_context = cls(**params).evaluate(
        [TestCase(id="s", actual_answer=SUMMARY, retrieved_context=[DOCUMENT])])[0]
    in_question = cls(**{**params, "source": "question"}).evaluate(
        [TestCase(id="s", actual_answer=SUMMARY, question=DOCUMENT)])[0]
    assert in_context.outcomes == in_question.outcomes
    assert all(o.status is Status.OK for o in in_context.outcomes.values()), in_context.outcomes
    # the document in the other field only: the case lacks its source
    [missing] = cls(**params).evaluate([TestCase(id="s", actual_answer=SUMMARY,
                                                 question=DOCUMENT)])
    assert all(o.status is Status.SKIPPED and "retrieved_context" in (o.reason or "")
               for o in missing.outcomes.values())
