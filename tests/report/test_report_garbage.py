"""Writing the reports leaves no reference cycles behind for the caller's next stage."""

from __future__ import annotations

import gc
from pathlib import Path

from assay.report import write_reports
from assay.rundir.run import EvaluationRun


def test_writing_the_reports_leaves_no_cyclic_garbage(
    report_run: EvaluationRun, tmp_path: Path
) -> None:
    """Jinja's render leaves its contexts and macros in cycles with what they reached (~85 MB
    after a 60,000-case run's reports): only a full collection frees them, so the reports run one
    before returning instead of leaving them under an assessment's decision."""
    gc.collect()
    gc.disable()  # no automatic collection may hide what the call leaves
    try:
        write_reports(report_run, tmp_path)
        left = gc.collect()
    finally:
        gc.enable()
    assert left < 50, f"{left} objects in reference cycles left by write_reports"
