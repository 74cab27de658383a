"""``assay validate``: check a suite file and summarise it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from assay.cli.options import file_argument


@click.command("validate")
@file_argument("suite")
def command(suite: Path) -> None:
    """Validate SUITE; print a summary, or every problem with file, row and field."""
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
