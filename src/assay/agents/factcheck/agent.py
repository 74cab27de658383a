"""The fact-check agent: a multi-step judge loop with tools, under step, tool-call and cost limits.

For each answer the judge first lists its checkable claims. Then, for every claim, it either asks
for a search (a tool and a query; the agent runs it and shows the results) or gives a verdict
(supported, refuted, not enough evidence) citing the passages it used. A claim's last allowed
step only accepts a verdict. Requests of all claims of all answers in a batch are sent together,
round by round, so the judge client's concurrency, cache and rate limits apply.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.agents.factcheck.claims import Search, Verdict, extract_claims, step_task
from assay.agents.factcheck.tools import SearchTool, ToolCall, call_tool
from assay.backends.llm.client import JsonOutcome, JsonTask
from assay.backends.llm.protocol import JudgeResponse
from assay.params import check, check_int

RunTasks = Callable[[Sequence[JsonTask | None]], list[JsonOutcome | None]]


@dataclass(frozen=True)
class AgentLimits:
    """Limits of one answer's fact check.

    Attributes:
        max_claims: Claims checked per answer (the judge is asked for at most this many).
        max_steps: Judge steps per claim, the verdict included (1: verdict without searching).
        max_tool_calls: Tool calls per answer, over all its claims.
        max_cost_usd: Judge cost per answer; claims not yet decided when it is reached are
            left unchecked (None: no limit; not enforceable for an unpriced model).
        k: Passages per search.
    """

    max_claims: int = 8
    max_steps: int = 3
    max_tool_calls: int = 16
    max_cost_usd: float | None = None
    k: int = 3

    def __post_init__(self) -> None:
        for name in ("max_claims", "max_steps", "k"):
            value = getattr(self, name)
            check_int(value, name, "AgentLimits")
        check_int(self.max_tool_calls, "max_tool_calls", "AgentLimits", minimum=0)
        check(self.max_cost_usd is None or self.max_cost_usd > 0, "max_cost_usd",
              "AgentLimits", "None or a positive number", self.max_cost_usd)


@dataclass
class ClaimCheck:
    """One claim's trail: its searches, steps and verdict (``status``: pending, checked,
    stopped (a limit), error)."""

    claim: str
    calls: list[ToolCall] = field(default_factory=list)
    steps: int = 0
    verdict: Verdict | None = None
    status: str = "pending"
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form, with the cited passages' texts."""
        passages = {e.id: e for c in self.calls for e in c.results}
        verdict = self.verdict
        return {
            "claim": self.claim,
            "status": self.status,
            "verdict": verdict.verdict if verdict else None,
            "reason": verdict.reason if verdict else None,
            "evidence": [passages[i].to_dict() for i in verdict.evidence] if verdict else [],
            "unknown_evidence_ids": list(verdict.unknown_evidence) if verdict else [],
            "steps": self.steps,
            "tool_calls": [c.to_dict() for c in self.calls],
            "note": self.note,
        }


