"""Report writers. Each consumes an :class:`~assay.rundir.EvaluationRun`; none computes."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.fileio import write_json, write_text
from assay.report.markdown import leaderboard_markdown, report_markdown
from assay.rundir.layout import ANALYSIS_FILE, HTML_FILE, LEADERBOARD_MD, REPORT_MD

if TYPE_CHECKING:
    from assay.rundir.run import EvaluationRun
    from assay.verdict.implicit import RunVerdict

__all__ = ["write_reports"]


def write_reports(
    run: EvaluationRun,
    directory: Path,
    *,
    verdict: RunVerdict | Mapping[str, Any] | None = None,
    n_resamples: int | None = None,
    heatmap_axes: tuple[str, str] | None = None,
    seed: int = 0,
) -> list[Path]:
    """Write every report of ``run`` into ``directory`` and return the files written.

    Files: ``leaderboard.md``, ``report.md``, ``analysis.json`` (the verdict with its six
    dimensions, leaderboard with intervals, pairwise tests, weaknesses) and the self-contained
    ``report.html``. The verdict is the run's assessment under its implicit plan
    (:func:`assay.verdict.implicit.assess_run`, the rules ``assay assess`` decides by). Every
    text they embed passes through :func:`assay.safety.redact` (PII and secrets masked): reports
    are shared.

    Args:
        run: the run (its results are read from its directory when not in memory).
        directory: where to write (the run directory).
        verdict: the run already decided, or its record (:meth:`RunVerdict.as_dict`, all the
            reports show of it); default: decided here, from the run's suite copy.
        n_resamples: bootstrap resamples (default :data:`~assay.analyze.uncertainty.DEFAULT_RESAMPLES`).
        heatmap_axes: the two result fields of the heatmaps (default: chosen from the data).
        seed: bootstrap seed.
    """
    import dataclasses
    import gc

    from assay.analyze.summary import analyze_run
    from assay.analyze.uncertainty import DEFAULT_RESAMPLES
    from assay.memory import release_memory
    from assay.report.calibration_view import read_calibration
    from assay.report.drilldown import SELECTION_COLUMNS, masked_explainers, run_drilldown
    from assay.report.html import render_html
    from assay.safety.masking import redact
    from assay.verdict.implicit import assess_run

    directory = Path(directory)
    decided = verdict if verdict is not None else assess_run(run)
    # The record only (the per-case tables of a decision are not shown)
    record = decided if isinstance(decided, Mapping) else decided.as_dict()
    del decided, verdict
    # The one redaction pass: everything the shared reports embed is masked here, once.
    analysis = redact({
        "verdict": record,
        **analyze_run(
            run,
            n_resamples=n_resamples or DEFAULT_RESAMPLES,
            heatmap_axes=heatmap_axes,
            seed=seed,
        ),
    })
    release_memory()  # the analysed table's pages, before the drill-down reads
    shown = dataclasses.replace(  # the manifest is assay's own record (hashes, versions): kept
        run,
        leaderboard=redact(run.leaderboard),
        problems=redact(run.problems),
        insights=redact(run.insights),
        corpus_details=redact(run.corpus_details),
    )
    # The shown cases are chosen from four columns of every row, read batch by batch; their
    # texts are read by key and masked as the entries are built (each text once: the drill-down
    # is most of the report).
    cases = run_drilldown(run.result_batches(list(SELECTION_COLUMNS)), directory,
                          full_rows=run.results_for, masked_by=masked_explainers(run.manifest))
    page = render_html(
        analysis,
        cases=cases,
        problems=shown.problems,
        insights=shown.insights,
        manifest=run.manifest,
        calibration=redact(read_calibration(directory)),
    )
    files = [
        write_text(directory / LEADERBOARD_MD, leaderboard_markdown(shown.leaderboard)),
        write_text(directory / REPORT_MD, report_markdown(shown, analysis)),
        write_json(directory / ANALYSIS_FILE, analysis),
        write_text(directory / HTML_FILE, page),
    ]
    del page, cases, analysis, shown
    # Rendering leaves Jinja's contexts and macros in reference cycles with what they reached
    # (~85 MB at 60,000 cases), which only a full collection frees: freed here, not under the
    # caller's next stage (an assessment's decision stood on them)
    gc.collect()
    release_memory()
    return files
