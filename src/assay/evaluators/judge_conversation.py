"""LLM-judge conversation metrics: relevancy and role adherence of each assistant turn,
completeness of each user request.

One judge call per metric and conversation: the judge sees the whole transcript and gives one
verdict per numbered turn (assistant replies, or user requests for completeness), so the
explanation names the offending turns. The judge-free counterpart over turns is the
``conversation`` evaluator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from assay.backends.llm.client import JsonOutcome, JsonTask
from assay.data.case import TestCase
from assay.data.dialogue import Turn, transcript
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.judge_base import JudgeEvaluator, PlannedCall, share
from assay.evaluators.judge_tasks import numbered_verdicts
from assay.evaluators.registry import register

_TOO_SHORT = "not a multi-turn conversation (fewer than two user turns)"


def _judged(turns: Sequence[Turn], role: str) -> tuple[list[int], list[str]]:
    """The 1-based turn numbers and the labelled texts of the turns of ``role``."""
    numbers = [n for n, t in enumerate(turns, 1) if t.role == role]
    return numbers, [f"(turn {n}) {turns[n - 1].content}" for n in numbers]


class _TurnVerdicts(JudgeEvaluator):
    """One judge verdict per turn of ``judged_role``; the score is the share judged good."""

    task: str
    judged_role: str = "assistant"
    items_key: str = "replies"
    requires = ()

    def _variables(self, case: TestCase) -> dict[str, str] | str:
        """The prompt's variables besides the replies, or why the case cannot be judged."""
        turns = case.turns or []
        if sum(t.role == "user" for t in turns) < 2:
            return _TOO_SHORT
        if not any(t.role == "assistant" for t in turns):
            return "the conversation has no assistant turn"
        return {"conversation": transcript(turns)}

    def _task(self, case: TestCase) -> JsonTask | str:
        variables = self._variables(case)
        if isinstance(variables, str):
            return variables
        items = _judged(case.turns or [], self.judged_role)[1]
        return numbered_verdicts(self.task, items, self.items_key, variables)

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        tasks = [self._task(c) for c in cases]
        outcomes = self.run([t if isinstance(t, JsonTask) else None for t in tasks])
        return [
            self.skip(t) if isinstance(t, str) else self.finish([o], self._result, c, o)
            for c, t, o in zip(cases, tasks, outcomes, strict=True)
        ]

    def _result(self, case: TestCase, outcome: JsonOutcome) -> CaseResult:
        numbers, _ = _judged(case.turns or [], self.judged_role)
        flags = [flag for flag, _ in outcome.value]
        failed = [f"turn {n}: {reason}" if reason else f"turn {n}"
                  for n, (flag, reason) in zip(numbers, outcome.value, strict=True) if not flag]
        what = f"{self.judged_role} turns"
        explanation = (f"{len(failed)} of {len(flags)} {what} failed: " + "; ".join(failed)
                       if failed else f"all {len(flags)} {what} pass")
        details = {"turns": [{"turn": n, "verdict": flag, "reason": reason}
                             for n, (flag, reason) in zip(numbers, outcome.value, strict=True)]}
        return CaseResult.ok({self.name: share(flags)}, explanation, details)

    def plan(self, case: TestCase) -> list[PlannedCall]:
        task = self._task(case)
        if isinstance(task, str):
            return []
        return [(task.request, 25 * len(_judged(case.turns or [], self.judged_role)[0]))]


@register
class JudgeConversationRelevancy(_TurnVerdicts):
    """Share of assistant turns the judge finds relevant to the conversation at that point
    (DeepEval's conversation relevancy, judged over the whole transcript instead of a sliding
    window)."""

    name = "judge_conversation_relevancy"
    task = "conversation_relevancy"
    description = (
        "LLM judge: share of assistant turns relevant to the conversation at that point (one "
        "verdict per turn, offending turns named)."
    )
    counterpart = ("emb_answer_relevancy",)
    counterpart_use: ClassVar[dict[str, str]] = {
        "emb_answer_relevancy": "on the per-turn cases of 'assay turns'",
    }
    metrics = (
        MetricSpec("judge_conversation_relevancy", "share of assistant turns judged relevant",
                   threshold=1.0, primary=True),
    )


@register
class JudgeRoleAdherence(_TurnVerdicts):
    """Share of assistant turns the judge finds within the role given by the conversation's
    system turns (DeepEval's role adherence; the role is the system turns' content)."""

    name = "judge_role_adherence"
    task = "role_adherence"
    description = (
        "LLM judge: share of assistant turns that stay within the role set by the system turns "
        "(one verdict per turn, offending turns named)."
    )
    counterpart = ("emb_tone",)
    counterpart_use: ClassVar[dict[str, str]] = {
        "emb_tone": "tone only, on the per-turn cases of 'assay turns'",
    }
    metrics = (
        MetricSpec("judge_role_adherence", "share of assistant turns judged in role",
                   threshold=1.0, primary=True),
    )

    def _variables(self, case: TestCase) -> dict[str, str] | str:
        variables = super()._variables(case)
        role = "\n".join(t.content for t in case.turns or [] if t.role == "system").strip()
        if isinstance(variables, str):
            return variables
        if not role:
            return "the conversation has no system turn giving the assistant's role"
        return {**variables, "role": role}


@register
class JudgeConversationCompleteness(_TurnVerdicts):
    """Share of user requests the judge finds met by the end of the conversation (DeepEval's
    conversation completeness, whose user intentions are here the user turns themselves, so a
    failing request is named by its turn)."""

    name = "judge_conversation_completeness"
    task = "conversation_completeness"
    judged_role = "user"
    items_key = "requests"
    description = (
        "LLM judge: share of user turns whose request the assistant met by the end of the "
        "conversation (one verdict per user turn, unmet requests named)."
    )
    counterpart = ("emb_completeness",)
    counterpart_use: ClassVar[dict[str, str]] = {
        "emb_completeness": "on per-turn cases with expected answers, 'assay turns'",
    }
    metrics = (
        MetricSpec("judge_conversation_completeness", "share of user requests judged met",
                   threshold=1.0, primary=True),
    )
