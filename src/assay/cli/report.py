"""``assay report``: rebuild every report of a run directory (Markdown, JSON, HTML)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from assay.cli.options import directory_argument, int_option, seed_option
from assay.cli.progress import console

if TYPE_CHECKING:
    from assay.rundir.records import Manifest


def _record(manifest: Manifest, run_dir: Path, written: list[Path]) -> None:
    """Keep the manifest's file hashes true for the rebuilt reports."""
    from datetime import UTC, datetime

    from assay.rundir.store import update_manifest

    manifest["reports_rebuilt_at"] = datetime.now(UTC).isoformat()
    update_manifest(run_dir, manifest, written)


@click.command("report")
@directory_argument()
@int_option(
    "--resamples", least=10, default=1000, help="Bootstrap resamples for confidence intervals."
)
@seed_option("Bootstrap seed.")
@click.option(
    "--heatmap",
    metavar="ROWS,COLUMNS",
    help="Fields of the heatmaps, e.g. topic,perturbation (default: chosen from the data).",
)
def command(
    run_dir: Path, resamples: int, seed: int, heatmap: str | None
) -> None:
    """Rebuild the reports of RUN_DIR (report.html, report.md, analysis.json, leaderboard.md).

    The verdict is decided again by the run's implicit plan (docs/report.md); to decide by other
    rules, write a validation plan (``assay plan``, ``assay assess``).
    """
    from assay.report import write_reports
    from assay.rundir import HTML_FILE, load_run

    run = load_run(run_dir)
    axes = None
    if heatmap:
        fields = [f.strip() for f in heatmap.split(",")]
        allowed = {"topic", "query_type", "perturbation", "model", "evaluator"}
        if len(fields) != 2 or fields[0] == fields[1] or not set(fields) <= allowed:
            raise click.BadParameter(
                f"expected two different fields of {sorted(allowed)}; got {heatmap!r}",
                param_hint="--heatmap",
            )
        axes = (fields[0], fields[1])
    written = write_reports(
        run, run_dir, n_resamples=resamples, heatmap_axes=axes, seed=seed
    )
    _record(run.manifest, run_dir, written)
    console.print(f"Wrote {len(written)} report files into {run_dir}.")
    click.echo(str(run_dir / HTML_FILE))