@dataclass
class FactCheckReport:
    """The fact check of one answer."""

    claims: list[ClaimCheck] = field(default_factory=list)
    outcomes: list[JsonOutcome] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    cost_usd: float | None = 0.0
    error: str | None = None
    parse_failure: bool = False
    limit: str | None = None

    def count(self, verdict: str) -> int:
        """Claims given ``verdict``."""
        return sum(c.verdict is not None and c.verdict.verdict == verdict for c in self.claims)

    @property
    def checked(self) -> int:
        """Claims that received a verdict."""
        return sum(c.verdict is not None for c in self.claims)

    def summary(self) -> str:
        """The verdict counts and every tool call, in order.

        Example:
            >>> FactCheckReport(claims=[ClaimCheck("x")]).summary()
            '0/1 claims checked: 0 supported, 0 refuted, 0 not enough evidence; no tool calls'
        """
        head = (f"{self.checked}/{len(self.claims)} claims checked: "
                f"{self.count('supported')} supported, {self.count('refuted')} refuted, "
                f"{self.count('not_enough_evidence')} not enough evidence")
        if self.limit:
            head += f" ({self.limit})"
        calls = "; ".join(c.describe() for c in self.tool_calls)
        return f"{head}; " + (f"{len(self.tool_calls)} tool call(s): {calls}"
                              if self.tool_calls else "no tool calls")

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form (claims with their evidence, all tool calls)."""
        return {
            "claims": [c.to_dict() for c in self.claims],
            "tool_calls": [c.to_dict() for c in self.tool_calls],
            "cost_usd": None if self.cost_usd is None else round(self.cost_usd, 8),
            "limit": self.limit,
            "error": self.error,
            "parse_failure": self.parse_failure,
        }


@dataclass
class _Job:
    question: str
    answer: str
    tools: dict[str, SearchTool]
    report: FactCheckReport = field(default_factory=FactCheckReport)


class FactCheckAgent:
    """Runs the fact-check loop for a batch of answers.

    Args:
        run: Sends judge tasks concurrently (``JudgeEvaluator.run``); None entries pass through.
        cost: USD cost of one judge response (None when unpriced).
        limits: Step, tool-call and cost limits.
    """

    def __init__(self, run: RunTasks, cost: Callable[[JudgeResponse], float | None],
                 limits: AgentLimits) -> None:
        self._run = run
        self._cost = cost
        self.limits = limits

    def check(self, items: Sequence[tuple[str, str, Sequence[SearchTool]]]
              ) -> list[FactCheckReport]:
        """Fact-check ``(question, answer, tools)`` items; one report per item."""
        jobs = [_Job(q, a, {t.name: t for t in tools}) for q, a, tools in items]
        extracted = self._send([(j, extract_claims(j.question, j.answer, self.limits.max_claims))
                                for j in jobs])
        for job, outcome in zip(jobs, extracted, strict=True):
            if outcome.ok:
                job.report.claims = [ClaimCheck(c) for c in outcome.value]
        while True:
            for job in jobs:
                self._enforce_cost(job)
                if job.report.error is not None:
                    for claim in job.report.claims:
                        if claim.status == "pending":
                            claim.status = "stopped"
                            claim.note = "not checked: another judge step of this answer failed"
            pending = [(j, c) for j in jobs for c in j.report.claims if c.status == "pending"]
            if not pending:
                break
            outcomes = self._send([(j, self._step(j, c)) for j, c in pending])
            for (job, claim), outcome in zip(pending, outcomes, strict=True):
                self._advance(job, claim, outcome)
        return [j.report for j in jobs]

    def _send(self, work: Sequence[tuple[_Job, JsonTask]]) -> list[JsonOutcome]:
        outcomes = self._run([task for _, task in work])
        out: list[JsonOutcome] = []
        for (job, _), outcome in zip(work, outcomes, strict=True):
            assert outcome is not None
            report = job.report
            report.outcomes.append(outcome)
            for response in outcome.responses:
                cost = self._cost(response)
                report.cost_usd = None if cost is None or report.cost_usd is None \
                    else report.cost_usd + cost
            if not outcome.ok and report.error is None:
                report.error = outcome.error or "judge step failed"
                report.parse_failure = outcome.parse_failure
            out.append(outcome)
        return out

    def _step(self, job: _Job, claim: ClaimCheck) -> JsonTask:
        steps_left = self.limits.max_steps - claim.steps
        final = steps_left <= 1 or len(job.report.tool_calls) >= self.limits.max_tool_calls \
            or not job.tools
        tools = [(t.name, t.description) for t in job.tools.values()]
        return step_task(job.question, claim.claim, tools, claim.calls, steps_left, final)

    def _advance(self, job: _Job, claim: ClaimCheck, outcome: JsonOutcome) -> None:
        claim.steps += 1
        if not outcome.ok:
            claim.status, claim.note = "error", outcome.error
            return
        value = outcome.value
        if isinstance(value, Verdict):
            claim.verdict, claim.status = value, "checked"
            return
        assert isinstance(value, Search)
        report = job.report
        if len(report.tool_calls) >= self.limits.max_tool_calls:
            call = ToolCall(value.tool, value.query,
                            error=f"refused: the tool-call limit ({self.limits.max_tool_calls}) "
                                  "is reached")
        else:
            call = call_tool(job.tools[value.tool], value.query, self.limits.k)
        claim.calls.append(call)
        report.tool_calls.append(call)

    def _enforce_cost(self, job: _Job) -> None:
        limit, report = self.limits.max_cost_usd, job.report
        if limit is None or report.cost_usd is None or report.cost_usd < limit:
            return
        stopped = [c for c in report.claims if c.status == "pending"]
        for claim in stopped:
            claim.status = "stopped"
            claim.note = f"cost limit reached (${report.cost_usd:.4f} >= ${limit:.4f})"
        if stopped:
            report.limit = f"cost limit ${limit:g} reached; {len(stopped)} claim(s) unchecked"
