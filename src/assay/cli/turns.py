"""``assay turns``: a suite of per-turn cases from a suite of conversations."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.options import file_argument, out_option


@click.command("turns")
@file_argument("suite")
@out_option(
    "Suite file of per-turn cases to write (evaluate it with any single-turn evaluator).",
    required=True,
)
def command(suite: Path, out: Path) -> None:
    """Split the conversations of SUITE into one case per answered assistant turn."""
    from assay.data import TestSuite, read_suite, write_suite
    from assay.data.turns import turn_cases

    cases = turn_cases(read_suite(suite))
    if not cases:
        raise click.ClickException(f"{suite}: no conversation has an answered assistant turn")
    write_suite(TestSuite(cases), out)
    conversations = len({c.metadata["conversation_id"] for c in cases})
    click.echo(f"{len(cases)} turn cases from {conversations} conversations", err=True)
    click.echo(str(out))
