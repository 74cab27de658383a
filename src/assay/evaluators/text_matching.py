"""Boolean text conditions over the retrieved context and the actual answer, with failures
attributed to retrieval or generation.

The condition language (quoted strings, ``regexp("…")``, AND, OR, NOT, parentheses) is defined in
:mod:`assay.matching`. Per case, as the evaluator catalogue defines text matching
(``scope="context_and_answer"``, the default):

* ``text_match_pass`` is 1 when the answer *and* the joined retrieved context both satisfy the
  condition (the answer alone when the case has no context), ``text_match_failure`` is 1 when not;
* when the case has a retrieved context, a *retrieval failure* is a context that does not satisfy
  the condition (what the answer needed was not retrieved, whatever the answer says) and a
  *generation failure* an answer that fails although the context satisfies it; without a context
  both are skipped;
* ``scope="answer"`` (assay's earlier form) passes on the answer alone and counts a retrieval
  failure only when the answer fails too;
* ``text_match_parse_failure`` is 1 when the condition does not parse; the other metrics are then
  skipped with the syntax error (position and expected token) as the reason.
"""

from __future__ import annotations

from assay.data.case import TestCase
from assay.errors import InvalidInputError
from assay.evaluators.base import CaseByCaseEvaluator, CaseResult, MetricSpec, Outcome, Status
from assay.evaluators.registry import register
from assay.matching import (
    Condition,
    ConditionSyntaxError,
    RegexTimeoutError,
    compile_condition,
)
from assay.matching.bounded import DEFAULT_TIMEOUT_S, ENGINES
from assay.params import check, check_choice
from assay.safety import scrub

_PASS = "text_match_pass"
_FAIL = "text_match_failure"
_RETRIEVAL = "text_match_retrieval_failure"
_GENERATION = "text_match_generation_failure"
_PARSE = "text_match_parse_failure"
#: What must satisfy the condition for a case to pass.
SCOPES = ("context_and_answer", "answer")


@register
class TextMatching(CaseByCaseEvaluator):
    """Evaluate a boolean condition on the answer and attribute failures.

    Args:
        condition: Used for cases without their own ``condition`` (a case's condition wins).
        ignore_case: Match quoted literals case-insensitively.
        engine: Regular-expression engine: ``"regex"`` (Python semantics, time limit), ``"re2"``
            (linear time) or ``"auto"``.
        timeout_s: Time limit of each regular-expression search (``regex`` engine).
        scope: ``"context_and_answer"`` (the catalogue's: both must satisfy the condition) or
            ``"answer"`` (the answer alone; the context only attributes a failure).

    Example:
        >>> case = TestCase(id="q", actual_answer="It costs 12 euros.", condition='"12 euros"')
        >>> TextMatching().evaluate([case])[0].outcomes["text_match_pass"].value
        1.0
    """

    name = "text_matching"
    family = "rule"
    description = (
        "Boolean condition (strings, regexp, AND/OR/NOT) that the retrieved context and the "
        "answer must satisfy; failures attributed to retrieval or generation."
    )
    requires = ("actual_answer",)
    metrics = (
        MetricSpec(_PASS, "1 if the answer and the retrieved context satisfy the condition",
                   threshold=1.0, primary=True),
        MetricSpec(_FAIL, "1 if the answer or the retrieved context does not satisfy the condition",
                   higher_is_better=False),
        MetricSpec(
            _RETRIEVAL,
            "1 if the retrieved context does not satisfy the condition",
            higher_is_better=False,
        ),
        MetricSpec(
            _GENERATION,
            "1 if the answer fails although the retrieved context satisfies the condition",
            higher_is_better=False,
        ),
        MetricSpec(_PARSE, "1 if the condition does not parse", higher_is_better=False),
    )

    def __init__(
        self,
        condition: str | None = None,
        ignore_case: bool = False,
        engine: str = "regex",
        timeout_s: float = DEFAULT_TIMEOUT_S,
        scope: str = "context_and_answer",
    ) -> None:
        check_choice(engine, ENGINES, "engine", "TextMatching")
        check_choice(scope, SCOPES, "scope", "TextMatching")
        check(timeout_s > 0, "timeout_s", "TextMatching", "a positive number", timeout_s)
        if condition is not None:
            try:
                Condition(condition, ignore_case=ignore_case, engine=engine, timeout_s=timeout_s)
            except ConditionSyntaxError as exc:
                raise InvalidInputError(
                    f"The 'condition' parameter of TextMatching: {exc}"
                ) from None
        self.condition = condition
        self.ignore_case = ignore_case
        self.engine = engine
        self.timeout_s = timeout_s
        self.scope = scope

    def score_case(self, case: TestCase) -> CaseResult:
        names = self.metric_names()
        source = case.condition if case.condition and case.condition.strip() else self.condition
        if source is None:
            return CaseResult.skipped(
                names, "no condition: set the case's condition or the parameter"
            )
        try:
            cond = compile_condition(source, self.ignore_case, self.engine, self.timeout_s)
        except ConditionSyntaxError as exc:
            reason = scrub(str(exc))
            outcomes = {m: Outcome(Status.SKIPPED, None, reason) for m in names if m != _PARSE}
            outcomes[_PARSE] = Outcome(Status.OK, 1.0)
            return CaseResult(
                outcomes,
                f"condition does not parse at position {exc.position}: expected {exc.expected}",
                {"position": exc.position, "expected": exc.expected},
            )
        answer = case.actual_answer or ""
        try:
            passed = cond.evaluate(answer)
            context = "\n".join(case.retrieved_context) if case.retrieved_context else None
            context_ok = cond.evaluate(context) if context is not None else None
            atoms = cond.atoms(answer)
        except RegexTimeoutError as exc:
            return CaseResult.error(names, scrub(str(exc)))
        both = self.scope == "context_and_answer"
        retrieval = context_ok is False and (both or not passed)
        passed_case = passed and not (both and context_ok is False)
        values = {_PASS: float(passed_case), _FAIL: float(not passed_case), _PARSE: 0.0}
        outcomes = {m: Outcome(Status.OK, v) for m, v in values.items()}
        if context_ok is None:
            reason = "no retrieved context to attribute a failure to"
            outcomes[_RETRIEVAL] = Outcome(Status.SKIPPED, None, reason)
            outcomes[_GENERATION] = Outcome(Status.SKIPPED, None, reason)
        else:
            outcomes[_RETRIEVAL] = Outcome(Status.OK, float(retrieval))
            outcomes[_GENERATION] = Outcome(Status.OK, float(not passed and context_ok))
        found = [a.atom for a in atoms if a.matched]
        missing = [a.atom for a in atoms if not a.matched]
        verdict = "answer satisfies the condition" if passed else "answer fails the condition"
        if context_ok is not None and not passed:
            verdict += (
                " (the retrieved context satisfies it: generation failure)"
                if context_ok
                else " (so does the retrieved context: retrieval failure)"
            )
        elif retrieval:
            verdict += " but the retrieved context does not: retrieval failure"
        explanation = (
            f"{verdict}; found in answer: {', '.join(found) or 'none'}; "
            f"not found: {', '.join(missing) or 'none'}"
        )
        details = {
            "condition": scrub(source),
            "atoms": [{"atom": scrub(a.atom), "matched": a.matched} for a in atoms],
            "context_satisfies": context_ok,
        }
        return CaseResult(outcomes, scrub(explanation), details)
