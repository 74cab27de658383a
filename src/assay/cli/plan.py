"""``assay plan``: write a commented starter validation plan for a suite."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("plan")
@click.argument("suite", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("plan.toml"),
    show_default=True,
    help="Plan file to write (not replaced if present unless --overwrite).",
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
