"""``assay demo``: evaluate the bundled banking RAG demo end to end."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.progress import console, progress_bar


@click.command("demo")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("demo-run"),
    show_default=True,
    help="Run directory to write (replaced if present).",
)
def command(out: Path) -> None:
    """Evaluate the bundled banking demo with every core evaluator; print the report path."""
    from assay.demo import demo_evaluators, demo_suite_path
    from assay.engine import evaluate

    evaluators, missing = demo_evaluators()
    if missing:
        console.print(f"Skipping {', '.join(missing)}: install 'assay[embed,toxicity]' for them.")
    console.print(f"Evaluating the banking demo with {len(evaluators)} evaluators ...")
    with progress_bar() as progress:
        run = evaluate(demo_suite_path(), evaluators, out=out, overwrite=True, progress=progress)
    failing = [r for r in run.leaderboard if r["primary"] and r["passed"] is False]
    console.print(f"{len(run.problems)} problems, {len(failing)} primary metrics below threshold.")
    click.echo(str(out / "report.md"))
