"""``assay evaluate``: evaluate a suite into a run directory."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.options import (
    evaluators_option,
    executor_options,
    file_argument,
    int_option,
    out_option,
    param_option,
    parse_params,
    parse_thresholds,
    ray_options,
    seed_option,
    split_names,
    threshold_option,
)
from assay.cli.progress import console, progress_bar


@click.command("evaluate")
@file_argument("suite")
@evaluators_option("Evaluator names, comma-separated (see 'assay evaluators').")
@threshold_option
@param_option
@out_option("Run directory to write.", directory=True, required=True)
@click.option("--overwrite", is_flag=True, help="Replace an existing run directory.")
@seed_option("Seed recorded in the run.")
@int_option("--batch-size", least=1, default=512)
@click.option(
    "--calibrator",
    "calibrators",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Calibrator file from 'assay calibrate': adds calibrated probabilities and prediction "
    "sets (calibrated.parquet/.csv); repeatable.",
)
@executor_options()
@int_option(
    "--judge-probes", least=0, default=0,
    help="Probe each judge evaluator for verbosity and context-order bias on up to N cases "
    "(extra judge calls); findings go to problems.json / insights.json and the report.",
)  # fmt: skip
@int_option(
    "--judge-repeats", least=1, default=1,
    help="Ask each judge K times per case (cases become K linked samples, each judged afresh); "
    "the judge's spread and the cases whose verdict flips go to the report's repeats section "
    "and problems.json; see docs/judge.md.",
)  # fmt: skip
def command(
    suite: Path,
    names: tuple[str, ...],
    thresholds: tuple[str, ...],
    params: tuple[str, ...],
    out: Path,
    overwrite: bool,
    seed: int,
    batch_size: int,
    calibrators: tuple[Path, ...],
    executor: str,
    address: str | None,
    workers: int | None,
    worker_cpus: float,
    worker_gpus: float,
    judge_probes: int,
    judge_repeats: int,
) -> None:
    """Evaluate SUITE (JSONL, JSON, CSV or Parquet) and write a run directory."""
    from assay.memory import use_system_allocator
    from assay.pipeline import evaluate

    use_system_allocator()  # the process is ours: Arrow's freed pages are trimmed with the heap

    evaluators = split_names(names)
    with progress_bar() as progress:
        run = evaluate(
            suite,
            evaluators,
            params=parse_params(params),
            thresholds=parse_thresholds(thresholds),
            out=out,
            overwrite=overwrite,
            seed=seed,
            batch_size=batch_size,
            progress=progress,
            calibrators=list(calibrators),
            judge_probes=judge_probes,
            judge_repeats=judge_repeats,
            executor=executor,
            executor_options=(
                ray_options(address, workers, worker_cpus, worker_gpus)
                if executor == "ray"
                else None
            ),
        )  # fmt: skip
    decision = _decision(Path(out))
    summary = f"Verdict: {decision} (implicit plan, report.md); {len(run.problems)} problems."
    console.print(summary, markup=False)
    click.echo(str(Path(out) / "report.md"))


def _decision(run_dir: Path) -> str:
    """The verdict the run's reports state (``analysis.json``)."""
    import json

    from assay.rundir.layout import ANALYSIS_FILE

    analysis = json.loads((run_dir / ANALYSIS_FILE).read_text(encoding="utf-8"))
    return str(analysis["verdict"]["decision"])
