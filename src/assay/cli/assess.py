"""``assay assess``: run a validation plan end to end and print the verdict."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.options import executor_options, file_argument, out_option, ray_options
from assay.cli.progress import console, progress_bar


@click.command("assess")
@file_argument("plan")
@out_option(
    "Assessment directory (run/, verdict.json, verdict.md, verdict.html, review_queue.jsonl). "
    "A complete run made from the same inputs is reused, so re-running after labelling is quick.",
    directory=True,
    required=True,
)
@executor_options(from_plan=True)
def command(
    plan: Path,
    out: Path,
    executor: str | None,
    address: str | None,
    workers: int | None,
    worker_cpus: float | None,
    worker_gpus: float | None,
) -> None:
    """Evaluate, calibrate to human labels and decide each dimension of PLAN (a TOML file).

    --executor ray runs every evaluator of the plan on a Ray cluster (docs/distributed.md); the
    decisions are the same as locally.

    Exit status: 0 every system PASSes, 1 a system FAILs, 3 undecided (INCONCLUSIVE),
    2 an error in the plan or the input.
    """
    from assay.memory import use_system_allocator
    from assay.rundir.layout import VERDICT_MD
    from assay.verdict import assess, load_plan

    use_system_allocator()  # the process is ours, as for ``assay evaluate``
    validation = load_plan(plan)
    console.print(f"Assessing {validation.title!r}: {len(validation.check)} checks ...")
    with progress_bar() as progress:
        assessment = assess(
            validation,
            out,
            progress=progress,
            executor=executor,
            executor_options=ray_options(address, workers, worker_cpus, worker_gpus) or None,
        )
    for model in assessment.models:
        decisions = ", ".join(
            f"{dim} {decision}" for dim, decision in assessment.dimension_decisions(model).items()
        )
        console.print(f"{model}: {assessment.model_decision(model)} ({decisions})", markup=False)
    console.print(f"Verdict: {assessment.decision}", markup=False)
    click.echo(str(out / VERDICT_MD))
    raise SystemExit(assessment.exit_code)
