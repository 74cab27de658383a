"""``assay labels``: annotators and export of the labels collected with ``assay label``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from assay.cli.options import choice_option, directory_argument, format_option, out_option
from assay.cli.progress import console

_db_option = click.option(
    "--db",
    default=None,
    help="Database URL or SQLite file [default: RUN_DIR/labels.sqlite].",
)


def _store(run_dir: Path, db: str | None):  # type: ignore[no-untyped-def]
    from assay.label.store import Store, database_url

    store = Store(database_url(run_dir, db))
    store.migrate()
    return store


@click.group("labels")
def command() -> None:
    """Manage annotators and export labels collected with 'assay label'."""


@command.command("add-annotator")
@directory_argument()
@click.argument("name")
@_db_option
def add_annotator(run_dir: Path, name: str, db: str | None) -> None:
    """Create annotator NAME and print their access token (shown once)."""
    token = _store(run_dir, db).add_annotator(name)
    click.echo(token)


@command.command("reset-token")
@directory_argument()
@click.argument("name")
@_db_option
def reset_token(run_dir: Path, name: str, db: str | None) -> None:
    """Give annotator NAME a new token (the old one stops working) and print it."""
    click.echo(_store(run_dir, db).reset_token(name))


@command.command("annotators")
@directory_argument()
@_db_option
@format_option()
def annotators(run_dir: Path, db: str | None, fmt: str) -> None:
    """List annotators with their label counts."""
    rows = _store(run_dir, db).annotators()
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, default=str))
        return
    for a in rows:
        click.echo(f"{a['name']}\t{a['labels']} labelled\t{a['skipped']} skipped")


@command.command("export")
@directory_argument()
@_db_option
@out_option("CSV to write [default: RUN_DIR/labels.csv].")
@choice_option("--mode", choices=["majority", "per-annotator"])
@click.option("--criterion", "criteria", multiple=True, help="Criterion to export (repeatable).")
@choice_option(
    "--ties",
    choices=["drop", "low", "high"],
    help="Majority ties: leave the case out, or take the lower / higher value.",
)
@click.option("--annotator", default=None, help="Only this annotator's labels (per-annotator).")
def export(
    run_dir: Path,
    db: str | None,
    out: Path | None,
    mode: str,
    criteria: tuple[str, ...],
    ties: str,
    annotator: str | None,
) -> None:
    """Write the labels file that 'assay calibrate --labels' reads."""
    from assay.label.export import export_labels

    summary = export_labels(
        _store(run_dir, db),
        out or run_dir / "labels.csv",
        criteria=list(criteria) or None,
        mode=mode,
        ties=ties,
        annotator=annotator,
    )
    dropped = "".join(
        f"; {n} without a majority for {c} left out" for c, n in summary.dropped_ties.items()
    )
    console.print(
        f"{summary.rows} rows ({mode}; {', '.join(summary.criteria)}){dropped}", soft_wrap=True
    )
    click.echo(str(summary.path))
