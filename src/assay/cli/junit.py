"""``assay junit``: gate a run on its thresholds and export JUnit XML for CI."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.options import directory_argument, out_option, parse_thresholds, threshold_option
from assay.cli.progress import console


@click.command("junit")
@directory_argument()
@out_option("JUnit XML file to write (default: RUN_DIR/junit.xml).")
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    help="Gate on this metric (repeatable; default: every primary metric).",
)
@threshold_option
@click.option(
    "--require-measured/--allow-inconclusive",
    default=True,
    show_default=True,
    help="An INCONCLUSIVE check (unmeasured beyond its tolerance, too few cases) or a run with "
    "nothing decided fails the gate; --allow-inconclusive fails only on FAIL.",
)
@click.option("--primary-only", is_flag=True, help="Per-case tests for primary metrics only.")
@click.option("--no-cases", is_flag=True, help="Only the gate checks, no per-case tests.")
@click.option("--check", is_flag=True, help="Exit with status 1 when the gate fails.")
def command(
    run_dir: Path,
    out: Path | None,
    metrics: tuple[str, ...],
    thresholds: tuple[str, ...],
    require_measured: bool,
    primary_only: bool,
    no_cases: bool,
    check: bool,
) -> None:
    """Gate RUN_DIR on its verdict and write JUnit XML (per check and per case).

    A run is decided by its implicit plan (the verdict's rules, see report.md): one test per
    system × check; ``--check`` exits 0 PASS, 1 FAIL, 3 INCONCLUSIVE (an undecided check is an
    error in the XML, never a skipped test). RUN_DIR may also be an assessment directory
    (``assay assess``): its verdict is read as it stands.
    """
    from assay.gating import check_run, write_junit
    from assay.rundir.layout import VERDICT_FILE
    from assay.rundir.run import load_run
    from assay.verdict.junit import write_verdict_junit

    path = out or run_dir / "junit.xml"
    if (run_dir / VERDICT_FILE).is_file():
        code = write_verdict_junit(run_dir, path)
        console.print(f"Verdict exit status {code} (0 PASS, 1 FAIL, 3 INCONCLUSIVE).")
        click.echo(str(path))
        if check and code:
            raise SystemExit(code)
        return

    run = load_run(run_dir)
    gate = check_run(
        run,
        metrics=list(metrics) or None,
        thresholds=parse_thresholds(thresholds),
        require_measured=require_measured,
    )
    path = write_junit(
        run,
        path,
        gate=gate,
        include_cases=not no_cases,
        primary_only=primary_only,
    )
    console.print(gate.message(), markup=False)
    click.echo(str(path))
    if check and not gate.passed:
        raise SystemExit(gate.exit_code)
