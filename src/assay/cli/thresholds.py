"""``assay thresholds``: choose metric thresholds from human labels and a risk appetite."""

from __future__ import annotations

import click

from assay.cli.labelled import LabelledRun, labels_options
from assay.cli.options import split_names
from assay.cli.progress import console


def _risk(value: str) -> str | float:
    if value in ("high", "moderate", "low"):
        return value
    try:
        return float(value)
    except ValueError:
        raise click.BadParameter(
            f"expected high, moderate, low or a confidence level; got {value!r}",
            param_hint="--risk",
        ) from None


@click.command("thresholds")
@labels_options
@click.option(
    "--method",
    "methods",
    multiple=True,
    help="Threshold methods (default all): normal, kfold, kde, logistic_youden, "
    "logistic_false_pass, polynomial, spline, conformal and installed plugins (entry-point "
    "group assay.thresholds).",
)
@click.option(
    "--risk",
    default="moderate",
    show_default=True,
    help="Risk appetite high (90%), moderate (95%), low (99%), or a confidence level.",
)
@click.option(
    "--false-pass-rate",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=None,
    help="Target false-pass rate (default 1 - confidence).",
)
@click.option(
    "--folds",
    type=click.IntRange(min=2),
    default=5,
    show_default=True,
    help="K of the kfold method.",
)
@click.option(
    "--aggregate",
    type=click.Choice(["mean", "max"]),
    default="mean",
    show_default=True,
    help="How kfold combines fold thresholds.",
)
@click.option(
    "--held-out",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=0.3,
    show_default=True,
    help="Fraction kept to measure Type I/II errors.",
)
@click.option(
    "--n-boot",
    type=click.IntRange(min=0),
    default=200,
    show_default=True,
    help="Bootstrap resamples of each threshold's interval (0: no intervals). The AUROC "
    "separation check always uses at least 200.",
)
def command(
    labelled: LabelledRun,
    methods: tuple[str, ...],
    risk: str,
    false_pass_rate: float | None,
    folds: int,
    aggregate: str,
    held_out: float,
    n_boot: int,
) -> None:
    """Select thresholds for RUN_DIR's METRIC scores with every method; write thresholds.json,
    thresholds.md and thresholds_plot.json."""
    from assay.calibrate.render import write_thresholds
    from assay.calibrate.report import thresholds_report
    from assay.calibrate.thresholds import METHODS, THRESHOLD_METHODS

    names = labelled.metrics
    known = [*METHODS, *(m for m in THRESHOLD_METHODS.names() if m not in METHODS)]
    chosen = split_names(methods) or known
    unknown = [m for m in chosen if m not in THRESHOLD_METHODS]
    if unknown:
        raise click.BadParameter(
            f"unknown {unknown}; choose from {', '.join(known)}", param_hint="--method"
        )
    data = labelled.load()
    report, plot = thresholds_report(
        data.scores,
        data.labels,
        names,
        methods=chosen,
        higher_is_better=data.higher_is_better,
        pass_at=labelled.pass_at,
        n_boot=n_boot,
        seed=labelled.seed,
        risk=_risk(risk),
        false_pass_rate=false_pass_rate,
        held_out=held_out,
        params={"kfold": {"k": folds, "aggregate": aggregate}},
    )
    report["run_dir"] = str(labelled.run_dir)
    report["dropped"] = data.dropped
    paths = write_thresholds(labelled.out_dir, report, plot)
    for warning in report["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {warning}")
    for row in report["thresholds"]:
        t = row["threshold"]
        ti, tii = row["held_out"]["type_i"], row["held_out"]["type_ii"]
        console.print(
            f"{row['metric']:<24} {row['method']:<20} "
            + (f"{t:10.4f}" if t is not None else "  none passes")
            + f"  Type I {ti if ti is None else round(ti, 3)}"
            + f"  Type II {tii if tii is None else round(tii, 3)}",
            soft_wrap=True,
        )
    for failure in report["failed"]:
        console.print(f"[red]{failure['metric']} {failure['method']}: {failure['reason']}[/red]")
    for path in paths.values():
        click.echo(str(path))
