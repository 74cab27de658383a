"""``assay traces import``: OpenTelemetry traces (OTLP JSON) → a suite file."""

from __future__ import annotations

import json
from pathlib import Path

import click

from assay.cli.options import file_argument, out_option


@click.group("traces")
def command() -> None:
    """Work with OpenTelemetry traces exported by an application."""


@command.command("import")
@file_argument("file")
@out_option("Suite file to write (JSONL, JSON, CSV or Parquet).", required=True)
@click.option(
    "--unused",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the spans that gave no case, with reasons, to this JSON file.",
)
def import_command(file: Path, out: Path, unused: Path | None) -> None:
    """Build one case per trace of FILE (OTLP JSON: gen_ai.* / OpenInference attributes)."""
    from assay.data import TestSuite, write_suite
    from assay.fileio import atomic_path
    from assay.traces import import_otlp

    report = import_otlp(file)
    if not report.cases:
        raise click.ClickException(f"{file}: no trace holds a user message or a tool call")
    write_suite(TestSuite(report.cases), out)
    kinds = {
        "trajectories": sum(c.trajectory is not None for c in report.cases),
        "conversations": sum(c.turns is not None for c in report.cases),
    }
    single = len(report.cases) - sum(kinds.values())
    click.echo(
        f"{len(report.cases)} cases ({single} single-turn, "
        f"{kinds['conversations']} conversations, {kinds['trajectories']} trajectories)",
        err=True,
    )
    if report.unused_spans:
        click.echo(f"{len(report.unused_spans)} spans gave no case, e.g.:", err=True)
        for span in report.unused_spans[:5]:
            click.echo(
                f"  trace {span['trace_id']} span {span['name']!r}: {span['reason']}", err=True
            )
        if unused is not None:
            with atomic_path(unused) as tmp:
                tmp.write_text(json.dumps(report.unused_spans, indent=2), encoding="utf-8")
    click.echo(str(out))
