"""The base class of judge evaluators: judge injection, batch-concurrent tasks, usage per case,
parse-failure accounting and dry-run plans."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from assay.backends.llm.client import JsonOutcome, JsonTask, Judge
from assay.backends.llm.factory import JudgeSpec, make_judge
from assay.backends.llm.protocol import JudgeRequest
from assay.backends.llm.stats import JudgeStats
from assay.data.case import TestCase
from assay.data.samples import judge_sample
from assay.errors import AssayError
from assay.evaluators.base import CaseResult, Evaluator, ResultBatch
from assay.evaluators.resolved import ResolvesOnce

#: A planned call: the request (exact, or a stand-in for a later stage) and expected reply tokens.
PlannedCall = tuple[JudgeRequest, int]


def usage_details(judge: Judge, outcomes: Sequence[JsonOutcome]) -> dict[str, Any]:
    """Calls, cache hits, tokens, cost and parse failures of one case's judge outcomes.

    ``cost_usd`` is None when a call's model has no price (unknown, not free).
    """
    responses = [r for o in outcomes for r in o.responses]
    costs = [judge.cost(r) for r in responses]
    return {
        "calls": len(responses),
        "cached": sum(r.cached for r in responses),
        "prompt_tokens": sum(r.usage.prompt_tokens for r in responses if not r.cached),
        "completion_tokens": sum(r.usage.completion_tokens for r in responses if not r.cached),
        "cost_usd": None if any(c is None for c in costs) else round(sum(costs), 8),  # type: ignore[arg-type]
        "parse_failures": sum(o.parse_failure for o in outcomes),
        "parse_retries": sum(o.parse_retried for o in outcomes),
    }


def counterpart_text(counterpart: Sequence[str], use: Mapping[str, str], quote: str = "") -> str:
    """The judge-free counterparts as listed in a description, a spec and the docs: each
    registered name (between ``quote``), followed by how it is used where that needs saying.

    Example:
        >>> counterpart_text(("retrieval", "token_f1"), {"retrieval": "recall_at_k"})
        'retrieval (recall_at_k), token_f1'
        >>> counterpart_text(("token_f1",), {}, quote="`")
        '`token_f1`'
    """
    return ", ".join(f"{quote}{name}{quote}" + (f" ({use[name]})" if name in use else "")
                     for name in counterpart)


class JudgeEvaluator(ResolvesOnce, Evaluator):
    """Shared machinery of the ``judge_*`` evaluators.

    ``judge`` is a :class:`~assay.backends.llm.Judge`, a backend, a callable, a
    ``"provider:model"`` string, a dict of settings, or None for the ``ASSAY_JUDGE`` environment
    variable (see :func:`~assay.backends.llm.make_judge`). A batch's requests are sent
    concurrently, stage by stage. ``stats_`` accumulates this evaluator's calls, cache hits,
    tokens, cost and parse failures (``stats_.parse_failure_rate``).
    """

    family: ClassVar[str] = "judge"
    reproducible: ClassVar[bool] = False
    extra: ClassVar[str | None] = "judge"
    #: The registered reproducible, judge-free evaluator(s) measuring the same idea. The one
    #: source: the description's last sentence and the spec's ``counterpart`` are made from it.
    counterpart: ClassVar[tuple[str, ...]] = ()
    #: How a counterpart is used, where that needs saying (``{"retrieval": "recall_at_k"}``).
    counterpart_use: ClassVar[Mapping[str, str]] = {}
    #: The description as written by the class, before the counterpart sentence is added.
    summary: ClassVar[str] = ""

    #: The judge session is resolved again after unpickling; ``_stats`` travels.
    unpickled: ClassVar[tuple[str, ...]] = ("_client",)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Complete the class's description with its judge-free counterparts (the attribute is
        the one place naming them)."""
        super().__init_subclass__(**kwargs)
        if "description" in vars(cls):
            cls.summary = cls.description
        if cls.counterpart and cls.summary:
            plural = "s" if len(cls.counterpart) > 1 else ""
            cls.description = (f"{cls.summary} Judge-free counterpart{plural}: "
                               f"{counterpart_text(cls.counterpart, cls.counterpart_use)}.")

    def __init__(self, judge: JudgeSpec = None) -> None:
        self.judge = judge

    # -- judge access ---------------------------------------------------------------------------
    def judge_client(self) -> Judge:
        """This evaluator's judge: a session (own counters) of the process's shared judge for
        ``judge`` (:func:`~assay.backends.llm.make_judge`), resolved once."""
        return self.resolve_once(lambda: make_judge(self.judge), "_client")

    @property
    def stats_(self) -> JudgeStats:
        """What this evaluator's judge calls did so far."""
        return self.resolve_once(JudgeStats, "_stats")

    def spec(self) -> dict[str, Any]:
        """The base spec plus the judge's settings (model, temperature, seed, ...)."""
        data = super().spec()
        try:
            data["judge"] = self.judge_client().describe()
        except AssayError as exc:
            data["judge"] = {"error": str(exc)}
        data["counterpart"] = counterpart_text(self.counterpart, self.counterpart_use)
        return data

    def evaluate(self, cases: Sequence[TestCase]) -> ResultBatch:
        """:meth:`Evaluator.evaluate`, one repeated judgement at a time: the cases of a batch are
        scored in groups of the same :func:`~assay.data.samples.judge_sample`, whose index every
        request of the group carries (its own cache entry and seed)."""
        groups: dict[int, list[int]] = {}
        for index, case in enumerate(cases):
            groups.setdefault(judge_sample(case), []).append(index)
        parts: list[tuple[list[int], ResultBatch]] = []
        try:
            for sample, indices in groups.items():
                self._judge_sample = sample
                parts.append((indices, super().evaluate([cases[i] for i in indices])))
        finally:
            self._judge_sample = 0
        if len(parts) == 1:
            return parts[0][1]
        return ResultBatch.stack(len(cases), parts) if parts else super().evaluate(cases)

    def run(self, tasks: Sequence[JsonTask | None]) -> list[JsonOutcome | None]:
        """Send every task concurrently (None entries are passed through) and account for them."""
        sample = getattr(self, "_judge_sample", 0)
        if sample:
            tasks = [None if t is None else replace(t, request=replace(t.request, sample=sample))
                     for t in tasks]
        real = [t for t in tasks if t is not None]
        judge = self.judge_client()
        outcomes = iter(judge.complete_json(real)) if real else iter(())
        out = [None if t is None else next(outcomes) for t in tasks]
        stats = self.stats_
        for outcome in out:
            if outcome is None:
                continue
            for response in outcome.responses:
                stats.record_response(response, judge.cost(response))
                stats.add(calls=response.attempts, retries=max(0, response.attempts - 1))
            stats.add(
                requests=len(outcome.responses),
                parsed=1 if outcome.responses else 0,
                parse_retries=int(outcome.parse_retried),
                parse_failures=int(outcome.parse_failure),
                failures=int(outcome.error is not None and not outcome.parse_failure),
            )
        return out

    def finish(
        self,
        outcomes: Sequence[JsonOutcome | None],
        build: Callable[..., CaseResult],
        *args: Any,
    ) -> CaseResult:
        """The case result: an explicit error when a judge step failed, else ``build(*args)``;
        judge usage goes to ``details["judge"]`` either way."""
        real = [o for o in outcomes if o is not None]
        usage = usage_details(self.judge_client(), real)
        failed = next((o for o in real if not o.ok), None)
        if failed is not None:
            result = CaseResult.error(self.metric_names(), failed.error or "judge step failed")
            result.details = {"judge": usage, "parse_failure": failed.parse_failure}
            return result
        try:
            result = build(*args)
        except (ArithmeticError, LookupError, TypeError, ValueError, AttributeError) as exc:
            # an interpreted reply this case cannot use: its own error, never its batch's
            result = CaseResult.error(self.metric_names(), "cannot score the judge's reply: "
                                      f"{type(exc).__name__}: {exc}")
        result.details = {**result.details, "judge": usage}
        return result

    # -- dry runs -------------------------------------------------------------------------------
    def plan(self, case: TestCase) -> list[PlannedCall]:
        """The calls scoring ``case`` would make (later stages approximated); none for a case
        that would be skipped before any call."""
        raise NotImplementedError

    def rows_left(self) -> int | None:
        """How many more cases this instance will send to the judge (None: no limit); later
        cases are skipped. Dry-run estimates count only these."""
        return None

    def skip(self, reason: str) -> CaseResult:
        """A skipped result for a case the judge cannot measure (e.g. no statements)."""
        return CaseResult.skipped(self.metric_names(), reason)


