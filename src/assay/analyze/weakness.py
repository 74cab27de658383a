"""Where is the system weak? Marginal and bivariate slices of every metric, with uncertainty.

A *slice* is the set of measured cases sharing one value of a field (topic, query type,
perturbation, model). For each slice we report the mean with a bootstrap confidence interval and
its gap to the scope's overall mean, oriented so that a negative gap is always worse. Only ``ok``
outcomes count (DESIGN §3): skipped and errored cases are never failures.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from assay.analyze.resampling import (
    CLUSTER,
    FEW_CATEGORIES,
    ClusterBootstrap,
    cluster_codes,
    code_positions,
    column_codes,
    present_codes,
)
from assay.analyze.uncertainty import DEFAULT_RESAMPLES
from assay.analyze.verdicts import verdict_codes, verdict_floats
from assay.params import check, check_int
from assay.rundir.results import code_type

#: Fields of the results table analysed as slices.
SLICE_FIELDS: tuple[str, ...] = ("topic", "query_type", "perturbation", "model")
#: Label of cases whose slice field is empty (for ``perturbation``: the unperturbed originals).
NONE_LABEL = "(none)"
#: Slices with fewer measured cases are never called significant.
MIN_SIGNIFICANT_N = 5
#: Scope label of rows computed over all models together.
ALL_MODELS = "(all models)"

#: The result columns the analysis reads (:func:`assay.analyze.summary.analyze_run` reads only
#: these: ``threshold``, ``sample`` and ``evaluator`` were 30 MB at 100,000 cases).
ANALYSED_COLUMNS: tuple[str, ...] = (
    "case_id", "parent_id", "sample_of", "metric", "primary", "status", "value", "passed",
    *SLICE_FIELDS,
)

_MEASURED = "assay_measured"  # marks a frame already returned by measured()

MARGINAL_COLUMNS = [
    "scope",
    "metric",
    "field",
    "slice",
    "n",
    "n_clusters",
    "mean",
    "ci_low",
    "ci_high",
    "pass_rate",
    "n_fail",
    "overall",
    "gap",
    "effect",
    "significant",
]


def measured(results: pd.DataFrame) -> pd.DataFrame:
    """The ``ok`` rows with a value, slice fields filled with :data:`NONE_LABEL`.

    Adds the column :data:`~assay.analyze.resampling.CLUSTER`: each row's parent question as an
    integer code (resampling draws parent questions, not cases); ``passed`` becomes ``int8``
    codes (:func:`~assay.analyze.verdicts.verdict_codes`).

    Idempotent and cheap on its own output, so analysis functions accept either table.

    Example:
        >>> frame = pd.DataFrame({"status": ["ok", "skipped"], "value": [1.0, None],
        ...                       "topic": [None, "x"], "model": ["m", "m"]})
        >>> measured(frame)["topic"].tolist()
        ['(none)']
    """
    if results.attrs.get(_MEASURED):
        return results
    keep = (results["status"] == "ok") & results["value"].notna()
    # Copy-on-write: columns set below never reach ``results``; a shallow copy when every row
    # is kept (a table read with only its measured rows) avoids a second copy of a large run.
    ok = results.copy(deep=False) if keep.all() else results[keep]
    ok[CLUSTER] = cluster_codes(ok)
    if "passed" in ok:
        ok["passed"] = verdict_codes(ok["passed"])
    return label_slices(ok)


def label_slices(ok: pd.DataFrame) -> pd.DataFrame:
    """The slice fields of measured rows (in place) as :func:`measured` leaves them: text
    or ``category`` labels, empty and missing ones :data:`NONE_LABEL` (``model``: empty);
    the frame marked as measured."""
    for field in SLICE_FIELDS:
        if field in ok:
            ok[field] = _slice_labels(ok[field])
    if "model" in ok:
        model = ok["model"]
        if isinstance(model.dtype, pd.CategoricalDtype):
            ok["model"] = _recode(model, ["" if c == NONE_LABEL else c
                                          for c in model.cat.categories], "")
        else:
            ok["model"] = model.replace(NONE_LABEL, "")
    ok.attrs[_MEASURED] = True
    return ok


def _slice_labels(column: pd.Series) -> pd.Series:
    """A slice field as text, empty and missing values as :data:`NONE_LABEL`; a ``category``
    column (as :meth:`~assay.rundir.run.EvaluationRun.lean_results` reads it) stays one, its
    categories relabelled in text order (a string per row of a 100,000-case run was ~25 MB a
    field, issue 23).

    Example:
        >>> _slice_labels(pd.Series(pd.Categorical(["a", "", None]))).tolist()
        ['a', '(none)', '(none)']
    """
    if not isinstance(column.dtype, pd.CategoricalDtype):
        return column.fillna(NONE_LABEL).replace("", NONE_LABEL).astype(str)
    names = [NONE_LABEL if c == "" else str(c) for c in column.cat.categories]
    return _recode(column, names, NONE_LABEL)


def _recode(column: pd.Series, names: list[str], missing: str) -> pd.Series:
    """A ``category`` column with its categories renamed to ``names`` (several may merge) and
    missing values as ``missing``; the new categories in text order."""
    labels = sorted({*names, missing})
    position = {label: i for i, label in enumerate(labels)}
    # In the codes' own narrow type: int32 codes were 110 MB a field at 27.5 M rows, copied
    # again into int8 by the categorical (issue 48).
    remap = np.array([position[n] for n in names] + [position[missing]],
                     dtype=code_type(len(labels)))
    codes = remap[column.cat.codes.to_numpy()]  # code -1 (missing) takes the last entry
    return pd.Series(pd.Categorical.from_codes(codes, categories=labels), index=column.index)


def _orient(higher_is_better: bool) -> float:
    return 1.0 if higher_is_better else -1.0


def marginal(
    results: pd.DataFrame,
    directions: Mapping[str, bool],
    *,
    fields: Sequence[str] = SLICE_FIELDS,
    metrics: Sequence[str] | None = None,
    per_model: bool = True,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    min_slice: int = 1,
    seed: int = 0,
    bootstrap: ClusterBootstrap | None = None,
    n_models: int | None = None,
) -> pd.DataFrame:
    """Marginal analysis: each metric's mean per slice of each field, with bootstrap CIs.

    Rows are computed for every model separately (``scope`` = model name, when ``per_model``) and
    for all models together (``scope`` = :data:`ALL_MODELS`; the ``model`` field is sliced only
    there). Fields with fewer than two slices in a scope are left out: they cannot show a weakness.

    Args:
        results: the long results table (``results.parquet``).
        directions: metric → higher is better (from the leaderboard or metric specs).
        fields: slice fields to analyse.
        metrics: metrics to analyse (default: every metric with a direction and a measured value).
        per_model: also compute per-model scopes.
        confidence: confidence level of the intervals.
        n_resamples: bootstrap resamples (when no ``bootstrap`` is given).
        min_slice: slices with fewer measured cases are left out.
        seed: bootstrap seed (when no ``bootstrap`` is given).
        bootstrap: shared resampling weights of the analysis (default: drawn here for
            ``results``); intervals resample parent questions, not cases.
        n_models: the run's number of models, when ``results`` holds some of its metrics
            (default: those in ``results``); the scopes are those of the whole run.

    Returns:
        A DataFrame with :data:`MARGINAL_COLUMNS`. ``gap`` is ``(mean - overall)`` oriented so
        that negative is worse; ``significant`` is True when the slice's interval excludes the
        overall mean.

    Example:
        >>> frame = pd.DataFrame({"case_id": list("abcd"), "model": "m", "metric": "acc",
        ...     "status": "ok", "value": [1.0, 1.0, 0.0, 0.0], "passed": None,
        ...     "topic": ["x", "x", "y", "y"], "query_type": None, "perturbation": None})
        >>> out = marginal(frame, {"acc": True}, per_model=False, n_resamples=100)
        >>> out[["slice", "mean", "gap"]].values.tolist()
        [['x', 1.0, 0.5], ['y', 0.0, -0.5]]
    """
    check_int(min_slice, "min_slice", "marginal")
    ok = measured(results)
    if bootstrap is None:
        bootstrap = ClusterBootstrap.for_results(ok, n_resamples=n_resamples, seed=seed)
    wanted = [m for m in (metrics or sorted(ok["metric"].unique())) if m in directions]
    keep = ok["metric"].isin(wanted)
    if not keep.all():  # no copy of a large table when every metric is analysed
        ok = ok[keep]
    rows: list[dict[str, Any]] = []
    for scope, scoped in _scopes(ok, per_model, n_models):
        scope_fields = [f for f in fields if f in ok and (f != "model" or scope == ALL_MODELS)]
        intervals = _slice_intervals(ok, scoped, scope_fields, bootstrap, confidence)
        for metric, positions in _positions_at(ok["metric"], scoped):
            per_metric = ok.iloc[positions]
            values = per_metric["value"].to_numpy(dtype=float)
            verdicts = _verdicts(per_metric)
            clusters = per_metric[CLUSTER].to_numpy()
            sign = _orient(directions[str(metric)])
            overall = float(values.mean())
            spread = float(values.std())
            for field in scope_fields:
                groups = dict(positions_by_value(per_metric[field]))
                if len(groups) < 2:
                    continue
                for value, idx in groups.items():
                    if len(idx) < min_slice:
                        continue
                    rows.append(
                        _slice_row(
                            (scope, str(metric), field, str(value)),
                            values[idx],
                            verdicts[idx],
                            int(np.unique(clusters[idx]).size),
                            intervals[(field, str(value), str(metric))],
                            (overall, spread),
                            sign,
                        )
                    )
    return pd.DataFrame(rows, columns=MARGINAL_COLUMNS)


def _scopes(
    ok: pd.DataFrame, per_model: bool, n_models: int | None = None
) -> Iterator[tuple[str, np.ndarray | None]]:
    """The scopes of :func:`marginal` and the positions of their rows (None: every row): every
    model, then each model by name, when the run has several (``n_models``, default: those of
    ``ok``). Positions, not copies: a model's rows of a 119,100-case run were 40 MB copied
    while its slices were resampled."""
    several = (ok["model"].nunique() if n_models is None else n_models) > 1
    if per_model and several:
        yield ALL_MODELS, None
        yield from ((str(model), rows) for model, rows in positions_by_value(ok["model"]))
    elif per_model and not ok.empty:
        yield str(ok["model"].iloc[0]), None
    else:
        yield ALL_MODELS, None


def _slice_intervals(
    frame: pd.DataFrame,
    rows: np.ndarray | None,
    fields: Sequence[str],
    bootstrap: ClusterBootstrap,
    confidence: float,
) -> dict[tuple[str, str, str], tuple[float | None, float | None]]:
    """(field, slice, metric) → percentile interval over the ``rows`` of ``frame`` (default:
    all), every metric of a slice in one product."""
    metric_codes, metric_names = column_codes(frame["metric"], rows)
    values = frame["value"].to_numpy(dtype=float)
    clusters = frame[CLUSTER].to_numpy()
    out: dict[tuple[str, str, str], tuple[float | None, float | None]] = {}
    for field in fields:
        if _at(frame[field], rows).nunique() < 2:  # one slice shows no weakness: none listed
            continue
        for label, idx in _positions_at(frame[field], rows):
            low, high = bootstrap.interval(
                clusters, values, confidence, metric_codes, len(metric_names), idx
            )
            for code in present_codes(metric_codes[idx], len(metric_names)):
                out[(field, str(label), str(metric_names[code]))] = (
                    float(low[code]),
                    float(high[code]),
                )
    return out


def positions_by_value(column: pd.Series) -> Iterator[tuple[Any, np.ndarray]]:
    """Each value of ``column`` (missing values left out) with the positions of its rows, by
    value in sorted order: ``groupby(column, sort=True).indices``, without the recoding of a
    ``category`` column's categories that pandas does on every call (most of the time of
    :func:`marginal` on a compactly read run). A column of few categories yields one value's
    positions at a time (8 bytes a row: all of them at once were 26 MB at 3.3 M rows).

    Example:
        >>> column = pd.Series(pd.Categorical(["b", "a", "b", None], categories=["a", "b"]))
        >>> {label: rows.tolist() for label, rows in positions_by_value(column)}
        {'a': [1], 'b': [0, 2]}
    """
    if not isinstance(column.dtype, pd.CategoricalDtype):
        yield from column.groupby(column, sort=True).indices.items()
        return
    codes = column.cat.codes.to_numpy()
    if not codes.size:
        return
    names = column.cat.categories.tolist()
    if len(names) <= FEW_CATEGORIES:
        # One scan per slice: no sorted copy of a 1.8 M-row column and its positions (issue 23).
        for code in present_codes(codes, len(names)):
            yield names[code], code_positions(codes, code)
        return
    order = np.argsort(codes, kind="stable")
    present, starts = np.unique(codes[order], return_index=True)
    ends = [*starts[1:], len(order)]
    for code, start, end in zip(present, starts, ends, strict=True):
        if code >= 0:
            yield names[code], order[start:end]


def _positions_at(
    column: pd.Series, rows: np.ndarray | None
) -> Iterator[tuple[Any, np.ndarray]]:
    """:func:`positions_by_value` of the values of ``column`` at ``rows`` (default: all), as
    positions in the whole column (ascending, as ``rows`` are).

    Example:
        >>> dict(_positions_at(pd.Series(["b", "a", "b", "a"]), np.array([1, 2, 3])))
        {'a': array([1, 3]), 'b': array([2])}
    """
    for label, idx in positions_by_value(_at(column, rows)):
        yield label, idx if rows is None else rows[idx]


def _at(column: pd.Series, rows: np.ndarray | None) -> pd.Series:
    """The values of ``column`` at ``rows`` (default: all), numbered from 0: the values alone
    are copied (a ``category`` column's codes, a byte a row), not an index of 8 bytes a row as
    ``iloc`` builds."""
    return column if rows is None else pd.Series(column.array[rows], copy=False)


def _verdicts(frame: pd.DataFrame) -> np.ndarray:
    """Pass / fail verdicts as floats (1 pass, 0 fail, NaN no verdict) of measured rows."""
    if "passed" not in frame:
        return np.full(len(frame), np.nan)
    return verdict_floats(frame["passed"].to_numpy())


def _slice_row(
    key: tuple[str, str, str, str],
    values: np.ndarray,
    verdicts: np.ndarray,
    n_clusters: int,
    interval: tuple[float | None, float | None],
    baseline: tuple[float, float],
    sign: float,
) -> dict[str, Any]:
    scope, metric, field, value = key
    low, high = interval
    overall, spread = baseline
    judged = verdicts[~np.isnan(verdicts)]
    mean = float(values.mean())
    # A bootstrap interval of a handful of questions is too narrow to trust (one: zero width);
    # variants of one parent question count once.
    significant = (
        n_clusters >= MIN_SIGNIFICANT_N
        and low is not None
        and high is not None
        and not (low <= overall <= high)
    )
    gap = sign * (mean - overall)
    return {
        "scope": scope,
        "metric": metric,
        "field": field,
        "slice": value,
        "n": int(values.size),
        "n_clusters": n_clusters,
        "mean": mean,
        "ci_low": low,
        "ci_high": high,
        "pass_rate": float(judged.mean()) if judged.size else None,
        "n_fail": int((judged == 0).sum()),
        "overall": overall,
        "gap": gap,
        "effect": gap / spread if spread > 0 else 0.0,
        "significant": bool(significant),
    }


def weakest_slices(
    marginal_frame: pd.DataFrame, *, top: int = 10, metrics: Sequence[str] | None = None
) -> list[dict[str, Any]]:
    """The weakest slices, worst first: significant shortfalls before noisy ones, then by effect
    size (the gap in units of the metric's standard deviation in that scope, so metrics on
    different scales compare fairly).

    Only slices below their scope's overall mean (negative gap) are candidates; ``metrics``
    restricts the ranking (e.g. to primary metrics).

    Example:
        >>> frame = pd.DataFrame([{"scope": "m", "metric": "acc", "field": "topic",
        ...     "slice": "fees", "n": 8, "mean": 0.2, "ci_low": 0.1, "ci_high": 0.3,
        ...     "pass_rate": None, "n_fail": 0, "overall": 0.6, "gap": -0.4, "effect": -1.2,
        ...     "significant": True}])
        >>> weakest_slices(frame)[0]["message"]
        'm: acc is 0.2 [0.1, 0.3] on topic=fees (n=8) vs 0.6 overall (significant).'
    """
    if marginal_frame.empty:
        return []
    below = marginal_frame[marginal_frame["gap"] < 0]
    if metrics is not None:
        below = below[below["metric"].isin(list(metrics))]
    ranked = below.sort_values(["significant", "effect", "n"], ascending=[False, True, False])
    out = []
    head = ranked.head(top)
    for row in head.astype(object).where(head.notna(), None).to_dict("records"):
        note = "significant" if row["significant"] else "within noise"
        clusters = row.get("n_clusters")
        size = f"n={row['n']}"
        if clusters is not None and clusters != row["n"]:
            size += f" from {clusters} question{'s' if clusters != 1 else ''}"
        row["message"] = (
            f"{row['scope']}: {row['metric']} is {row['mean']:.3g} "
            f"[{row['ci_low']:.3g}, {row['ci_high']:.3g}] on {row['field']}={row['slice']} "
            f"({size}) vs {row['overall']:.3g} overall ({note})."
        )
        out.append(row)
    return out


def bivariate(
    results: pd.DataFrame,
    metric: str,
    *,
    rows: str = "topic",
    columns: str = "query_type",
    model: str | None = None,
) -> dict[str, Any]:
    """Mean of ``metric`` over two slice fields (a heatmap's data).

    Args:
        results: the long results table.
        metric: metric to aggregate.
        rows: field for the rows of the grid.
        columns: field for the columns of the grid.
        model: restrict to one model (default: all models together).

    Returns:
        ``{"metric", "model", "rows", "columns", "row_labels", "column_labels", "mean", "n"}``
        where ``mean[i][j]`` is None for an empty cell.

    Example:
        >>> frame = pd.DataFrame({"case_id": list("abc"), "model": "m", "metric": "acc",
        ...     "status": "ok", "value": [1.0, 0.0, 0.5], "topic": ["x", "x", "y"],
        ...     "query_type": ["f", "g", "f"], "perturbation": None})
        >>> grid = bivariate(frame, "acc")
        >>> grid["row_labels"], grid["column_labels"], grid["mean"]
        (['x', 'y'], ['f', 'g'], [[1.0, 0.0], [0.5, None]])
    """
    check(rows != columns, "columns", "bivariate", f"a field other than {rows!r}", columns)
    ok = measured(results)
    ok = ok[ok["metric"] == metric]
    if model is not None:
        ok = ok[ok["model"] == model]
    for field in (rows, columns):
        check(field in ok.columns, "rows/columns", "bivariate", "a results column", field)
    grouped = ok.groupby([rows, columns])["value"].agg(["mean", "count"])
    row_labels = sorted(ok[rows].unique().tolist())
    column_labels = sorted(ok[columns].unique().tolist())
    means: list[list[float | None]] = []
    counts: list[list[int]] = []
    for r in row_labels:
        means.append([])
        counts.append([])
        for c in column_labels:
            if (r, c) in grouped.index:
                cell = grouped.loc[(r, c)]
                means[-1].append(float(cell["mean"]))
                counts[-1].append(int(cell["count"]))
            else:
                means[-1].append(None)
                counts[-1].append(0)
    return {
        "metric": metric,
        "model": model,
        "rows": rows,
        "columns": columns,
        "row_labels": [str(x) for x in row_labels],
        "column_labels": [str(x) for x in column_labels],
        "mean": means,
        "n": counts,
    }


def distribution(
    results: pd.DataFrame, metric: str, *, field: str = "model", model: str | None = None
) -> list[dict[str, Any]]:
    """Five-number summaries of ``metric`` per slice of ``field`` (a box plot's data).

    Whiskers reach the most extreme values within 1.5 IQR of the quartiles (Tukey).

    Example:
        >>> frame = pd.DataFrame({"case_id": list("abcde"), "model": "m", "metric": "acc",
        ...     "status": "ok", "value": [0.0, 0.25, 0.5, 0.75, 1.0], "topic": None,
        ...     "query_type": None, "perturbation": None})
        >>> box = distribution(frame, "acc")[0]
        >>> box["slice"], box["q1"], box["median"], box["q3"], box["n"]
        ('m', 0.25, 0.5, 0.75, 5)
    """
    ok = measured(results)
    ok = ok[ok["metric"] == metric]
    if model is not None:
        ok = ok[ok["model"] == model]
    out = []
    for value, group in ok.groupby(field, sort=True):
        values = np.sort(group["value"].to_numpy(dtype=float))
        q1, median, q3 = (float(q) for q in np.quantile(values, [0.25, 0.5, 0.75]))
        iqr = q3 - q1
        inside = values[(values >= q1 - 1.5 * iqr) & (values <= q3 + 1.5 * iqr)]
        outliers = values[(values < q1 - 1.5 * iqr) | (values > q3 + 1.5 * iqr)]
        out.append(
            {
                "slice": str(value) or "(unnamed)",
                "n": int(values.size),
                "mean": float(values.mean()),
                "min": float(values[0]),
                "q1": q1,
                "median": median,
                "q3": q3,
                "max": float(values[-1]),
                "whisker_low": float(inside.min()),
                "whisker_high": float(inside.max()),
                "outliers": [float(v) for v in np.unique(outliers)[:50]],
            }
        )
    return out
