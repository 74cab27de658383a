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
#: Long text columns of the results table, left out of :meth:`EvaluationRun.lean_results`.
TEXT_COLUMNS = ("reason", "explanation", "details")
SUITE_FILE = "suite.jsonl"  # copy of the evaluated cases (texts for the reports)
#: Corpus-level details (e.g. confusion matrices): evaluator → model → details.
CORPUS_DETAILS_FILE = "corpus_details.json"


@dataclass
class EvaluationRun:
    """Results of an evaluation: per-case rows, leaderboard, problems, insights, corpus-level
    details and manifest."""

    manifest: dict[str, Any]
    leaderboard: list[dict[str, Any]]
    problems: list[dict[str, Any]]
    insights: list[dict[str, Any]]
    path: Path | None = None
    #: evaluator → model → corpus-level details (see :class:`~assay.evaluators.CorpusDetails`).
    corpus_details: dict[str, dict[str, Any]] = field(default_factory=dict)
    _results: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def results(self) -> pd.DataFrame:
        """The long table, one row per case × metric (read from the run directory on demand)."""
        if self._results is None:
            if self.path is None:
                raise InvalidInputError("this run kept no results in memory and has no directory")
            self._results = pd.read_parquet(self.path / RESULTS_FILE)
        return self._results

    def lean_results(self) -> pd.DataFrame:
        """The results without the long text columns (reason, explanation, details).

        Analysis needs only values and slice fields; reading the texts of every case would make
        report memory grow with the suite (see ``benchmarks/bench_memory.py``).
        """
        if self._results is not None or self.path is None:
            return self.results.drop(columns=list(TEXT_COLUMNS), errors="ignore")
        import pyarrow.parquet as pq

        path = self.path / RESULTS_FILE
        names = [n for n in pq.read_schema(path).names if n not in TEXT_COLUMNS]
        return pd.read_parquet(path, columns=names)

    def results_for(self, keys: set[tuple[str, str]]) -> pd.DataFrame:
        """Every column of the result rows of the given ``(case_id, model)`` keys only."""
        if self._results is not None or self.path is None:
            frame = self.results
        else:
            import pyarrow as pa
            import pyarrow.compute as pc
            import pyarrow.parquet as pq

            ids = pa.array(sorted({case_id for case_id, _ in keys}), type=pa.string())
            table = pq.read_table(self.path / RESULTS_FILE, filters=pc.field("case_id").isin(ids))
            frame = table.to_pandas()
        pairs = pd.MultiIndex.from_frame(frame[["case_id", "model"]].astype(str))
        return frame[pairs.isin(list(keys))]

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
        corpus_details=read(CORPUS_DETAILS_FILE) if (root / CORPUS_DETAILS_FILE).is_file() else {},
    )
