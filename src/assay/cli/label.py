"""``assay label RUN_DIR``: serve the labeling web app for a run (loopback by default)."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.options import directory_argument, int_option, seed_option
from assay.cli.progress import console


@click.command("label")
@directory_argument()
# RUN_DIR may be an assessment directory (``assay assess``) or its run: the drawn rounds come
# first, then the cases routed to REVIEW; only cases a labelled check reads are offered.
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--db",
    default=None,
    help="Database URL (postgresql://user@host/db) or SQLite file "
    "[default: RUN_DIR/labels.sqlite; for an assessment ASSESSMENT/labels.sqlite].",
)
@click.option(
    "--criteria",
    default=None,
    help="Comma-separated criteria: NAME (binary) or NAME:LOW-HIGH (ordinal), e.g. "
    "'grounded,relevant,quality:1-5' [default: those recorded, else grounded].",
)
@int_option(
    "--overlap", least=1, default=2, help="Labels wanted per case, each from a different annotator."
)
@click.option("--metric", default=None, help="Metric whose score bins stratify the queue.")
@click.option(
    "--calibrator",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="Calibrator file: uncertain cases first [default: RUN_DIR/calibration/calibrator.json "
    "when present].",
)
@int_option("--bins", least=1, default=5)
@seed_option()
@click.option(
    "--allow-remote", is_flag=True, help="Allow a non-loopback --host (other machines can connect)."
)
@click.option(
    "--show-scores",
    is_flag=True,
    help="Show machine scores, verdicts and evidence beside the form (review work). Hidden by "
    "default so labels used for calibration are not anchored on the metric being calibrated.",
)
def command(
    run_dir: Path,
    host: str,
    port: int,
    db: str | None,
    criteria: str | None,
    overlap: int,
    metric: str | None,
    calibrator: Path | None,
    bins: int,
    seed: int,
    allow_remote: bool,
    show_scores: bool,
) -> None:
    """Serve a web app where annotators label RUN_DIR's cases.

    Create annotators first with 'assay labels add-annotator RUN_DIR NAME' (prints a token);
    export with 'assay labels export RUN_DIR'.
    """
    from assay.label.assessment import label_run_dir, label_store_dir
    from assay.label.criteria import parse_criteria
    from assay.label.project import LabelProject
    from assay.label.server import check_bind, serve
    from assay.label.store import Store, database_url

    check_bind(host, allow_remote)
    store = Store(database_url(label_store_dir(run_dir), db))  # one store per assessment
    run_dir = label_run_dir(run_dir)  # an assessment: label its run
    project = LabelProject(
        run_dir,
        store,
        parse_criteria(criteria) if criteria else None,
        overlap=overlap,
        metric=metric,
        calibrator=calibrator,
        n_bins=bins,
        seed=seed,
        show_machine=show_scores,
    )
    shown = f"[{host}]" if ":" in host else host
    console.print(
        f"Labeling {len(project.entries)} cases of {run_dir} "
        f"({', '.join(c.spec() for c in project.criteria)}; store {store.safe_url})",
        soft_wrap=True,
    )
    if not store.annotators():
        console.print(
            f"[yellow]No annotators yet:[/yellow] run 'assay labels add-annotator {run_dir} NAME'",
            soft_wrap=True,
        )
    console.print(f"Open http://{shown}:{port}/  (Ctrl+C to stop)", soft_wrap=True)
    serve(project, host, port, allow_remote=allow_remote)
