"""Data for the report's calibration section, read from a run directory: the calibration and
threshold reports of ``assay calibrate`` with their reliability bins, and the calibrated table of
``assay evaluate --calibrator`` summarised."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pandas as pd

from assay.report.drilldown import finite
from assay.rundir.layout import CALIBRATED_FILE, CALIBRATION_FILES, THRESHOLD_FILES
from assay.rundir.results import read_calibrated

logger = logging.getLogger(__name__)

#: Calibration reports shown in the HTML report → their plot data file.
REPORT_FILES = {
    CALIBRATION_FILES["report"]: CALIBRATION_FILES["plot"],
    THRESHOLD_FILES["report"]: THRESHOLD_FILES["plot"],
}


def read_calibration(directory: Path) -> list[dict[str, Any]]:
    """Calibration outputs of the run: ``calibration.json`` / ``thresholds.json`` reports in the run
    directory or one level below (``assay calibrate`` writes ``RUN_DIR/calibration/``), each with
    the reliability bins of its ``*_plot.json`` when present, and ``calibrated.parquet``
    (``assay evaluate --calibrator``) summarised.

    Example:
        >>> import tempfile
        >>> read_calibration(Path(tempfile.mkdtemp()))
        []
    """
    found: list[dict[str, Any]] = []
    reports = [
        p
        for name in REPORT_FILES
        for base in ("", "*/")
        for p in sorted(directory.glob(base + name))
    ]
    tables = [directory / CALIBRATED_FILE] if (directory / CALIBRATED_FILE).is_file() else []
    for path in dict.fromkeys([*reports, *tables]):
        name = path.relative_to(directory).as_posix()
        try:
            if path.suffix == ".json":
                data = finite(json.loads(path.read_text(encoding="utf-8")))
                plot = path.with_name(REPORT_FILES[path.name])
                plot_data: dict[str, Any] = {}
                if plot.is_file():
                    plot_data = finite(json.loads(plot.read_text(encoding="utf-8")))
                found.append({"file": name, "kind": "json", "data": data,
                              "reliability": plot_data.get("reliability"), "plot": plot_data})
            else:
                table = read_calibrated(directory)  # the one table file: it exists
                summary = _table_summary(table) if table is not None else {}
                found.append({"file": name, "kind": "table", "data": summary, "reliability": None})
        except (OSError, ValueError, AttributeError) as exc:
            logger.warning("cannot read calibration output %s: %s", path, exc)
            found.append({"file": name, "kind": "error", "data": str(exc), "reliability": None})
    return found


def _table_summary(frame: pd.DataFrame) -> dict[str, Any]:
    summary: dict[str, Any] = {"rows": len(frame), "columns": list(map(str, frame.columns))}
    flags = frame.select_dtypes("bool")
    if not flags.empty:
        summary["share_true"] = {str(k): float(v) for k, v in flags.mean().items()}
    numeric = frame.select_dtypes("number")
    if not numeric.empty:
        summary["means"] = {str(k): float(v) for k, v in numeric.mean().items() if pd.notna(v)}
    for column in frame.columns:
        if frame[column].dtype == object and frame[column].nunique() <= 12:
            counts = frame[column].astype(str).value_counts()
            summary.setdefault("counts", {})[str(column)] = {
                str(k): int(v) for k, v in counts.items()
            }
    return summary
