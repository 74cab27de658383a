"""Apply calibrators to a new run: per case, the calibrated probability and prediction set.

:func:`assay.evaluate` calls :func:`prepare_calibrators` before scoring (so a bad file fails
fast) and :func:`write_calibrated` after the results are written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay.calibrate.base import Calibrator
from assay.calibrate.dataset import score_table
from assay.calibrate.persist import calibrator_to_dict, load_calibrator
from assay.errors import InvalidInputError
from assay.fileio import sha256_file
from assay.rundir.results import write_calibrated_table


@dataclass
class LoadedCalibrator:
    """A calibrator with where it came from (recorded in the run manifest)."""

    calibrator: Calibrator
    name: str
    file: str | None
    sha256: str

    def info(self) -> dict[str, Any]:
        """Manifest entry."""
        cal = self.calibrator
        return {
            "name": self.name,
            "file": self.file,
            "sha256": self.sha256,
            "kind": cal.kind,
            "metrics": cal.metric_names,
            "alpha": cal.alpha,
        }


def prepare_calibrators(
    items: Iterable[str | Path | Calibrator], known_metrics: Iterable[str]
) -> list[LoadedCalibrator]:
    """Load calibrator files (or take instances) and check their metrics will be measured."""
    known = set(known_metrics)
    out: list[LoadedCalibrator] = []
    for n, item in enumerate(items):
        if isinstance(item, Calibrator):
            item._require_fitted("evaluate(calibrators=...)")
            loaded = LoadedCalibrator(
                item, f"calibrator_{n}", None, calibrator_to_dict(item)["sha256"]
            )
        else:
            path = Path(item)
            loaded = LoadedCalibrator(
                load_calibrator(path), path.stem, str(path), sha256_file(path)
            )
        if loaded.calibrator.metrics is None:
            raise InvalidInputError(
                f"{loaded.file or loaded.name}: the calibrator records no metric names, so it "
                "cannot be applied to a run (fit it with metrics=[...])"
            )
        missing = [m for m in loaded.calibrator.metric_names if m not in known]
        if missing:
            raise InvalidInputError(
                f"{loaded.file or loaded.name}: the calibrator needs metric(s) {missing}, which "
                f"the selected evaluators do not report; add the evaluators that measure them"
            )
        out.append(loaded)
    return out


def calibrated_frame(results: pd.DataFrame, loaded: LoadedCalibrator) -> pd.DataFrame:
    """One row per (case, model): probability, most probable class, prediction set, review flag.

    Cases where a needed metric was not measured get status ``skipped`` with a reason.
    """
    cal = loaded.calibrator
    metrics = cal.metric_names
    wide = score_table(results, metrics)
    measured = wide[metrics].notna().all(axis=1).to_numpy()
    n = len(wide)
    probability = np.full(n, np.nan)
    predicted: list[str | None] = [None] * n
    probabilities: list[str | None] = [None] * n
    sets: list[str | None] = [None] * n
    review: list[bool | None] = [None] * n
    if measured.any():
        x = wide.loc[measured, metrics].to_numpy(dtype=np.float64)
        proba = cal.predict_proba(x)
        names = cal.class_names
        top = proba.argmax(axis=1)
        rows = np.flatnonzero(measured)
        probability[rows] = proba[:, 1] if not cal.multiclass else proba.max(axis=1)
        member = cal.predict_set(x) if cal.conformal_ is not None else None
        for j, i in enumerate(rows):
            predicted[i] = names[top[j]]
            probabilities[i] = json.dumps(
                {k: round(float(p), 6) for k, p in zip(names, proba[j], strict=True)}
            )
            if member is not None:
                labels = [names[k] for k in np.flatnonzero(member[j])]
                sets[i] = json.dumps(labels)
                review[i] = len(labels) != 1
    reasons = [
        None if ok else "not measured: " + ", ".join(m for m in metrics if pd.isna(row[m]))
        for ok, (_, row) in zip(measured, wide.iterrows(), strict=True)
    ]
    return pd.DataFrame(
        {
            "case_id": wide["case_id"].astype(str),
            "model": wide["model"].astype(str),
            "calibrator": loaded.name,
            "metric": "+".join(metrics),
            "status": np.where(measured, "ok", "skipped"),
            "probability": [None if np.isnan(p) else float(p) for p in probability],
            "predicted": predicted,
            "probabilities": probabilities,
            "prediction_set": sets,
            "needs_review": review,
            "reason": reasons,
        }
    )


def write_calibrated(
    work: Path, results: pd.DataFrame, calibrators: Sequence[LoadedCalibrator]
) -> list[Path]:
    """Write ``calibrated.parquet`` and ``calibrated.csv`` into ``work``; return their paths."""
    frame = pd.concat([calibrated_frame(results, c) for c in calibrators], ignore_index=True)
    return write_calibrated_table(work, frame)
