"""Labelled score tables: a run directory's per-case scores joined to human labels.

Labels come from a file (CSV, JSONL or JSON records with ``id``, optional ``model`` and a label
column) or from the ``labels`` field of the suite recorded in the run's manifest.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay.errors import InvalidInputError
from assay.fileio import jsonl_lines

logger = logging.getLogger(__name__)


@dataclass
class LabelledScores:
    """Score matrix (one column per metric) with labels, keyed by (case_id, model)."""

    keys: pd.DataFrame
    scores: np.ndarray
    labels: list[Any]
    metrics: list[str]
    higher_is_better: list[bool]
    dropped: dict[str, int] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.labels)


#: Columns of a labels export that are not criteria: who labelled, and how each case was chosen
#: (``design``, ``round``, ``probability``; ``<criterion>_design`` ... with several criteria).
_NOT_CRITERIA = ("annotator", "n_annotators", "comment", "design", "round", "probability")
_DESIGN_SUFFIXES = ("_design", "_round", "_probability")

def read_labels(
    path: str | Path, *, label: str = "label", id_column: str = "id", model_column: str = "model"
) -> pd.DataFrame:
    """Read a label file into columns ``case_id``, ``model`` (``""`` when absent), ``label``.

    Example:
        >>> import tempfile, pathlib
        >>> p = pathlib.Path(tempfile.mkdtemp()) / "labels.csv"
        >>> _ = p.write_text("id,model,label\\nq1,a,1\\nq2,a,0\\n")
        >>> read_labels(p)["label"].tolist()
        [1, 0]
    """
    file = Path(path)
    if not file.is_file():
        raise InvalidInputError(f"{file}: label file not found")
    suffix = file.suffix.lower()
    try:
        if suffix == ".csv":
            frame = pd.read_csv(
                file,
                dtype={id_column: str, model_column: str},
                keep_default_na=False,
                na_values=[""],
            )
        elif suffix in (".jsonl", ".ndjson"):
            frame = pd.DataFrame(_jsonl(file))
        elif suffix == ".json":
            frame = pd.DataFrame(json.loads(file.read_text(encoding="utf-8")))
        else:
            raise InvalidInputError(f"{file}: labels must be .csv, .jsonl or .json")
    except (ValueError, pd.errors.ParserError) as exc:
        if isinstance(exc, InvalidInputError):
            raise
        raise InvalidInputError(f"{file}: cannot read labels ({exc})") from None
    for column in (id_column, label):
        if column not in frame.columns:
            others = [str(c) for c in frame.columns
                      if c not in (id_column, model_column, *_NOT_CRITERIA)
                      and not str(c).endswith(_DESIGN_SUFFIXES)]
            hint = (f"; the file holds labels of several criteria ({', '.join(others)}): choose "
                    f"one with --label {others[0]}, or export one with --criterion"
                    if column == label and others else "")
            raise InvalidInputError(
                f"{file}: no {column!r} column (columns: {', '.join(map(str, frame.columns))})"
                + hint
            )
    missing = frame[label].isna().to_numpy()
    if missing.any():
        row = int(np.flatnonzero(missing)[0]) + 1
        raise InvalidInputError(f"{file}: row {row}, field {label!r}: label is missing")
    models = frame[model_column] if model_column in frame.columns else ""
    out = pd.DataFrame(
        {
            "case_id": frame[id_column].astype(str),
            "model": pd.Series(models, index=frame.index).fillna("").astype(str),
            "label": frame[label].tolist(),
        }
    )
    duplicated = out.duplicated(["case_id", "model"]).to_numpy()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated)[0]) + 1
        raise InvalidInputError(
            f"{file}: row {row}, field {id_column!r}: duplicate label for "
            f"case {out.case_id.iloc[row - 1]!r}"
        )
    return out


def _jsonl(file: Path) -> list[dict[str, Any]]:
    rows = []
    for n, line in enumerate(jsonl_lines(file.read_text(encoding="utf-8")), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InvalidInputError(f"{file}: row {n}: invalid JSON ({exc.msg})") from None
    return rows


def suite_labels(suite_path: str | Path, label: str) -> pd.DataFrame:
    """Labels from the ``labels`` field of a suite's cases (cases without it are left out)."""
    from assay.data import read_suite

    suite = read_suite(suite_path)
    rows = [
        {"case_id": c.id, "model": c.model or "", "label": c.labels[label]}
        for c in suite
        if c.labels.get(label) is not None
    ]
    if not rows:
        raise InvalidInputError(
            f"{suite_path}: no case has a {label!r} label (pass --labels FILE instead)"
        )
    return pd.DataFrame(rows)


