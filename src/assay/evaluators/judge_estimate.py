"""Dry-run estimates of judge calls, tokens and cost before a run starts.

Every judge evaluator plans the calls it would make for each case: first-stage requests exactly
as they would be sent (so those already in the cache are counted as free), later stages (which
depend on the judge's first replies) approximated from the sentence split of the text. Tokens are
estimated at about four characters per token; parse retries are not included, so treat the
figures as a lower bound on calls and a rough guide to cost. Only the cases an evaluator would
send to the judge are counted: cases it skips before any call, and those beyond its row limit
(e.g. ``fact_check``'s ``max_rows``), are left out and the latter reported as
``rows_over_limit``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from assay.backends.llm.client import Judge
from assay.backends.llm.factory import JudgeSpec, make_judge
from assay.backends.llm.protocol import Usage, approx_tokens
from assay.data.case import TestCase
from assay.data.samples import judge_sample
from assay.evaluators.base import Evaluator
from assay.evaluators.judge_base import JudgeEvaluator


@dataclass
class JudgeEstimate:
    """Planned judge calls, tokens and cost (``cost_usd`` None when a model has no price).

    ``rows`` counts the cases that would be judged; ``rows_over_limit`` those an evaluator's row
    limit would skip (not counted in calls, tokens or cost).
    """

    rows: int = 0
    rows_over_limit: int = 0
    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    per_evaluator: dict[str, dict[str, Any]] = field(default_factory=dict)
    models: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return asdict(self)


def estimate_judge_cost(
    evaluators: Iterable[Evaluator],
    cases: Sequence[TestCase],
    judge: JudgeSpec = None,
) -> JudgeEstimate:
    """Estimate what running the judge ``evaluators`` over ``cases`` would cost.

    ``judge`` overrides the evaluators' own judges (useful to price a run on another model).
    Non-judge evaluators, cases lacking a required field and cases beyond an evaluator's row
    limit (:meth:`~assay.evaluators.judge_base.JudgeEvaluator.rows_left`) are not counted.

    Example:
        >>> from assay.evaluators.judge_answer import JudgeQAAccuracy
        >>> from assay.testing import sample_cases
        >>> cases = sample_cases()
        >>> est = estimate_judge_cost([JudgeQAAccuracy()], cases, judge="openai:gpt-4o-mini")
        >>> est.calls, est.cost_usd is not None and est.cost_usd > 0
        (7, True)
    """
    override = make_judge(judge) if judge is not None else None
    total = JudgeEstimate()
    for evaluator in evaluators:
        if not isinstance(evaluator, JudgeEvaluator):
            continue
        client: Judge = override or evaluator.judge_client()
        part = JudgeEstimate()
        limit = evaluator.rows_left()
        for case in cases:
            if evaluator.missing_fields(case):
                continue
            planned = evaluator.plan(case)
            if not planned:
                continue
            if limit is not None and part.rows >= limit:
                part.rows_over_limit += 1
                continue
            part.rows += 1
            for request, completion in planned:
                part.calls += 1
                # a sample's judgement has a cache entry of its own (JudgeEvaluator.evaluate)
                if client.is_cached(replace(request, sample=judge_sample(case))):
                    part.cached_calls += 1
                    continue
                usage = Usage(approx_tokens(request.prompt_text), completion, estimated=True)
                part.prompt_tokens += usage.prompt_tokens
                part.completion_tokens += usage.completion_tokens
                cost = client.prices.cost(client.model, usage)
                part.cost_usd = None if cost is None or part.cost_usd is None \
                    else part.cost_usd + cost
        total.per_evaluator[evaluator.name] = {
            "model": client.model,
            "row_limit": limit,
            **{k: v for k, v in part.to_dict().items() if k not in ("per_evaluator", "models")},
        }
        if client.model not in total.models:
            total.models.append(client.model)
        total.rows += part.rows
        total.rows_over_limit += part.rows_over_limit
        total.calls += part.calls
        total.cached_calls += part.cached_calls
        total.prompt_tokens += part.prompt_tokens
        total.completion_tokens += part.completion_tokens
        total.cost_usd = None if part.cost_usd is None or total.cost_usd is None \
            else total.cost_usd + part.cost_usd
    if total.cost_usd is not None:
        total.cost_usd = round(total.cost_usd, 6)
    return total
