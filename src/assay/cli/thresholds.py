"""``assay thresholds``: choose metric thresholds from human labels and a risk appetite."""

from __future__ import annotations

import click

from assay.cli.labelled import LabelledRun, labels_options
from assay.cli.options import choice_option, fraction_option, int_option, split_names
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
@fraction_option("--false-pass-rate", help="Target false-pass rate (default 1 - confidence).")
@int_option("--folds", least=2, default=5, help="K of the kfold method.")
@choice_option("--aggregate", choices=["mean", "max"], help="How kfold combines fold thresholds.")
@fraction_option("--held-out", default=0.3, help="Fraction kept to measure Type I/II errors.")
@int_option(
    "--n-boot",
    least=0,
    default=200,
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

    known = [*METHODS, *(m for m in THRESHOLD_METHODS.names() if m not in METHODS)]
    chosen = split_names(methods) or known
    unknown = [m for m in chosen if m not in THRESHOLD_METHODS]
    if unknown:
        raise click.BadParameter(
            f"unknown {unknown}; choose from {', '.join(known)}", param_hint="--method"
        )
    report, plot = labelled.report(
        thresholds_report,
        methods=chosen,
        n_boot=n_boot,
        risk=_risk(risk),
        false_pass_rate=false_pass_rate,
        held_out=held_out,
        params={"kfold": {"k": folds, "aggregate": aggregate}},
    )
    paths = write_thresholds(labelled.out_dir, report, plot)
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
