"""``assay evaluators``: list the evaluator catalogue."""

from __future__ import annotations

import json

import click

from assay.cli.options import format_option


@click.command("evaluators")
@format_option("markdown")
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
        from rich.console import Console
        from rich.table import Table

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
        # the listing is the command's output: stdout (rich reads sys.stdout when it prints)
        Console(width=160, soft_wrap=False).print(table)
