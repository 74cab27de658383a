"""Judge evaluators that make one call per case: the task, the reply's result, the dry-run plan.

Written once here for the judge evaluators that differ only in their prompt and in how they read
the reply (tone, the binary safety verdicts, summarization, Q&A equivalence, bring-your-own
prompt); registers nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from assay.backends.llm.client import JsonOutcome, JsonTask
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult
from assay.evaluators.judge_base import JudgeEvaluator, PlannedCall


class OneCallJudge(JudgeEvaluator):
    """One judge call per case: :meth:`judge_task` builds it, :meth:`read_reply` reads the reply.

    With ``skip_empty_answer``, a case whose answer is blank is skipped without a call.
    """

    skip_empty_answer: ClassVar[bool] = False
    #: Completion tokens of one reply, for dry-run estimates (:meth:`plan`).
    reply_tokens: ClassVar[int] = 40

    def judge_task(self, case: TestCase) -> JsonTask:
        """The judge request of ``case`` and how its reply is interpreted."""
        raise NotImplementedError

    def read_reply(self, outcome: JsonOutcome) -> CaseResult:
        """The case result from the judge's interpreted reply."""
        raise NotImplementedError

    def _asked(self, case: TestCase) -> bool:
        return not self.skip_empty_answer or bool((case.actual_answer or "").strip())

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        outcomes = self.run([self.judge_task(c) if self._asked(c) else None for c in cases])
        return [self.finish([o], self._result, o) for o in outcomes]

    def _result(self, outcome: JsonOutcome | None) -> CaseResult:
        if outcome is None:
            return self.skip("the answer is empty")
        return self.read_reply(outcome)

    def plan(self, case: TestCase) -> list[PlannedCall]:
        return [(self.judge_task(case).request, self.reply_tokens)]
