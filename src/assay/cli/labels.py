"""``assay labels``: annotators, labelling rounds and export of the labels collected with
``assay label``. Given an assessment directory or its run, every subcommand uses the one store of
the assessment (``ASSESSMENT/labels.sqlite`` unless ``--db``)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from assay.cli.options import choice_option, directory_argument, format_option, out_option
from assay.cli.progress import console

_db_option = click.option(
    "--db",
    default=None,
    help="Database URL or SQLite file [default: RUN_DIR/labels.sqlite; for an assessment "
    "ASSESSMENT/labels.sqlite].",
)


def _store(run_dir: Path, db: str | None):  # type: ignore[no-untyped-def]
    from assay.label.assessment import label_store_dir
    from assay.label.store import Store, database_url

    store = Store(database_url(label_store_dir(run_dir), db))
    store.migrate()
    return store


@click.group("labels")
def command() -> None:
    """Manage annotators, draw labelling rounds and export labels collected with 'assay label'."""


@command.command("sample")
@directory_argument("assessment")
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    required=True,
    help="Labels to draw in this round, split evenly across the systems.",
)
@choice_option(
    "--design",
    choices=["active", "uniform"],
    help="active: more labels where the calibrated P(PASS) is uncertain (with a floor); "
    "uniform: a simple random sample.",
)
@click.option("--criterion", default=None, help="Only checks reading this label criterion.")
@click.option("--check", "checks", multiple=True, help="Only this check (repeatable).")
@click.option("--seed", type=int, default=None, help="Seed of the draw [default: a fresh one].")
@click.option(
    "--floor",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.5,  # assay.label.sample.DEFAULT_FLOOR (not imported here: --help stays light)
    show_default=True,
    help="active: no case below this share of the uniform probability (below 0.5 the round "
    "rectifies the bound only through the exact betting bound).",
)
@_db_option
def sample(
    assessment: Path,
    budget: int,
    design: str,
    criterion: str | None,
    checks: tuple[str, ...],
    seed: int | None,
    floor: float,
    db: str | None,
) -> None:
    """Draw the next labelling round for ASSESSMENT's labelled checks.

    Label the drawn cases with 'assay label ASSESSMENT' (they come first), then re-assess.
    """
    from assay.label.next_round import draw_next_rounds

    store = _store(assessment, db)
    drawn = draw_next_rounds(
        assessment,
        store,
        budget,
        design,
        criterion=criterion,
        checks=checks,
        seed=seed,
        floor=floor,
    )
    for item in drawn:
        r = item.round
        fallback = (
            f" (asked {item.asked}: no calibrated P(PASS) yet)" if item.asked != r.design else ""
        )
        click.echo(
            f"round {r.number}: {r.design}{fallback}, criterion {r.criterion}, scope {r.scope}, "
            f"checks {', '.join(item.checks)}, seed {r.extra.get('seed')}"
        )
        for model, pool in r.pool_sizes.items():
            units = [d for d in r.draws if d.model == model]
            times = sum(d.times for d in units)
            repeats = f" ({times} draws)" if times != len(units) else ""
            saving = item.saving.get(model)
            foreseen = (
                f"; at best {saving:.2f}× fewer labels than uniform for the same width"
                if saving is not None
                else ""
            )
            click.echo(
                f"  {model}: {len(units)} drawn{repeats} / {pool} in pool "
                f"({item.labelled.get(model, 0)} labelled before){foreseen}"
            )
    console.print(
        f"Label them with 'assay label {assessment}' (drawn cases come first), then re-assess.",
        soft_wrap=True,
    )


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
