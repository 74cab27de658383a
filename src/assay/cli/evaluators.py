"""``assay evaluators``: list the evaluator catalogue."""

from __future__ import annotations

import json

import click


@click.command("evaluators")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "json", "markdown"]),
    default="table",
    show_default=True,
)
def command(fmt: str) -> None:
    """List every evaluator: inputs, metrics, directions, thresholds, reproducibility."""
    from assay.evaluators.registry import catalogue
    from assay.report.catalogue import catalogue_markdown

    rows = catalogue()
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
    elif fmt == "markdown":
        click.echo(catalogue_markdown(rows))
    else:
        from rich.table import Table

        from assay.cli.progress import console

        table = Table(
            "evaluator", "family", "needs", "metrics (↑ higher is better)", "reproducible", "extra"
        )
        for row in rows:
            metrics = ", ".join(
                f"{m['name']} {'↑' if m['higher_is_better'] else '↓'}"
                + (
                    f" ≥{m['threshold']}"
                    if m["threshold"] is not None and m["higher_is_better"]
                    else f" ≤{m['threshold']}"
                    if m["threshold"] is not None
                    else ""
                )
                for m in row["metrics"]
            )
            table.add_row(
                row["name"],
                row["family"],
                ", ".join(row["requires"]),
                metrics,
                "yes" if row["reproducible"] else "no",
                row["extra"] or "",
            )
        console.width = max(console.width, 160)
        console.print(table)
