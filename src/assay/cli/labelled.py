"""The options of ``assay calibrate`` and ``assay thresholds`` naming a run, its metrics and its
human labels, handed to the command as one :class:`LabelledRun`."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from assay.cli.options import directory_argument, out_option, seed_option, split_names
from assay.cli.progress import console

if TYPE_CHECKING:
    from assay.calibrate.dataset import LabelledScores

_Built = TypeVar("_Built", bound=tuple[Any, ...])


@dataclass(frozen=True)
class LabelledRun:
    """A run directory, the metrics to study and where their human labels come from."""

    run_dir: Path
    metrics: list[str]
    labels_file: Path | None
    label: str | None
    pass_at: float | None
    seed: int
    out: Path | None

    @property
    def out_dir(self) -> Path:
        """``--out``, by default the run's calibration folder."""
        from assay.rundir.layout import CALIBRATION_DIR

        return self.out or self.run_dir / CALIBRATION_DIR

    @property
    def labels_source(self) -> str:
        """Where the labels come from: the ``--labels`` file, or the suite's ``labels`` key."""
        return str(self.labels_file) if self.labels_file else f"suite labels[{self.label}]"

    def load(self) -> LabelledScores:
        """The scores of :attr:`metrics` joined with their labels."""
        from assay.calibrate.dataset import load_labelled

        return load_labelled(self.run_dir, self.metrics, self.labels_file, self.label)

    def report(
        self,
        build: Callable[..., _Built],
        *,
        record: Mapping[str, Any] | None = None,
        **options: Any,
    ) -> _Built:
        """``build`` (:func:`~assay.calibrate.report.calibration_report` or
        :func:`~assay.calibrate.report.thresholds_report`) on the labelled scores of
        :attr:`metrics`, with this run's directions, ``--pass-at`` and ``--seed``.

        The report (the first item built) records the run directory, then ``record``, then the
        labelled rows left out; its warnings are printed.
        """
        data = self.load()
        built = build(
            data.scores,
            data.labels,
            self.metrics,
            higher_is_better=data.higher_is_better,
            pass_at=self.pass_at,
            seed=self.seed,
            **options,
        )
        report = built[0]
        report["run_dir"] = str(self.run_dir)
        report.update(record or {})
        report["dropped"] = data.dropped
        for warning in report["warnings"]:
            console.print(f"[yellow]warning:[/yellow] {warning}")
        return built


def labels_options(func: Callable[..., None]) -> Callable[..., None]:
    """Add the shared options to a command, which receives them as its first argument, a
    :class:`LabelledRun`."""

    @functools.wraps(func)
    def command(
        run_dir: Path,
        metrics: tuple[str, ...],
        labels_file: Path | None,
        label: str | None,
        pass_at: float | None,
        seed: int,
        out: Path | None,
        **rest: Any,
    ) -> None:
        labelled = LabelledRun(
            run_dir, split_names(metrics), labels_file, label, pass_at, seed, out
        )
        func(labelled, **rest)

    options = [
        directory_argument(),
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
        seed_option(),
        out_option("Output folder (default RUN_DIR/calibration).", directory=True),
    ]
    decorated: Callable[..., None] = command
    for option in reversed(options):
        decorated = option(decorated)
    return decorated
