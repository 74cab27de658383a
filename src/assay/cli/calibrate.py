"""``assay calibrate``: fit a calibrator on a run's scores and human labels; write the report."""

from __future__ import annotations

import click

from assay.cli.labelled import LabelledRun, labels_options
from assay.cli.options import fraction_option, int_option
from assay.cli.progress import console


@click.command("calibrate")
@labels_options
@click.option(
    "--method",
    type=click.Choice(["isotonic", "logistic", "ordinal", "monotone"]),
    default=None,
    help="Calibrator (default: isotonic for one metric, monotone for several).",
)
@int_option(
    "--n-boot",
    least=1,
    default=1000,
    help="Bootstrap resamples of the AUROC separation intervals (at least 1: the separation "
    "verdict is read from the interval).",
)
@fraction_option(
    "--alpha", default=0.1, help="Conformal miscoverage: sets cover with prob. >= 1-alpha."
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
    labelled: LabelledRun,
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
    from assay.calibrate.render import write_calibration
    from assay.calibrate.report import calibration_report

    names = labelled.metrics
    try:
        fractions = [float(f) for f in splits.split(",")]
    except ValueError:
        raise click.BadParameter(
            f"expected three numbers, got {splits!r}", param_hint="--splits"
        ) from None
    chosen = method or ("isotonic" if len(names) == 1 else "monotone")
    report, calibrator, plot = labelled.report(
        calibration_report,
        record={"labels": labelled.labels_source},
        method=chosen,
        alpha=alpha,
        splits=fractions,
        n_boot=n_boot,
        randomized=randomized,
    )
    paths = write_calibration(labelled.out_dir, report, plot, calibrator)
    cal, conf = report["calibration"], report["conformal"]
    console.print(
        f"{chosen} calibration of {', '.join(names)} on {report['n']} labelled cases: held-out "
        f"ECE {cal['ece']:.3f}, Brier {cal['brier']:.3f}; {1 - alpha:.0%} sets cover "
        f"{conf['coverage']:.3f}, review {conf['frac_review']:.1%}",
        soft_wrap=True,
    )
    for path in paths.values():
        click.echo(str(path))
