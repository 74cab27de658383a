"""``assay judge-estimate``: judge calls, tokens and cost of a run, before running it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.options import (
    evaluators_option,
    file_argument,
    format_option,
    int_option,
    param_option,
    parse_params,
    split_names,
)

if TYPE_CHECKING:
    from assay.evaluators.judge_throughput import Throughput


@click.command("judge-estimate")
@file_argument("suite")
@evaluators_option("Evaluator names, comma-separated (judge evaluators are estimated).")
@param_option
@click.option("--judge", default=None,
              help="Judge spec to price the run with ('openai:gpt-4o-mini' or JSON).")
@int_option("--measure", least=0, default=0,
            help="Send this many of the run's real judge requests, one at a time, and report "
                 "the measured seconds per call, tokens/s and the run's projected duration.")
@format_option()
@click.option("--json", "as_json", is_flag=True, hidden=True, help="Same as --format json.")
def command(suite: Path, names: tuple[str, ...], params: tuple[str, ...], judge: str | None,
            measure: int, fmt: str, as_json: bool) -> None:
    """Estimate the judge calls, tokens and cost of evaluating SUITE (nothing is sent, unless
    --measure N sends N requests to time the judge).

    Only rows an evaluator would judge are counted: rows beyond a row limit (fact_check's
    max_rows) are reported, not priced.
    """
    from assay.data.suite import read_suite
    from assay.engine import resolve_evaluators
    from assay.evaluators.judge_estimate import estimate_judge_cost

    evaluators = resolve_evaluators(split_names(names), parse_params(params))
    cases = list(read_suite(suite).cases)
    estimate = estimate_judge_cost(evaluators, cases, judge=judge)
    throughput = None
    if measure:
        from assay.evaluators.judge_throughput import measure_throughput

        throughput = measure_throughput(evaluators, cases, measure, judge=judge)
    if as_json or fmt == "json":
        data = estimate.to_dict()
        if throughput is not None:
            data["throughput"] = throughput.to_dict()
        click.echo(json.dumps(data, indent=2))
        return
    cost = "unknown (no price for the model)" if estimate.cost_usd is None \
        else f"${estimate.cost_usd:.4f}"
    click.echo(f"{estimate.calls} judge calls ({estimate.cached_calls} already cached) for "
               f"{estimate.rows} judged rows, ~{estimate.prompt_tokens:,} prompt + "
               f"~{estimate.completion_tokens:,} completion tokens, cost {cost} on "
               f"{', '.join(estimate.models) or 'no judge'}")
    for name, part in estimate.per_evaluator.items():
        click.echo(f"  {name}: {part['rows']} rows, {part['calls']} calls, "
                   f"~{part['prompt_tokens']:,} prompt tokens")
        if part["rows_over_limit"]:
            click.echo(f"    row limit {part['row_limit']}: {part['rows_over_limit']} more rows "
                       "would be skipped and are not counted")
    if throughput is not None:
        _print_throughput(throughput)


def _print_throughput(t: Throughput) -> None:
    if not t.measured or t.seconds_per_call is None or t.projected_s is None:
        click.echo("measured: nothing to send (no uncached judge request)")
        return
    rate = "unknown" if t.tokens_per_s is None else f"{t.tokens_per_s:,.1f}"
    click.echo(f"measured {t.measured} calls to {t.model} ({t.failed} failed): "
               f"{t.seconds_per_call:.2f} s per call, {rate} completion tokens/s")
    click.echo(f"  the remaining {t.remaining_calls} calls take about "
               f"{t.projected_s / 60:.1f} min one at a time (divide by the concurrency only if "
               "the server decodes requests in parallel)")
