"""``assay judge-estimate``: judge calls, tokens and cost of a run, before running it."""

from __future__ import annotations

import json
from pathlib import Path

import click

from assay.cli.options import parse_params


@click.command("judge-estimate")
@click.argument("suite", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-e", "--evaluators", "names", required=True, multiple=True,
              help="Evaluator names, comma-separated (judge evaluators are estimated).")
@click.option("--param", "params", multiple=True, metavar="EVALUATOR.KEY=VALUE",
              help="Set an evaluator parameter (JSON values); repeatable.")
@click.option("--judge", default=None,
              help="Judge spec to price the run with ('openai:gpt-4o-mini' or JSON).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def command(suite: Path, names: tuple[str, ...], params: tuple[str, ...], judge: str | None,
            as_json: bool) -> None:
    """Estimate the judge calls, tokens and cost of evaluating SUITE (nothing is sent).

    Only rows an evaluator would judge are counted: rows beyond a row limit (fact_check's
    max_rows) are reported, not priced.
    """
    from assay.data.suite import read_suite
    from assay.engine import resolve_evaluators
    from assay.evaluators.judge_estimate import estimate_judge_cost

    evaluators = resolve_evaluators(
        [n.strip() for name in names for n in name.split(",") if n.strip()],
        parse_params(params),
    )
    estimate = estimate_judge_cost(evaluators, list(read_suite(suite).cases), judge=judge)
    if as_json:
        click.echo(json.dumps(estimate.to_dict(), indent=2))
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
