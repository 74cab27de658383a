"""``assay validate``: check a suite file and summarise it."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import click

from assay.cli.options import file_argument, format_option


@click.command("validate")
@file_argument("suite")
@format_option()
def command(suite: Path, fmt: str) -> None:
    """Validate SUITE; print a summary, or every problem with file, row and field."""
    from assay.data import read_suite

    cases = read_suite(suite)
    fields = Counter(
        name
        for case in cases
        for name, value in case.model_dump(exclude_none=True).items()
        if value not in ({}, [], "")
    )
    if fmt == "json":
        summary = {
            "suite": str(suite),
            "cases": len(cases),
            "models": list(cases.models),
            "fields": dict(sorted(fields.items())),
        }
        click.echo(json.dumps(summary, indent=2))
        return
    click.echo(
        f"{suite}: {len(cases)} valid cases, models: "
        f"{', '.join(m or '(unnamed)' for m in cases.models)}"
    )
    for name, count in sorted(fields.items()):
        click.echo(f"  {name}: {count}")
