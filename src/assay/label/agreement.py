"""Inter-annotator agreement per criterion: Cohen's κ per pair, Fleiss' κ, Krippendorff's α.

Thin wrappers over scikit-learn (``cohen_kappa_score``), statsmodels (``fleiss_kappa``) and the
``krippendorff`` package. Ordinal criteria use quadratic weights for κ and the ordinal metric
for α; binary ones are nominal. A statistic that cannot be computed is ``None`` with a reason.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from assay.errors import require
from assay.label.criteria import Criterion


def rating_matrix(judgments: Sequence[dict[str, Any]], criterion: str) -> pd.DataFrame:
    """Items × annotators table of one criterion's values (NaN where an annotator did not rate).

    Example:
        >>> rows = [{"case_id": "q1", "model": "m", "annotator": "a", "criterion": "g", "value": 1},
        ...         {"case_id": "q1", "model": "m", "annotator": "b", "criterion": "g", "value": 0}]
        >>> rating_matrix(rows, "g").to_numpy().tolist()
        [[1.0, 0.0]]
    """
    rows = [j for j in judgments if j["criterion"] == criterion]
    if not rows:
        return pd.DataFrame(dtype=np.float64)
    frame = pd.DataFrame(rows)
    return frame.pivot_table(
        index=["case_id", "model"], columns="annotator", values="value", aggfunc="first"
    ).astype(np.float64)


def _result(value: float | None, n: int, reason: str | None = None) -> dict[str, Any]:
    if value is not None and not math.isfinite(value):
        value = None
    if value is None:
        reason = reason or "undefined (every rating is the same value)"
    return {"value": value, "n_items": n, "reason": None if value is not None else reason}


def cohen_pairs(matrix: pd.DataFrame, ordinal: bool = False) -> list[dict[str, Any]]:
    """Cohen's κ for every pair of annotators over the items both rated (quadratic weights when
    ``ordinal``).

    Example:
        >>> m = pd.DataFrame({"a": [1, 0, 1, 0], "b": [1, 0, 1, 1]}, dtype=float)
        >>> round(cohen_pairs(m)[0]["value"], 3)
        0.5
    """
    from sklearn.metrics import cohen_kappa_score

    out = []
    for a, b in itertools.combinations(matrix.columns, 2):
        both = matrix[[a, b]].dropna()
        entry = {"annotators": [str(a), str(b)]}
        if len(both) < 2:
            out.append({**entry, **_result(None, len(both), "fewer than 2 items rated by both")})
            continue
        x, y = both[a].astype(int), both[b].astype(int)
        if len(set(x) | set(y)) < 2:
            out.append({**entry, **_result(None, len(both))})
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = float(cohen_kappa_score(x, y, weights="quadratic" if ordinal else None))
        out.append({**entry, **_result(kappa, len(both))})
    return out


def fleiss(matrix: pd.DataFrame, values: Sequence[int]) -> dict[str, Any]:
    """Fleiss' κ over the items rated by the most common number (at least 2) of annotators
    (the statistic needs the same number of ratings per item).

    Example:
        >>> m = pd.DataFrame({"a": [1, 0, 1], "b": [1, 0, 0], "c": [1, 0, 1]}, dtype=float)
        >>> round(fleiss(m, [0, 1])["value"], 3)
        0.55
    """
    inter_rater = require("statsmodels.stats.inter_rater", extra="label", package="statsmodels")
    counts = matrix.notna().sum(axis=1)
    counts = counts[counts >= 2]
    if counts.empty:
        return _result(None, 0, "no item has 2 or more ratings")
    raters = int(counts.value_counts().idxmax())
    rows = matrix.loc[counts[counts == raters].index]
    table = np.array([[int((r == v).sum()) for v in values] for r in rows.to_numpy()])
    if len(table) < 2:
        return _result(None, len(table), "fewer than 2 items with the same number of ratings")
    if (table.sum(axis=0) > 0).sum() < 2:
        return _result(None, len(table))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(inter_rater.fleiss_kappa(table, method="fleiss"))  # type: ignore[attr-defined]
    out = _result(value, len(table))
    out["raters_per_item"] = raters
    return out


def krippendorff_alpha(matrix: pd.DataFrame, ordinal: bool = False) -> dict[str, Any]:
    """Krippendorff's α (any number of annotators, missing ratings allowed).

    Example:
        >>> m = pd.DataFrame({"a": [1, 0, 1, 0], "b": [1, 0, 1, 1]}, dtype=float)
        >>> round(krippendorff_alpha(m)["value"], 3)
        0.533
    """
    krippendorff = require("krippendorff", extra="label")
    paired = matrix[matrix.notna().sum(axis=1) >= 2]
    if len(paired) < 1 or matrix.shape[1] < 2:
        return _result(None, len(paired), "no item has 2 or more ratings")
    data = paired.to_numpy(dtype=np.float64).T  # annotators x items
    if len(np.unique(data[~np.isnan(data)])) < 2:
        return _result(None, len(paired))
    level = "ordinal" if ordinal else "nominal"
    value = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))  # type: ignore[attr-defined]
    return _result(value, len(paired))


def agreement(
    judgments: Sequence[dict[str, Any]], criteria: Sequence[Criterion]
) -> list[dict[str, Any]]:
    """Per criterion: the number of items with 2+ ratings, Cohen's κ per pair, Fleiss' κ and
    Krippendorff's α."""
    out = []
    for criterion in criteria:
        matrix = rating_matrix(judgments, criterion.name)
        ordinal = criterion.kind == "ordinal"
        if matrix.empty:
            out.append(
                {
                    "criterion": criterion.name,
                    "overlap": 0,
                    "cohen": [],
                    "fleiss": _result(None, 0, "no labels yet"),
                    "alpha": _result(None, 0, "no labels yet"),
                }
            )
            continue
        out.append(
            {
                "criterion": criterion.name,
                "overlap": int((matrix.notna().sum(axis=1) >= 2).sum()),
                "cohen": cohen_pairs(matrix, ordinal),
                "fleiss": fleiss(matrix, criterion.values),
                "alpha": krippendorff_alpha(matrix, ordinal),
            }
        )
    return out