def context_text(case: TestCase) -> str:
    """The retrieved chunks as one numbered text, as shown to the judge.

    Example:
        >>> context_text(TestCase(id="q", retrieved_context=["Fee: 12 euros.", "Free exit."]))
        '[1] Fee: 12 euros.\\n\\n[2] Free exit.'
    """
    return "\n\n".join(f"[{i}] {chunk}" for i, chunk in enumerate(case.retrieved_context or [], 1))


def share(flags: Sequence[bool]) -> float:
    """The share of true flags (callers never pass an empty sequence).

    Example:
        >>> share([True, False, True, True])
        0.75
    """
    return sum(flags) / len(flags)


class EmbeddingJudgeEvaluator(JudgeEvaluator):
    """A judge evaluator that also embeds texts (answer relevancy, answer correctness).

    ``embedder`` is an :class:`~assay.backends.embed.Embedder` or a spec string (default
    ``"minilm"``), resolved once and never pickled.
    """

    unpickled = (*JudgeEvaluator.unpickled, "_embedder")

    def __init__(self, judge: JudgeSpec = None, embedder: Any = "minilm") -> None:
        super().__init__(judge)
        self.embedder = embedder

    def embed(self, texts: Sequence[str]) -> Any:
        """L2-normalised rows for ``texts`` (a numpy array)."""
        from assay.backends.embed import get_embedder

        resolved = self.resolve_once(lambda: get_embedder(self.embedder), "_embedder")
        return resolved.encode(list(texts))
