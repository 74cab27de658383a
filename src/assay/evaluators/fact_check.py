"""The fact-check agent as an evaluator: claims of the answer checked against evidence found with
tools (offline corpus search, optionally a user-supplied web search), under limits."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from assay.backends.llm.factory import JudgeSpec
from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, MetricSpec
from assay.evaluators.judge_base import JudgeEvaluator, PlannedCall
from assay.evaluators.registry import register
from assay.params import check, check_choice
from assay.text import split_sentences


@register
class FactCheck(JudgeEvaluator):
    """A multi-step judge: it lists the answer's checkable claims, searches for evidence for each
    with the tools it is given, and gives a verdict per claim (supported, refuted, not enough
    evidence) citing passages. Score = supported claims / claims checked.

    Every tool call is recorded in the explanation and in ``details["tool_calls"]``; each claim's
    verdict, reason, cited passages and searches in ``details["claims"]``. A judge reply that
    cannot be parsed (after one retry) makes the case an explicit error, with the trail so far.

    Args:
        judge: The judge (see :class:`~assay.evaluators.judge_base.JudgeEvaluator`).
        corpus: Where to search: a folder or file (read and chunked as by ``assay generate``),
            a list of texts, or a mapping id -> text. None searches each case's own
            ``retrieved_context``.
        search: ``"bm25"`` (default) or ``"embedding"``.
        embedder: Embedder or spec for ``search="embedding"``.
        web_search: Optional web search: a callable ``fn(query) -> results`` or a
            ``"module:function"`` / ``"file.py:function"`` string. Nothing is fetched otherwise.
        max_claims, max_steps, max_tool_calls, max_cost_usd, k: Per-answer limits (see
            :class:`~assay.agents.factcheck.AgentLimits`).
        max_rows: At most this many cases are fact-checked by this evaluator instance; later
            cases are skipped with a reason (None: no limit). Estimate first with
            ``assay judge-estimate``.

    Example:
        >>> from assay.agents.factcheck.scripted import scripted_factcheck_judge
        >>> ev = FactCheck(judge=scripted_factcheck_judge(),
        ...                corpus=["The monthly fee is 12 euros.", "The debit card costs 2 euros."])
        >>> case = TestCase(id="1", question="Fees?",
        ...     actual_answer="The monthly fee is 12 euros. The debit card costs 5 euros.")
        >>> result = ev.evaluate([case])[0]
        >>> result.outcomes["factcheck_score"].value
        0.5
        >>> print(result.explanation)  # doctest: +NORMALIZE_WHITESPACE
        2/2 claims checked: 1 supported, 1 refuted, 0 not enough evidence;
        2 tool call(s): corpus("The monthly fee is 12 euros") -> [corpus:1, corpus:2];
        corpus("The debit card costs 5 euros") -> [corpus:2, corpus:1]
    """

    name = "fact_check"
    family = "agent"
    description = (
        "Fact-check agent (LLM judge with search tools): share of the answer's checkable claims "
        "supported by evidence found in a corpus (BM25 or embeddings) or an optional web "
        "search."
    )
    counterpart = ("emb_groundedness", "nli_faithfulness")
    counterpart_use: ClassVar[dict[str, str]] = {"emb_groundedness": "emb_groundedness_mean"}
    requires = ("actual_answer",)
    unpickled = (*JudgeEvaluator.unpickled, "_tools")
    metrics = (
        MetricSpec(
            "factcheck_score",
            "claims supported by evidence / claims checked",
            threshold=0.8,
            primary=True,
        ),
        MetricSpec(
            "factcheck_refuted",
            "claims contradicted by evidence / claims checked",
            higher_is_better=False,
            threshold=0.0,
        ),
        MetricSpec(
            "factcheck_coverage",
            "claims checked / claims extracted (limits can stop the rest)",
            threshold=1.0,
        ),
    )

    def __init__(
        self,
        judge: JudgeSpec = None,
        corpus: Any = None,
        search: str = "bm25",
        embedder: Any = "minilm",
        web_search: Callable[..., Any] | str | None = None,
        max_claims: int = 8,
        max_steps: int = 3,
        max_tool_calls: int = 16,
        max_cost_usd: float | None = None,
        k: int = 3,
        max_rows: int | None = 200,
    ) -> None:
        super().__init__(judge)
        where = type(self).__name__
        check_choice(search, ("bm25", "embedding"), "search", where)
        check(
            corpus is None or isinstance(corpus, str | os.PathLike | Sequence | Mapping),
            "corpus",
            where,
            "None, a folder or file, a list of texts or a mapping",
            corpus,
        )
        check(
            web_search is None or callable(web_search) or isinstance(web_search, str),
            "web_search",
            where,
            "None, a callable or a 'module:function' string",
            web_search,
        )
        check(
            max_rows is None or (isinstance(max_rows, int) and max_rows >= 1),
            "max_rows",
            where,
            "None or a positive integer",
            max_rows,
        )
        from assay.agents.factcheck.agent import AgentLimits

        AgentLimits(max_claims, max_steps, max_tool_calls, max_cost_usd, k)  # validates
        self.corpus = corpus
        self.search = search
        self.embedder = embedder
        self.web_search = web_search
        self.max_claims = max_claims
        self.max_steps = max_steps
        self.max_tool_calls = max_tool_calls
        self.max_cost_usd = max_cost_usd
        self.k = k
        self.max_rows = max_rows
        self._rows_seen = 0  # cases fact-checked so far (travels with a pickle, like stats_)

    def spec(self) -> dict[str, Any]:
        """The judge evaluator's spec; an in-memory corpus is summarised (count and sha256)
        rather than copied into run manifests."""
        data = super().spec()
        if self.corpus is not None and not isinstance(self.corpus, str | os.PathLike):
            import hashlib
            import json

            text = json.dumps(self.corpus, sort_keys=True, default=str)
            data["params"]["corpus"] = {
                "passages": len(self.corpus),
                "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            }
        return data

    # -- tools ------------------------------------------------------------------------------
    def _shared_tools(self) -> list[Any]:
        return list(self.resolve_once(self._build_tools, "_tools"))

    def _build_tools(self) -> list[Any]:
        from assay.agents.factcheck.tools import CorpusSearch, WebSearch

        tools: list[Any] = []
        if self.corpus is not None:
            tools.append(CorpusSearch(self.corpus, self.search, self.embedder))
        if self.web_search is not None:
            fn = self.web_search
            if isinstance(fn, str):
                from assay.registry import load_callable

                fn = load_callable(fn)
            tools.append(WebSearch(fn))
        return tools

    def tools_for(self, case: TestCase) -> list[Any]:
        """The tools the agent may use on ``case``."""
        from assay.agents.factcheck.tools import CorpusSearch

        tools = self._shared_tools()
        if self.corpus is None and case.retrieved_context:
            ids = (
                case.context_ids
                if case.context_ids and len(case.context_ids) == len(case.retrieved_context)
                else None
            )
            passages = (
                dict(zip(ids, case.retrieved_context, strict=True))
                if ids
                else list(case.retrieved_context)
            )
            tools.insert(0, CorpusSearch(passages, self.search, self.embedder, name="context"))
        return tools

    # -- scoring ------------------------------------------------------------------------------
    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        from assay.agents.factcheck.agent import AgentLimits, FactCheckAgent

        results: list[CaseResult | None] = [None] * len(cases)
        seen = self._rows_seen
        items: list[tuple[str, str, list[Any]]] = []
        index: list[int] = []
        for i, case in enumerate(cases):
            reason = self._unchecked(case)
            if reason is None and self.max_rows is not None and seen >= self.max_rows:
                reason = (
                    f"max_rows={self.max_rows} reached: fact-checking is slow and costly; raise "
                    "max_rows (or set it to None) to check more cases"
                )
            if reason is not None:
                results[i] = self.skip(reason)
                continue
            seen += 1
            answer = (case.actual_answer or "").strip()
            items.append((case.question or "", answer, self.tools_for(case)))
            index.append(i)
        self._rows_seen = seen
        if items:
            limits = AgentLimits(
                self.max_claims, self.max_steps, self.max_tool_calls, self.max_cost_usd, self.k
            )
            agent = FactCheckAgent(self.run, self.judge_client().cost, limits)
            for i, report in zip(index, agent.check(items), strict=True):
                results[i] = self._result(report)
        return [r for r in results if r is not None]

    def _unchecked(self, case: TestCase) -> str | None:
        """Why ``case`` is skipped before any judge call (None: it is fact-checked)."""
        if not (case.actual_answer or "").strip():
            return "the answer is empty"
        if self.corpus is None and self.web_search is None and not case.retrieved_context:
            return (
                "no evidence source: give a corpus or web_search, or cases with retrieved_context"
            )
        return None

    def rows_left(self) -> int | None:
        """``max_rows`` less the cases this instance has already fact-checked."""
        if self.max_rows is None:
            return None
        return max(0, self.max_rows - self._rows_seen)

    def _result(self, report: Any) -> CaseResult:
        from assay.evaluators.judge_base import usage_details

        details = {**report.to_dict(), "judge": usage_details(self.judge_client(), report.outcomes)}
        if report.error is not None:
            result = CaseResult.error(self.metric_names(), report.error)
        elif not report.claims:
            result = self.skip("the judge found no checkable claims in the answer")
        elif not report.checked:
            result = self.skip(f"no claim could be checked: {report.limit or 'limits reached'}")
        else:
            checked = report.checked
            result = CaseResult.ok(
                {
                    "factcheck_score": report.count("supported") / checked,
                    "factcheck_refuted": report.count("refuted") / checked,
                    "factcheck_coverage": checked / len(report.claims),
                }
            )
        result.explanation = (
            report.summary()
            if report.error is None
            else f"judge step failed ({report.error}); {report.summary()}"
        )
        result.details = details
        return result

    # -- dry runs -----------------------------------------------------------------------------
    def plan(self, case: TestCase) -> list[PlannedCall]:
        """The claim extraction exactly; per claim (one per sentence, up to ``max_claims``) a
        search step and a verdict step over ``k`` passages of typical length (approximate).
        No calls for a case that is skipped before any (empty answer, no evidence source)."""
        from assay.agents.factcheck.claims import extract_claims, step_task
        from assay.agents.factcheck.tools import Evidence, ToolCall

        if self._unchecked(case) is not None:
            return []
        question, answer = case.question or "", case.actual_answer or ""
        calls: list[PlannedCall] = [
            (extract_claims(question, answer, self.max_claims).request, len(answer) // 4 + 20)
        ]
        tools = [("corpus", "searches the reference documents")]
        sentences = (split_sentences(answer) or [answer])[: self.max_claims]
        passage = "x" * 400
        for claim in sentences:
            calls.append((step_task(question, claim, tools, [], self.max_steps, False).request, 30))
            if self.max_steps > 1:
                found = [
                    ToolCall(
                        "corpus", claim, [Evidence(f"corpus:{n}", passage) for n in range(self.k)]
                    )
                ]
                calls.append(
                    (
                        step_task(
                            question, claim, tools, found, self.max_steps - 1, self.max_steps == 2
                        ).request,
                        50,
                    )
                )
        return calls
