"""``assay compare``: what changed between two runs, regressions first."""

from __future__ import annotations

import json
from pathlib import Path

import click

from assay.cli.options import (
    choice_option,
    directory_argument,
    int_option,
    out_option,
    seed_option,
)
from assay.cli.progress import console


@click.command("compare")
@directory_argument("run_a")
@directory_argument("run_b")
@out_option("Directory for comparison.json and comparison.md.", directory=True)
@choice_option("--format", "fmt", choices=["markdown", "json"], help="What to print on stdout.")
@int_option("--resamples", least=10, default=1000)
@seed_option()
@click.option(
    "--fail-on-regression",
    is_flag=True,
    help="Exit with status 1 when any metric regressed (for CI).",
)
def command(
    run_a: Path,
    run_b: Path,
    out: Path | None,
    fmt: str,
    resamples: int,
    seed: int,
    fail_on_regression: bool,
) -> None:
    """Compare RUN_B (new) against RUN_A (baseline): metric deltas per model with significance."""
    from assay.analyze.compare import compare_runs
    from assay.fileio import write_json, write_text
    from assay.report.comparison import comparison_markdown
    from assay.rundir.run import load_run

    comparison = compare_runs(load_run(run_a), load_run(run_b), n_resamples=resamples, seed=seed)
    page = comparison_markdown(comparison)
    if out is not None:
        write_json(out / "comparison.json", comparison)
        write_text(out / "comparison.md", page)
        console.print(f"Wrote comparison.json and comparison.md into {out}.")
    if fmt == "json":
        click.echo(json.dumps(comparison, indent=2, ensure_ascii=False))
    else:
        click.echo(page, nl=False)
    regressions = comparison["summary"]["regression"]
    if regressions:
        console.print(f"[red]{regressions} regressions[/red]")
    if fail_on_regression and regressions:
        raise SystemExit(1)
