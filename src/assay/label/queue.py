"""The labeling queue: which cases annotators see first.

The draws of labelling rounds (``assay labels sample``) come first, in each round's serving
order: they are the labels the verdict's bounds can use as a sample. Then, once a calibrator
exists, cases whose conformal prediction set is ambiguous (``{0, 1}``) or empty, or that an
assessment routed to REVIEW: a label settles their own verdict and teaches the calibrator most.
The rest follow stratified by score bin (quantiles of one metric) and slice (model, topic, query
type): the queue takes one case from each score bin in turn; inside a bin the models take turns,
inside a model the topics, inside a topic the query types. Any prefix thus covers the score range
and the slices evenly (rare strata are over-sampled, which calibration needs)."""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from assay.errors import InvalidInputError
from assay.rundir.layout import (
    CALIBRATION_DIR,
    CALIBRATION_FILES,
    VERDICT_CASES_FILE,
)
from assay.rundir.results import read_calibrated

logger = logging.getLogger(__name__)

#: Where ``assay calibrate`` writes its calibrator inside a run directory.
DEFAULT_CALIBRATOR = Path(CALIBRATION_DIR) / CALIBRATION_FILES["calibrator"]
SLICE_COLUMNS = ("model", "topic", "query_type")


@dataclass(frozen=True)
class QueueEntry:
    """One case × model in queue order (lower ``priority`` first)."""

    case_id: str
    model: str
    priority: int
    stratum: str
    uncertain: bool

    def row(self) -> tuple[str, str, int, str, bool]:
        """The tuple :meth:`assay.label.store.Store.sync_items` takes."""
        return (self.case_id, self.model, self.priority, self.stratum, self.uncertain)


def choose_metric(results: pd.DataFrame, preferred: Sequence[str] = ()) -> str | None:
    """The metric to bin scores by: the first of ``preferred`` the run measured, else the primary
    metric with the most ``ok`` values (None when nothing was measured).

    Example:
        >>> frame = pd.DataFrame({"metric": ["a", "b", "b"], "primary": [True, True, True],
        ...                       "status": ["ok", "ok", "ok"]})
        >>> choose_metric(frame), choose_metric(frame, ["a"])
        ('b', 'a')
    """
    measured = results[results["status"] == "ok"]
    for name in preferred:
        if (measured["metric"] == name).any():
            return name
    primary = measured[measured["primary"].astype(bool)]
    if primary.empty:
        return None
    counts = primary["metric"].value_counts(sort=False)
    return str(counts.idxmax())


def item_table(results: pd.DataFrame, metric: str | None) -> pd.DataFrame:
    """One row per case × model: ``case_id, model, topic, query_type, score`` (NaN unmeasured)."""
    keys = results[["case_id", "model", "topic", "query_type"]].copy()
    for column in ("case_id", "model"):
        keys[column] = keys[column].astype(str)
    keys = keys.drop_duplicates(["case_id", "model"]).reset_index(drop=True)
    if metric is None:
        keys["score"] = np.nan
        return keys
    ok = results[(results["metric"] == metric) & (results["status"] == "ok")]
    scores = (
        ok.assign(case_id=ok["case_id"].astype(str), model=ok["model"].astype(str))
        .groupby(["case_id", "model"])["value"]
        .first()
        .rename("score")
        .reset_index()
    )
    return keys.merge(scores, on=["case_id", "model"], how="left")


