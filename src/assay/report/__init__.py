"""Report writers. Each consumes an :class:`~assay.engine.run.EvaluationRun`; none computes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from assay.fileio import write_text
from assay.report.markdown import leaderboard_markdown, report_markdown

if TYPE_CHECKING:
    from assay.engine.run import EvaluationRun

__all__ = ["write_reports"]


def write_reports(run: EvaluationRun, directory: Path) -> list[Path]:
    """Write every report of ``run`` into ``directory`` and return the files written."""
    return [
        write_text(directory / "leaderboard.md", leaderboard_markdown(run.leaderboard)),
        write_text(directory / "report.md", report_markdown(run)),
    ]
