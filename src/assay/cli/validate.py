"""``assay validate``: check a suite file, or a validation plan, and summarise it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from assay.cli.options import file_argument


@click.command("validate")
@file_argument("suite")
def command(suite: Path) -> None:
    """Validate SUITE; print a summary, or every problem with file, row and field.

    Given a validation plan (a .toml file), check the plan before anything runs: its suite, that
    every metric a check names is one of its evaluators', that every threshold lies within its
    metric's range, and that its labels name the plan's criteria and the suite's cases.
    """
    if suite.suffix.lower() == ".toml":
        _plan(suite)
        return
    from assay.data import read_suite

    cases = read_suite(suite)
    fields = Counter(
        name
        for case in cases
        for name, value in case.model_dump(exclude_none=True).items()
        if value not in ({}, [], "")
    )
    click.echo(
        f"{suite}: {len(cases)} valid cases, models: "
        f"{', '.join(m or '(unnamed)' for m in cases.models)}"
    )
    for name, count in sorted(fields.items()):
        click.echo(f"  {name}: {count}")


def _plan(path: Path) -> None:
    """Validate a plan and print, per check, the metrics and the thresholds that decide it."""
    from assay.data import read_suite
    from assay.verdict.plan import load_plan
    from assay.verdict.preflight import preflight

    plan = load_plan(path)
    cases = list(read_suite(plan.suite_path).cases)
    found = preflight(plan, cases)
    for note in found.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(
        f"{path}: valid plan, {len(plan.check)} checks, {len(plan.run.evaluators)} evaluators, "
        f"suite {plan.suite_path} ({len(cases)} cases)"
    )
    for check in plan.check:
        limits = ", ".join(
            f"{m} {'–' if t is None else f'{t:g}'}" for m, t in found.thresholds[check.name].items()
        )
        how = (f"calibrated to label {check.label!r} (thresholds when uncalibrated: {limits})"
               if check.label else f"thresholds {limits}")
        click.echo(f"  {check.name} [{check.dimension}]: {how}; {check.appetite()}")