def score_bins(scores: pd.Series, n_bins: int) -> list[str]:
    """Quantile bin label of each score (``"n/a"`` when unmeasured).

    Example:
        >>> score_bins(pd.Series([0.1, 0.2, 0.8, 0.9, None]), 2)
        ['b1', 'b1', 'b2', 'b2', 'n/a']
    """
    out = ["n/a"] * len(scores)
    values = scores.to_numpy(dtype=np.float64)
    measured = np.flatnonzero(~np.isnan(values))
    if measured.size:
        ranks = pd.Series(values[measured]).rank(method="average").to_numpy()
        bins = np.minimum((ranks - 1) * n_bins // len(measured), n_bins - 1).astype(int)
        for i, b in zip(measured, bins, strict=True):
            out[i] = f"b{b + 1}"
    return out


def _interleave(groups: Mapping[str, list[int]], rng: random.Random) -> list[int]:
    """Round-robin over groups (in a seeded order), each already in its own order."""
    names = sorted(groups)
    rng.shuffle(names)
    lists = [list(groups[n]) for n in names]
    out: list[int] = []
    while any(lists):
        for items in lists:
            if items:
                out.append(items.pop(0))
    return out


def stratified_order(
    bins: Sequence[str], slices: Sequence[str] | Sequence[Sequence[str]], seed: int = 0
) -> list[int]:
    """Indices in stratified order: the score bins take turns; inside a bin the values of the
    first slice column (model) take turns, inside those the next column's (topic), and so on.

    ``slices`` holds one key per item, either a string or a tuple of slice values.

    Example:
        >>> stratified_order(["lo", "lo", "lo", "hi"], ["a", "a", "b", "a"], seed=1)
        [3, 2, 1, 0]
    """
    rng = random.Random(seed)
    keys = [
        (b, *((s,) if isinstance(s, str) else tuple(s))) for b, s in zip(bins, slices, strict=True)
    ]

    def order(members: list[int], level: int) -> list[int]:
        if level >= len(keys[members[0]]):
            shuffled = list(members)
            rng.shuffle(shuffled)
            return shuffled
        groups: dict[str, list[int]] = {}
        for i in members:
            groups.setdefault(str(keys[i][level]), []).append(i)
        return _interleave({k: order(g, level + 1) for k, g in groups.items()}, rng)

    return order(list(range(len(keys))), 0) if keys else []


def build_queue(
    items: pd.DataFrame,
    uncertain: Mapping[tuple[str, str], bool] | None = None,
    *,
    n_bins: int = 5,
    seed: int = 0,
    first: Sequence[tuple[str, str]] = (),
) -> list[QueueEntry]:
    """Queue order of ``items`` (from :func:`item_table`): the units in ``first`` in their order
    (the draws of labelling rounds), then uncertain cases, then the rest, each of the last two
    groups in :func:`stratified_order`.

    Example:
        >>> items = pd.DataFrame({"case_id": list("abcd"), "model": ["m"] * 4,
        ...     "topic": ["t"] * 4, "query_type": [None] * 4, "score": [0.1, 0.2, 0.8, 0.9]})
        >>> [e.case_id for e in build_queue(items, {("c", "m"): True}, n_bins=2)][0]
        'c'
        >>> [e.case_id for e in build_queue(items, {("c", "m"): True}, first=[("d", "m")])][:2]
        ['d', 'c']
    """
    if n_bins < 1:
        raise InvalidInputError(f"n_bins must be at least 1; got {n_bins}")
    uncertain = uncertain or {}
    bins = score_bins(items["score"], n_bins)
    slices = [
        tuple("" if pd.isna(v) else str(v) for v in row)
        for row in items[list(SLICE_COLUMNS)].itertuples(index=False)
    ]
    keys = list(zip(items["case_id"].astype(str), items["model"].astype(str), strict=True))
    flags = [bool(uncertain.get(k, False)) for k in keys]
    position = {k: i for i, k in enumerate(keys)}
    order: list[int] = list(dict.fromkeys(position[k] for k in first if k in position))
    drawn = set(order)
    for wanted in (True, False):
        members = [i for i, f in enumerate(flags) if f is wanted and i not in drawn]
        sub = stratified_order([bins[i] for i in members], [slices[i] for i in members], seed)
        order.extend(members[j] for j in sub)
    return [
        QueueEntry(keys[i][0], keys[i][1], rank, "|".join((bins[i], *slices[i])), flags[i])
        for rank, i in enumerate(order)
    ]


def calibrator_path(run_dir: str | Path, calibrator: str | Path | None) -> Path | None:
    """The calibrator file to use: the given one, else ``RUN_DIR/calibration/calibrator.json``
    when it exists."""
    if calibrator is not None:
        return Path(calibrator)
    default = Path(run_dir) / DEFAULT_CALIBRATOR
    return default if default.is_file() else None


def uncertain_cases(
    results: pd.DataFrame, run_dir: str | Path, calibrator: Path | None
) -> tuple[dict[tuple[str, str], bool], list[str]]:
    """Per case × model, whether its conformal prediction set is ambiguous or empty.

    Reads the calibrator file when there is one (applying it to the run's scores), else the
    ``calibrated.parquet`` written by ``assay evaluate --calibrator``. Returns the flags and the
    calibrator's metric names (empty when no calibrator exists).
    """
    frame: pd.DataFrame | None = None
    metrics: list[str] = []
    if calibrator is not None and calibrator.is_file():
        from assay.calibrate.apply import calibrated_frame, prepare_calibrators

        known = set(results["metric"].unique())
        loaded = prepare_calibrators([calibrator], known)[0]
        frame = calibrated_frame(results, loaded)
        metrics = loaded.calibrator.metric_names
    else:
        frame = read_calibrated(Path(run_dir))
        if frame is not None and len(frame):
            metrics = str(frame["metric"].iloc[0]).split("+")
    review = review_cases(run_dir)
    if frame is None:
        return review, []
    flags: dict[tuple[str, str], bool] = {}
    for row in frame[["case_id", "model", "prediction_set"]].itertuples(index=False):
        members = _set_members(row.prediction_set)
        if members is not None:
            key = (str(row.case_id), str(row.model))
            flags[key] = flags.get(key, False) or len(members) != 1
    logger.info("calibrator: %d of %d cases uncertain", sum(flags.values()), len(flags))
    for key in review:
        flags[key] = True
    return flags, metrics


def review_cases(run_dir: str | Path) -> dict[tuple[str, str], bool]:
    """Cases an assessment routed to REVIEW, when ``run_dir`` is the run of an assessment
    (``ASSESSMENT/run``; the verdicts are in ``ASSESSMENT/verdict_cases.csv``)."""
    path = Path(run_dir).parent / VERDICT_CASES_FILE
    if not path.is_file():
        return {}
    table = pd.read_csv(path, dtype={"case_id": str, "model": str})
    if "verdict" not in table:
        return {}
    review = table[table["verdict"] == "REVIEW"]
    return {(str(r.case_id), str(r.model)): True for r in review.itertuples(index=False)}


def _set_members(raw: Any) -> list[Any] | None:
    if raw is None or (isinstance(raw, float) and np.isnan(raw)):
        return None
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return None
    return list(value) if isinstance(value, list) else None
