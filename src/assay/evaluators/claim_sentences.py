"""The ``sentences`` parameter of the evaluators that score answer sentences one by one.

``sentences="all"`` scores every answer sentence (the HCAT and H2O Sonar definitions);
``"claims"`` sets aside questions, courtesy and framing lines (:mod:`assay.text.claims`), which
assert nothing a context could support. Set-aside sentences are never silent: the explanation
counts them and ``details["set_aside"]`` lists them, so a reviewer sees what was not scored; an
answer with no claim at all is skipped with that reason, never passed.
"""

from __future__ import annotations

from dataclasses import replace

from assay.data.case import TestCase
from assay.evaluators.explain import quote
from assay.evaluators.outcomes import CaseResult
from assay.params import check_choice
from assay.text.claims import SENTENCE_MODES, SetAside, answer_sentences, no_claim_reason
from assay.text.claims import set_aside_summary as _summary


def check_sentences(mode: object, where: str) -> str:
    """``mode`` when it is one of :data:`SENTENCE_MODES`, else a clear parameter error."""
    check_choice(mode, SENTENCE_MODES, "sentences", where)
    return str(mode)


def scored_sentences(case: TestCase, mode: str) -> tuple[list[str], list[SetAside]]:
    """The answer sentences of ``case`` scored under ``mode`` and those set aside."""
    return answer_sentences(case.actual_answer, mode)


def skip_reason(kept: list[str], set_aside: list[SetAside], unit: str = "sentences") -> str | None:
    """Why a case with these sentences cannot be scored, or None when it can."""
    if kept:
        return None
    return no_claim_reason(set_aside) if set_aside else f"the answer has no {unit}"


def with_set_aside(result: CaseResult, set_aside: list[SetAside]) -> CaseResult:
    """``result`` with the set-aside sentences named in its explanation and details.

    Example:
        >>> r = with_set_aside(CaseResult.ok({"m": 1.0}, "all supported"),
        ...                    [SetAside("Anything else?", "question")])
        >>> r.explanation
        "all supported; not scored as claims: 1 question ('Anything else?')"
        >>> r.details["set_aside"]
        [{'sentence': 'Anything else?', 'kind': 'question'}]
    """
    if not set_aside:
        return result

    note = f"not scored as claims: {_summary(set_aside)} ({quote(set_aside[0].sentence)!r}" + (
        ", …)" if len(set_aside) > 1 else ")")
    explanation = f"{result.explanation}; {note}" if result.explanation else note
    details = {**result.details,
               "set_aside": [{"sentence": quote(s.sentence), "kind": s.kind} for s in set_aside]}
    return replace(result, explanation=explanation, details=details)
