"""``assay calibrate``: fit a calibrator on a run's scores and human labels; write the report."""

from __future__ import annotations

from pathlib import Path

import click

from assay.cli.progress import console


def labels_options(func):  # type: ignore[no-untyped-def]
    """Options shared by ``assay calibrate`` and ``assay thresholds``."""
    options = [
        click.argument("run_dir", type=click.Path(exists=True, file_okay=False, path_type=Path)),
        click.option(
            "-m",
            "--metric",
            "metrics",
            required=True,
            multiple=True,
            help="Metric to calibrate (repeatable, or comma-separated).",
        ),
        click.option(
            "--labels",
            "labels_file",
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            help="CSV/JSONL/JSON with columns id, model (optional) and the label.",
        ),
        click.option(
            "--label",
            default=None,
            help="Label column of --labels (default 'label'), or without --labels the "
            "key of the suite's 'labels' field (e.g. correct).",
        ),
        click.option(
            "--pass-at",
            type=float,
            default=None,
            help="Graded labels >= this value count as PASS (e.g. 1.0, or 4 of 5).",
        ),
        click.option("--seed", type=int, default=0, show_default=True),
        click.option(
            "--out",
            type=click.Path(file_okay=False, path_type=Path),
            default=None,
            help="Output folder (default RUN_DIR/calibration).",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def split_names(values: tuple[str, ...]) -> list[str]:
    """Repeatable, comma-separable option values as a flat list."""
    return [v.strip() for value in values for v in value.split(",") if v.strip()]


@click.command("calibrate")
@labels_options
@click.option(
    "--method",
    type=click.Choice(["isotonic", "logistic", "ordinal", "monotone"]),
    default=None,
    help="Calibrator (default: isotonic for one metric, monotone for several).",
)
@click.option(
    "--n-boot",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Bootstrap resamples of the AUROC separation intervals (at least 1: the separation "
    "verdict is read from the interval).",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.1,
    show_default=True,
    help="Conformal miscoverage: sets cover with prob. >= 1-alpha.",
)
@click.option(
    "--splits", default="0.5,0.25,0.25", show_default=True, help="Fit / conformal / test fractions."
)
@click.option(
    "--randomized",
    is_flag=True,
    help="Smoothed conformal sets: exact coverage when scores tie (e.g. a metric with few "
    "distinct values); sets then depend on --seed.",
)
def command(
    run_dir: Path,
    metrics: tuple[str, ...],
    labels_file: Path | None,
    label: str | None,
    pass_at: float | None,
    seed: int,
    out: Path | None,
    method: str | None,
    n_boot: int,
    alpha: float,
    splits: str,
    randomized: bool,
) -> None:
    """Calibrate RUN_DIR's METRIC scores against human labels.

    Writes calibration.json / .md / _plot.json and calibrator.json (use it with
    'assay evaluate --calibrator').
    """
    from assay.calibrate.dataset import load_labelled
    from assay.calibrate.render import write_calibration
    from assay.calibrate.report import calibration_report
    from assay.rundir.layout import CALIBRATION_DIR

    names = split_names(metrics)
    try:
        fractions = [float(f) for f in splits.split(",")]
    except ValueError:
        raise click.BadParameter(
            f"expected three numbers, got {splits!r}", param_hint="--splits"
        ) from None
    data = load_labelled(run_dir, names, labels_file, label)
    chosen = method or ("isotonic" if len(names) == 1 else "monotone")
    report, calibrator, plot = calibration_report(
        data.scores,
        data.labels,
        names,
        method=chosen,
        higher_is_better=data.higher_is_better,
        pass_at=pass_at,
        alpha=alpha,
        splits=fractions,
        n_boot=n_boot,
        seed=seed,
        randomized=randomized,
    )
    report["run_dir"] = str(run_dir)
    report["labels"] = str(labels_file) if labels_file else f"suite labels[{label}]"
    report["dropped"] = data.dropped
    paths = write_calibration(out or run_dir / CALIBRATION_DIR, report, plot, calibrator)
    for warning in report["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    cal, conf = report["calibration"], report["conformal"]
    console.print(
        f"{chosen} calibration of {', '.join(names)} on {report['n']} labelled cases: held-out "
        f"ECE {cal['ece']:.3f}, Brier {cal['brier']:.3f}; {1 - alpha:.0%} sets cover "
        f"{conf['coverage']:.3f}, review {conf['frac_review']:.1%}",
        soft_wrap=True,
    )
    for path in paths.values():
        click.echo(str(path))
