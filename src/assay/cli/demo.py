"""``assay demo``: validate the bundled banking RAG demo end to end with its validation plan."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.options import out_option
from assay.cli.progress import console, progress_bar


@click.command("demo")
@out_option(
    "Assessment directory to write (its run is reused when complete and unchanged).",
    directory=True,
    default=Path("demo-run"),
)
def command(out: Path) -> None:
    """Run the demo's validation plan: evaluate, calibrate to its human labels, decide.

    Prints each system's decision per dimension and the path of ``verdict.md``; the run's own
    report is ``OUT/run/report.md``. A demo, not a gate: the exit status is 0 whatever the verdict.
    """
    from assay.demo import demo_plan
    from assay.rundir.layout import VERDICT_MD
    from assay.verdict import assess

    plan, missing = demo_plan()
    if missing:
        console.print(f"Skipping {', '.join(missing)}: install 'assay[embed,toxicity]' for them.")
    console.print(f"Validating the banking demo with {len(plan.run.evaluators)} evaluators ...")
    with progress_bar() as progress:
        assessment = assess(plan, out, progress=progress)
    for model in assessment.models:
        per = assessment.dimension_decisions(model)
        summary = ", ".join(f"{dim} {decision}" for dim, decision in per.items())
        console.print(f"{model}: {assessment.model_decision(model)} ({summary})", markup=False)
    click.echo(str(out / VERDICT_MD))
