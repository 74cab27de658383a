"""Where the summarization evaluators read the document that the answer summarises.

Every summarization evaluator (``nli_summac_zs``, ``nli_summac_conv``, ``gptscore_summary``,
``emb_summary_completeness``, ``judge_summarization``) reads its source document from one field,
chosen by its ``source`` parameter: ``"retrieved_context"`` by default (the retrieved chunks, in
order: what a RAG summariser was given, and where assay's summarization data put the document),
or ``"question"`` (the prompt holds the text to summarise, as in H2O Sonar's GPTScore
summarization evaluator, whose ``{src}`` is the input).
"""

from __future__ import annotations

from assay.data.case import TestCase
from assay.params import check_choice

#: The fields a summarization evaluator can read its source document from.
SUMMARY_SOURCES = ("retrieved_context", "question")
#: The documented default of every summarization evaluator.
DEFAULT_SUMMARY_SOURCE = "retrieved_context"


def check_source(source: object, owner: str) -> str:
    """Validate a ``source`` parameter and return it.

    Example:
        >>> check_source("question", "NLISummaCZS")
        'question'
    """
    check_choice(source, SUMMARY_SOURCES, "source", owner)
    return str(source)


def source_chunks(case: TestCase, source: str) -> list[str]:
    """The source document of ``case`` as a list of passages (the question is one passage).

    Example:
        >>> source_chunks(TestCase(id="s", question="Doc.", retrieved_context=["A.", "B."]),
        ...               "retrieved_context")
        ['A.', 'B.']
        >>> source_chunks(TestCase(id="s", question="Doc."), "question")
        ['Doc.']
    """
    if source == "question":
        return [case.question] if case.question and case.question.strip() else []
    return [chunk for chunk in case.retrieved_context or [] if chunk.strip()]


def source_text(case: TestCase, source: str) -> str:
    """The source document of ``case`` as one text (passages separated by a blank line).

    Example:
        >>> source_text(TestCase(id="s", retrieved_context=["A.", "B."]), "retrieved_context")
        'A.\\n\\nB.'
    """
    return "\n\n".join(source_chunks(case, source))
