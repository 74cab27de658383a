"""The :class:`EvaluationRun`: what :func:`assay.evaluate` returns and a run directory holds."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from assay.errors import InvalidInputError

RESULTS_FILE = "results.parquet"
RESULTS_CSV = "results.csv"
MANIFEST_FILE = "manifest.json"
LEADERBOARD_FILE = "leaderboard.json"
PROBLEMS_FILE = "problems.json"
INSIGHTS_FILE = "insights.json"
SUITE_FILE = "suite.jsonl"  # copy of the evaluated cases (texts for the reports)


@dataclass
class EvaluationRun:
    """Results of an evaluation: per-case rows, leaderboard, problems, insights and manifest."""

    manifest: dict[str, Any]
    leaderboard: list[dict[str, Any]]
    problems: list[dict[str, Any]]
    insights: list[dict[str, Any]]
    path: Path | None = None
    _results: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def results(self) -> pd.DataFrame:
        """The long table, one row per case × metric (read from the run directory on demand)."""
        if self._results is None:
            if self.path is None:
                raise InvalidInputError("this run kept no results in memory and has no directory")
            self._results = pd.read_parquet(self.path / RESULTS_FILE)
        return self._results

    def leaderboard_frame(self) -> pd.DataFrame:
        """The leaderboard as a DataFrame."""
        return pd.DataFrame(self.leaderboard)

    def metric(self, model: str, metric: str) -> float | None:
        """The aggregate value of ``metric`` for ``model`` (None when not measured)."""
        for row in self.leaderboard:
            if row["model"] == model and row["metric"] == metric:
                return row["value"]
        raise KeyError((model, metric))


def load_run(path: str | Path) -> EvaluationRun:
    """Load a complete run directory written by :func:`assay.evaluate`."""
    root = Path(path)
    manifest_path = root / MANIFEST_FILE
    if not manifest_path.is_file():
        raise InvalidInputError(
            f"{root}: not a complete run directory (no {MANIFEST_FILE}; was the run interrupted?)"
        )

    def read(name: str) -> Any:
        return json.loads((root / name).read_text(encoding="utf-8"))

    manifest = read(MANIFEST_FILE)
    if manifest.get("status") != "complete":
        raise InvalidInputError(f"{root}: the run is not complete")
    return EvaluationRun(
        manifest=manifest,
        leaderboard=read(LEADERBOARD_FILE),
        problems=read(PROBLEMS_FILE),
        insights=read(INSIGHTS_FILE),
        path=root,
    )
