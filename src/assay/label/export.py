"""Export collected labels as the CSV file ``assay calibrate --labels`` reads.

``majority``: one row per case × model with the majority value of each criterion (ties are
dropped, or resolved to the lower / higher value); ``per-annotator``: one row per annotator's
judgment (with ``annotator=NAME`` only that annotator's rows, a file ``assay calibrate`` reads).
When one criterion is exported its values are also written as column ``label``. Every row says
how its case was chosen (design note 0063): ``design``, ``round`` and ``probability`` — the round
that drew the case and the draw's selection probability, or ``unknown`` with both empty for a
case labelled outside any round (with several criteria, ``<criterion>_design`` and so on).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from assay.errors import InvalidInputError
from assay.fileio import atomic_path
from assay.label.rounds import load_rounds, round_of_units
from assay.label.store import Store
from assay.verdict.design import UNKNOWN, DesignRound

logger = logging.getLogger(__name__)
MODES = ("majority", "per-annotator")
TIES = ("drop", "low", "high")


@dataclass
class ExportSummary:
    """What an export wrote and what it left out."""

    path: Path
    rows: int
    criteria: list[str]
    dropped_ties: dict[str, int] = field(default_factory=dict)


def majority(values: Sequence[int], ties: str = "drop") -> int | None:
    """The most common value; on a tie None (``drop``), the lowest or the highest tied value.

    Example:
        >>> majority([1, 1, 0]), majority([1, 0]), majority([1, 0], "low")
        (1, None, 0)
    """
    counts = Counter(values).most_common()
    if not counts:
        return None
    best = counts[0][1]
    tied = sorted(v for v, c in counts if c == best)
    if len(tied) == 1:
        return tied[0]
    return None if ties == "drop" else (tied[0] if ties == "low" else tied[-1])


def label_frame(
    judgments: Sequence[dict[str, Any]],
    criteria: Sequence[str],
    *,
    mode: str = "majority",
    ties: str = "drop",
    annotator: str | None = None,
) -> tuple[pd.DataFrame, dict[str, int]]:
    """The export table and, for ``majority``, the number of rows dropped for a tie per criterion.

    Example:
        >>> rows = [{"case_id": "q1", "model": "m", "annotator": a, "criterion": "g", "value": v,
        ...          "comment": ""} for a, v in (("x", 1), ("y", 1), ("z", 0))]
        >>> frame, _ = label_frame(rows, ["g"])
        >>> frame.to_dict("records")
        [{'id': 'q1', 'model': 'm', 'g': 1, 'n_annotators': 3, 'label': 1}]
    """
    if mode not in MODES:
        raise InvalidInputError(f"mode must be one of {MODES}; got {mode!r}")
    if ties not in TIES:
        raise InvalidInputError(f"ties must be one of {TIES}; got {ties!r}")
    rows = [j for j in judgments if j["criterion"] in criteria]
    if annotator is not None:
        rows = [j for j in rows if j["annotator"] == annotator]
    if not rows:
        raise InvalidInputError(
            "no labels to export"
            + (f" for annotator {annotator!r}" if annotator else "")
            + f" (criteria: {', '.join(criteria)})"
        )
    long = pd.DataFrame(rows)
    dropped: dict[str, int] = {}
    if mode == "per-annotator":
        wide = long.pivot_table(
            index=["case_id", "model", "annotator"],
            columns="criterion",
            values="value",
            aggfunc="first",
        ).reset_index()
        comments = long.drop_duplicates(["case_id", "model", "annotator"])[
            ["case_id", "model", "annotator", "comment"]
        ]
        frame = wide.merge(comments, on=["case_id", "model", "annotator"], how="left")
        frame = frame.dropna(subset=list(criteria))
    else:
        records = []
        for (case_id, model), group in long.groupby(["case_id", "model"], sort=True):
            record: dict[str, Any] = {"case_id": case_id, "model": model}
            complete = True
            for criterion in criteria:
                values = group.loc[group["criterion"] == criterion, "value"].astype(int).tolist()
                value = majority(values, ties)
                if value is None:
                    complete = False
                    if values:
                        dropped[criterion] = dropped.get(criterion, 0) + 1
                record[criterion] = value
            record["n_annotators"] = int(group["annotator"].nunique())
            if complete:
                records.append(record)
        frame = pd.DataFrame(records, columns=["case_id", "model", *criteria, "n_annotators"])
    frame = frame.rename(columns={"case_id": "id"})
    for criterion in criteria:
        frame[criterion] = frame[criterion].astype(int)
    if len(criteria) == 1:
        frame["label"] = frame[criteria[0]]
    frame.columns.name = None
    return frame.reset_index(drop=True), dropped


def with_design(
    frame: pd.DataFrame, rounds: Sequence[DesignRound], criteria: Sequence[str]
) -> pd.DataFrame:
    """``frame`` with each label's design, round and selection probability.

    Example:
        >>> from assay.verdict.design import Draw
        >>> r = DesignRound(1, "g", "all", "uniform", "", frozenset(), {"m": 4},
        ...                 (Draw("q1", "m", 0.25),))
        >>> frame = pd.DataFrame({"id": ["q1", "q2"], "model": ["m", "m"], "g": [1, 0]})
        >>> print(with_design(frame, [r], ["g"]).to_csv(index=False).strip())
        id,model,g,design,round,probability
        q1,m,1,uniform,1,0.25
        q2,m,0,unknown,,
    """
    drawn = round_of_units(rounds)
    out = frame.copy()
    for criterion in criteria:
        prefix = "" if len(criteria) == 1 else f"{criterion}_"
        hits = [
            drawn.get((criterion, (str(i), str(m))))
            for i, m in zip(frame["id"], frame["model"], strict=True)
        ]
        out[f"{prefix}design"] = [UNKNOWN if h is None else h[0].design for h in hits]
        out[f"{prefix}round"] = pd.array(
            [None if h is None else h[0].number for h in hits], dtype="Int64"
        )
        out[f"{prefix}probability"] = [
            float("nan") if h is None else h[1].probability for h in hits
        ]
    return out


def export_labels(
    store: Store,
    out: str | Path,
    *,
    criteria: Sequence[str] | None = None,
    mode: str = "majority",
    ties: str = "drop",
    annotator: str | None = None,
) -> ExportSummary:
    """Write the labels in ``store`` to ``out`` (CSV, atomically)."""
    known = [c.name for c in store.criteria()]
    chosen = list(criteria) if criteria else known
    unknown = [c for c in chosen if c not in known]
    if unknown:
        raise InvalidInputError(f"unknown criteria {unknown}; the store has {known}")
    if annotator is not None and annotator not in {a["name"] for a in store.annotators()}:
        raise InvalidInputError(f"no annotator named {annotator!r}")
    frame, dropped = label_frame(
        store.judgments(), chosen, mode=mode, ties=ties, annotator=annotator
    )
    frame = with_design(frame, load_rounds(store, chosen), chosen)
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)
    for criterion, n in dropped.items():
        logger.warning("%s: %d case(s) without a majority were left out", criterion, n)
    return ExportSummary(path, len(frame), chosen, dropped)