def run_labels(run_dir: str | Path, label: str) -> pd.DataFrame:
    """Labels from the run's suite: the copy inside the run directory when there is one, else
    the suite file named in the manifest."""
    from assay.rundir import load_run
    from assay.rundir.suite_copy import suite_copy

    copy = suite_copy(Path(run_dir))
    if copy is not None:
        return suite_labels(copy, label)
    run = load_run(run_dir)
    source = (run.manifest.get("input") or {}).get("path")
    if not source or not Path(source).is_file():
        raise InvalidInputError(
            f"{run_dir}: the run's suite ({source!r}) is not available; pass --labels FILE"
        )
    return suite_labels(source, label)


def load_labelled(
    run_dir: str | Path, metrics: Sequence[str], labels_file: str | Path | None, label: str | None
) -> LabelledScores:
    """Scores of ``metrics`` joined with labels from ``labels_file`` (column ``label``, default
    ``"label"``) or, without a file, from the run's suite ``labels`` field named ``label``."""
    if labels_file is not None:
        labels = read_labels(labels_file, label=label or "label")
    elif label:
        labels = run_labels(run_dir, label)
    else:
        raise InvalidInputError(
            "give --labels FILE, or --label NAME to use the suite's 'labels' field"
        )
    return labelled_scores(run_dir, metrics, labels)


def metric_directions(manifest: Mapping[str, Any]) -> dict[str, bool]:
    """metric → higher_is_better, from a run manifest's evaluator specs."""
    return {
        m["name"]: bool(m.get("higher_is_better", True))
        for e in manifest.get("evaluators", [])
        for m in e.get("metrics", [])
    }


def score_table(results: pd.DataFrame, metrics: Sequence[str]) -> pd.DataFrame:
    """Wide table ``case_id, model, <metric>...`` of ``ok`` values (NaN where not measured)."""
    known = set(results["metric"].unique())
    unknown = [m for m in metrics if m not in known]
    if unknown:
        raise InvalidInputError(
            f"metric(s) {unknown} not in the run; it measured: {', '.join(sorted(known))}"
        )
    ok = results[(results["status"] == "ok") & results["metric"].isin(list(metrics))]
    keys = results[["case_id", "model"]].drop_duplicates()
    wide = ok.pivot_table(
        index=["case_id", "model"], columns="metric", values="value", aggfunc="first"
    )
    wide = keys.merge(wide.reset_index(), on=["case_id", "model"], how="left")
    for m in metrics:
        if m not in wide.columns:
            wide[m] = np.nan
    return wide[["case_id", "model", *metrics]]


def labelled_scores(
    run_dir: str | Path, metrics: Sequence[str], labels: pd.DataFrame
) -> LabelledScores:
    """Join a run's scores for ``metrics`` with ``labels`` (matched on case id and model).

    Labels with an empty ``model`` match every model's answer to that case id. Cases without a
    label or with a metric not measured are dropped and counted in ``dropped``.
    """
    from assay.rundir import load_run

    run = load_run(run_dir)
    wide = score_table(run.results, metrics)
    if (labels["model"] == "").all():
        joined = wide.merge(labels.drop(columns="model"), on="case_id", how="inner")
    else:
        joined = wide.merge(labels, on=["case_id", "model"], how="inner")
    unlabelled = len(wide) - len(joined)
    measured = joined[list(metrics)].notna().all(axis=1)
    dropped = {"unlabelled": int(unlabelled), "not_measured": int((~measured).sum())}
    joined = joined[measured].reset_index(drop=True)
    if joined.empty:
        raise InvalidInputError(
            f"{run_dir}: no case has both a label and a measured {', '.join(metrics)}; check "
            "that label ids (and models) match the suite's"
        )
    directions = metric_directions(run.manifest)
    logger.info("joined %d labelled cases (dropped %s)", len(joined), dropped)
    return LabelledScores(
        keys=joined[["case_id", "model"]],
        scores=joined[list(metrics)].to_numpy(dtype=np.float64),
        labels=joined["label"].tolist(),
        metrics=list(metrics),
        higher_is_better=[directions.get(m, True) for m in metrics],
        dropped=dropped,
    )
