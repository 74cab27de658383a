"""``assay plan``: write a commented starter validation plan for a suite."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.options import file_argument, out_option


@click.command("plan")
@file_argument("suite")
@out_option(
    "Plan file to write (not replaced if present unless --overwrite).", default=Path("plan.toml")
)
@click.option("--overwrite", is_flag=True, help="Replace an existing plan file.")
def command(suite: Path, out: Path, overwrite: bool) -> None:
    """Write a starter validation plan for SUITE: checks for what the suite can measure."""
    from assay.data import read_suite
    from assay.errors import InvalidInputError
    from assay.fileio import write_text
    from assay.verdict.starter import starter_plan

    if out.exists() and not overwrite:
        raise InvalidInputError(f"{out}: exists; pass --overwrite to replace it")
    text = starter_plan(read_suite(suite), suite_path=suite, plan_dir=out.resolve().parent)
    write_text(out, text)
    click.echo(str(out))
