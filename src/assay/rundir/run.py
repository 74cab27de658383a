"""The :class:`EvaluationRun`: what :func:`assay.evaluate` returns and a run directory holds."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa

from assay.errors import InvalidInputError
from assay.rundir.layout import (
    CORPUS_DETAILS_FILE,
    INSIGHTS_FILE,
    LEADERBOARD_FILE,
    PROBLEMS_FILE,
    RESULTS_FILE,
    TEXT_COLUMNS,
)
from assay.rundir.manifest import verify_run
from assay.rundir.records import Finding, LeaderboardRow, Manifest
from assay.rundir.results import (
    frame_batches,
    read_results,
    read_results_for,
    result_batches,
    result_names,
    rows_of,
)


@dataclass
class EvaluationRun:
    """Results of an evaluation: per-case rows, leaderboard, problems, insights, corpus-level
    details and manifest."""

    manifest: Manifest
    leaderboard: list[LeaderboardRow]
    problems: list[Finding]
    insights: list[Finding]
    path: Path | None = None
    #: evaluator → model → corpus-level details (see :class:`~assay.evaluators.CorpusDetails`).
    corpus_details: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: what the verdict reads of each case, kept for a run without a directory (a run directory
    #: holds its suite copy instead); see :func:`assay.verdict.implicit.run_case_keys`
    case_keys: Any = field(default=None, repr=False)
    _results: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def results(self) -> pd.DataFrame:
        """The long table, one row per case × metric (read from the run directory on demand)."""
        if self._results is None:
            if self.path is None:
                raise InvalidInputError("this run kept no results in memory and has no directory")
            self._results = read_results(self.path)
        return self._results

    def lean_results(
        self, *, measured: bool = False, columns: Sequence[str] | None = None
    ) -> pd.DataFrame:
        """The results without the long text columns (reason, explanation, details).

        Analysis needs only values and slice fields; reading the texts of every case would make
        report memory grow with the suite (see ``benchmarks/bench_memory.py``). With
        ``measured``, only the rows with status ``ok`` and a value (what the analysis uses).
        With ``columns``, only those of them the results have (at 100,000 cases each numeric
        column the analysis never reads held 14 MB).
        """
        if self._results is not None or self.path is None:
            frame = self.results.drop(columns=list(TEXT_COLUMNS), errors="ignore")
            if measured:
                frame = frame[(frame["status"] == "ok") & frame["value"].notna()]
            return frame if columns is None else frame[[c for c in columns if c in frame]]
        if columns is not None:
            columns = [c for c in columns if c in result_names(self.path)]
        return read_results(self.path, lean=True, measured=measured,
                            columns=None if columns is None else list(columns))

    def results_file(self) -> Path | None:
        """The ``results.parquet`` the results are read from, or None when they are in
        memory (or the run has no directory)."""
        if self._results is not None or self.path is None:
            return None
        return self.path / RESULTS_FILE

    def result_columns(
        self,
        columns: list[str],
        *,
        metrics: Collection[str] | None = None,
        statuses: Collection[str] | None = None,
    ) -> pd.DataFrame:
        """Only the given columns of the results (read from the run directory, text columns
        come as ``category``): every row, or with ``metrics`` only the rows of those metrics,
        with ``statuses`` only the rows of those statuses (filtered while reading, so the
        others never take memory)."""
        if self._results is not None or self.path is None:
            frame = self.results
            if metrics is not None:
                frame = frame[frame["metric"].isin(list(metrics))]
            if statuses is not None:
                frame = frame[frame["status"].isin(list(statuses))]
            return frame[columns]
        return read_results(
            self.path, columns=columns, compact=True, metrics=metrics, statuses=statuses
        )

    def result_batches(self, columns: list[str]) -> Iterator[pa.RecordBatch]:
        """Only the given columns of every result row, a record batch at a time (read from the
        run directory: memory bounded by a batch, not by the run)."""
        if self._results is not None or self.path is None:
            return frame_batches(self.results, columns)
        return result_batches(self.path / RESULTS_FILE, columns)

    def results_for(self, keys: set[tuple[str, str]]) -> pd.DataFrame:
        """Every column of the result rows of the given ``(case_id, model)`` keys only."""
        if self._results is not None or self.path is None:
            return rows_of(self.results, keys)
        return read_results_for(self.path, keys)

    def leaderboard_frame(self) -> pd.DataFrame:
        """The leaderboard as a DataFrame."""
        return pd.DataFrame(self.leaderboard)

    def metric(self, model: str, metric: str) -> float | None:
        """The aggregate value of ``metric`` for ``model`` (None when not measured)."""
        for row in self.leaderboard:
            if row["model"] == model and row["metric"] == metric:
                return row["value"]
        raise KeyError((model, metric))


def load_run(path: str | Path, *, findings: bool = True) -> EvaluationRun:
    """Load a complete run directory written by :func:`assay.evaluate`.

    Args:
        path: the run directory.
        findings: read ``problems.json`` and ``insights.json``; without them the run's
            ``problems`` and ``insights`` are empty (for work that reads neither: a million
            cases' perturbation flips are ~80 MB once parsed).

    Raises:
        IncompleteRunError: the run was interrupted, or a file it lists is missing or changed
            (see :func:`~assay.rundir.manifest.verify_run`).
    """
    root = Path(path)
    manifest = verify_run(root)

    def read(name: str) -> Any:
        return json.loads((root / name).read_text(encoding="utf-8"))

    return EvaluationRun(
        manifest=manifest,
        leaderboard=read(LEADERBOARD_FILE),
        problems=read(PROBLEMS_FILE) if findings else [],
        insights=read(INSIGHTS_FILE) if findings else [],
        path=root,
        corpus_details=read(CORPUS_DETAILS_FILE) if (root / CORPUS_DETAILS_FILE).is_file() else {},
    )
