"""Generic problems and insights that apply to every evaluator.

Problems are things a validator must look at (a model below threshold, the hardest case, results
that flip under perturbation); insights are neutral observations (best, fastest, cheapest model).
Each finding is a plain dict with ``kind``, ``message`` and ``evidence``; rendering is elsewhere.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from typing import Any, cast

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from assay.rundir.records import Finding, LeaderboardRow, ResultRow


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3g}"


class _LinkedRows:
    """Result rows of fixed columns kept as typed arrays: each text as a code into its column's
    vocabulary (None as -1), values as doubles (None as NaN), verdicts as bytes.

    ~35 bytes a row where a tuple of the row's objects took ~180: a million-case perturbed suite
    links ~1.2 million primary rows (issue 48).

    Example:
        >>> rows = _LinkedRows(["p"])
        >>> rows.add({"case_id": "c", "model": "m", "value": None, "passed": True,
        ...           "parent_id": "p"})
        >>> frame = rows.frame()
        >>> frame["case_id"].tolist(), frame["value"].isna().tolist(), frame["sample"].tolist()
        (['c'], [True], [-1])
        >>> frame["parent_id"].tolist()
        ['p']
    """

    TEXTS = ("case_id", "model", "evaluator", "metric", "parent_id", "perturbation", "sample_of")
    IDS = ("case_id", "parent_id", "sample_of")

    def __init__(self, ids: Sequence[str] = ()) -> None:
        self._codes = {name: array("i") for name in self.TEXTS}
        # Case, parent and sampled ids share one vocabulary made before any row, the linked ids:
        # no text is kept per row amid scoring's transient objects (each would pin an arena),
        # and a perturbed case meets its parent by code (:func:`parent_pairs`).
        known = {case_id: code for code, case_id in enumerate(ids)}
        self._vocab: dict[str, dict[str, int]] = {name: {} for name in self.TEXTS}
        for name in self.IDS:
            self._vocab[name] = known
        self._value, self._passed, self._sample = array("d"), array("b"), array("q")

    def add(self, row: ResultRow) -> None:
        """Keep one row (``passed`` must be judged: True or False)."""
        for name in self.TEXTS:
            text = cast("str | None", row.get(name))
            vocab = self._vocab[name]
            self._codes[name].append(-1 if text is None else vocab.setdefault(text, len(vocab)))
        value = row.get("value")
        self._value.append(math.nan if value is None else value)
        self._passed.append(bool(row["passed"]))
        sample = row.get("sample")
        self._sample.append(-1 if sample is None else sample)

    def frame(self) -> pd.DataFrame:
        """The rows as a frame: texts as categories (the id columns over one list of ids),
        ``sample`` -1 where there is none."""
        ids = pd.Index(list(self._vocab["case_id"]), dtype=object)  # the three id columns'
        data: dict[str, Any] = {
            name: pd.Categorical.from_codes(
                np.frombuffer(self._codes[name], dtype=np.int32),
                categories=ids if name in self.IDS else pd.Index(list(vocab), dtype=object),
            )
            for name, vocab in self._vocab.items()
        }
        data["value"] = np.array(self._value, dtype=np.float64)
        data["passed"] = np.array(self._passed, dtype=bool)
        data["sample"] = np.array(self._sample, dtype=np.int64)
        return pd.DataFrame(data)


class _FailingRows:
    """Case id and model of each failing primary row, as two Arrow string columns.

    Rows wait in two lists and join the columns every :attr:`BUFFER` rows: a dict entry per
    failing case, made amid scoring's transient objects, pinned the Python heap's arenas
    (issue 48); Arrow keeps the texts outside that heap.

    Example:
        >>> rows = _FailingRows()
        >>> for case_id, model in [("a", "m"), ("b", "m"), ("b", "n"), ("a", "m")]:
        ...     rows.add(case_id, model)
        >>> rows.most_difficult()
        ('b', 2, ['m', 'n'])
    """

    BUFFER = 65_536

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._models: list[str] = []
        self._columns: tuple[pa.Array, pa.Array] | None = None

    def add(self, case_id: str, model: str) -> None:
        """Count one failing row."""
        self._ids.append(case_id)
        self._models.append(model)
        if len(self._ids) >= self.BUFFER:
            self._flush()

    def _flush(self) -> None:
        if not self._ids:
            return
        fresh = (pa.array(self._ids, pa.string()), pa.array(self._models, pa.string()))
        self._ids, self._models = [], []
        if self._columns is not None:
            fresh = (pa.concat_arrays([self._columns[0], fresh[0]]),
                     pa.concat_arrays([self._columns[1], fresh[1]]))  # fmt: skip
        self._columns = fresh

    def most_difficult(self) -> tuple[str, int, list[str]] | None:
        """The case failed by the most models, then on the most checks (the first such case in
        the order rows came): its id, failed checks and failing models; None without failures."""
        self._flush()
        if self._columns is None:
            return None
        table = pa.table({"case_id": self._columns[0], "model": self._columns[1]})
        # Without threads the groups come in the order of their first row.
        tally = table.group_by("case_id", use_threads=False).aggregate(
            [("model", "count"), ("model", "count_distinct")]
        )
        checks = tally["model_count"].to_numpy()
        models = tally["model_count_distinct"].to_numpy()
        best = int(np.argmax(models * (int(checks.max()) + 1) + checks))
        case_id = tally["case_id"][best].as_py()
        failing = pc.filter(table["model"], pc.equal(table["case_id"], case_id))
        return case_id, int(checks[best]), sorted(pc.unique(failing).to_pylist())


class PrimaryOutcomes:
    """Streams the judged primary-metric rows of a run, keeping only what the findings need.

    Memory stays small on large suites: a failure tally per failing case, a pass tally per
    repeated case (``sampled``: the suite holds samples of ``assay run --repeats``), and the rows
    of cases linked by perturbation (``linked_ids``: perturbed cases and their parents) as
    typed columns.

    Example:
        >>> outcomes = PrimaryOutcomes(linked_ids=set())
        >>> outcomes.add([{"case_id": "q1", "model": "m", "metric": "f1", "primary": True,
        ...                "passed": False}])
        >>> outcomes.fails.most_difficult()
        ('q1', 1, ['m'])
    """

    def __init__(self, linked_ids: set[str], *, sampled: bool = False) -> None:
        self.linked_ids = linked_ids
        self.sampled = sampled
        self.models: set[str] = set()
        #: the failing rows (case id, model): which case is the most difficult
        self.fails = _FailingRows()
        #: (model, evaluator, metric, sampled case) -> [samples judged, samples passing]
        self.samples: dict[tuple[str, str, str, str], list[int]] = {}
        self._linked = _LinkedRows(sorted(linked_ids))

    def add(self, rows: list[ResultRow]) -> None:
        """Take a batch of result rows (non-primary and unjudged rows are ignored)."""
        for row in rows:
            if not row["primary"] or row["passed"] is None:
                continue
            self.models.add(row["model"])
            if row["passed"] is False:
                self.fails.add(row["case_id"], row["model"])
            if row["case_id"] in self.linked_ids:
                self._linked.add(row)
            of = row.get("sample_of")
            if self.sampled and of is not None:
                key = (row["model"], row["evaluator"], row["metric"], of)
                tally = self.samples.setdefault(key, [0, 0])
                tally[0] += 1
                tally[1] += bool(row["passed"])

    def linked_frame(self) -> pd.DataFrame:
        """The kept rows of perturbed cases and their parents (texts as categories)."""
        return self._linked.frame()


def find_problems(
    leaderboard: Sequence[LeaderboardRow], outcomes: PrimaryOutcomes
) -> list[Finding]:
    """Problems from the leaderboard and the streamed primary-metric outcomes.

    Args:
        leaderboard: rows from :class:`~assay.analyze.leaderboard.LeaderboardBuilder`.
        outcomes: the run's judged primary-metric rows, collected by :class:`PrimaryOutcomes`.
    """
    problems: list[Finding] = []
    for row in leaderboard:
        if row["primary"] and row["passed"] is False:
            side = "below" if row["higher_is_better"] else "above"
            problems.append(
                {
                    "kind": "below_threshold",
                    "severity": "high",
                    "model": row["model"],
                    "evaluator": row["evaluator"],
                    "metric": row["metric"],
                    "message": (
                        f"Model {row['model'] or '(unnamed)'}: {row['metric']} "
                        f"{_fmt(row['value'])} is {side} the threshold {_fmt(row['threshold'])} "
                        f"({row['n_ok']} cases measured, {row['n_skipped']} skipped, "
                        f"{row['n_error']} errors)."
                    ),
                    "evidence": {k: row[k] for k in ("value", "threshold", "n_ok", "pass_rate")},
                }
            )
    problems.extend(_errors(leaderboard))
    problems.extend(_most_difficult_case(outcomes))
    problems.extend(_flips(outcomes.linked_frame()))
    problems.extend(_flaky(outcomes))
    return problems


def _flaky(outcomes: PrimaryOutcomes) -> list[Finding]:
    """One problem per repeated case whose primary verdict changes between its samples.

    Example:
        >>> outcomes = PrimaryOutcomes(set(), sampled=True)
        >>> outcomes.add([{"case_id": f"q#sample{j}", "model": "m", "evaluator": "e",
        ...                "metric": "f1", "primary": True, "passed": j != 2, "sample_of": "q"}
        ...               for j in (1, 2, 3)])
        >>> [(p["kind"], p["evidence"]) for p in _flaky(outcomes)]
        [('flaky_case', {'samples': 3, 'passing': 2, 'pass_share': 0.667})]
    """
    out: list[Finding] = []
    for (model, evaluator, metric, case_id), (n, n_pass) in sorted(outcomes.samples.items()):
        if 0 < n_pass < n:
            out.append(
                {
                    "kind": "flaky_case",
                    "severity": "medium",
                    "case_id": case_id,
                    "model": model,
                    "evaluator": evaluator,
                    "metric": metric,
                    "message": (
                        f"Model {model or '(unnamed)'}: {metric} passes on {n_pass} of {n} "
                        f"samples of case {case_id}: its verdict changes between samples."
                    ),
                    "evidence": {
                        "samples": n,
                        "passing": n_pass,
                        "pass_share": round(n_pass / n, 3),
                    },
                }
            )
    return out


def _errors(leaderboard: Sequence[LeaderboardRow]) -> list[Finding]:
    """One problem per (model, evaluator) whose primary metric errored on some cases.

    Example:
        >>> row = {"primary": True, "model": "m", "evaluator": "e", "metric": "x", "n_ok": 4,
        ...        "n_skipped": 0, "n_error": 10}
        >>> _errors([row])[0]["severity"], _errors([{**row, "n_error": 0}])
        ('high', [])
    """
    out: list[Finding] = []
    for row in leaderboard:
        if not row["primary"] or not row["n_error"]:
            continue
        total = row["n_ok"] + row["n_skipped"] + row["n_error"]
        out.append(
            {
                "kind": "evaluator_errors",
                "severity": "high" if row["n_error"] > 0.05 * total else "medium",
                "model": row["model"],
                "evaluator": row["evaluator"],
                "metric": row["metric"],
                "message": (
                    f"Model {row['model'] or '(unnamed)'}: {row['evaluator']} could not score "
                    f"{row['n_error']} of {total} cases (see the reasons in the results); "
                    "unmeasured cases are never counted as passes."
                ),
                "evidence": {k: row[k] for k in ("n_ok", "n_skipped", "n_error")},
            }
        )
    return out


def _most_difficult_case(outcomes: PrimaryOutcomes) -> list[Finding]:
    hardest = outcomes.fails.most_difficult()
    if hardest is None:
        return []
    case_id, n_fails, models = hardest
    n_models = len(outcomes.models)
    return [
        {
            "kind": "most_difficult_case",
            "severity": "medium",
            "case_id": case_id,
            "message": (
                f"Case {case_id} is the most difficult: {len(models)} of {n_models} models "
                f"fail it on {n_fails} primary metric checks."
            ),
            "evidence": {"failing_models": models, "failed_checks": n_fails},
        }
    ]


def parent_pairs(judged: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Each perturbed row (``parent_id`` set) beside its parent's row of the same model and
    metric — for a repeated sample, the parent's sample of the same index — with the parent's
    ``columns`` suffixed ``_parent``.

    Example:
        >>> frame = pd.DataFrame({"case_id": ["p#sample1", "c#sample1"], "model": "m",
        ...     "metric": "acc", "passed": [True, False], "parent_id": [None, "p"],
        ...     "sample_of": ["p", "c"], "sample": [1, 1]})
        >>> parent_pairs(frame, ["passed"])[["case_id", "passed", "passed_parent"]].values.tolist()
        [['c#sample1', False, True]]
    """
    is_child = judged["parent_id"].notna().to_numpy()
    if not is_child.any():
        return judged[is_child].assign(**{f"{c}_parent": [] for c in columns})
    ids = _id_codes(judged, ("case_id", "parent_id", "sample_of"))
    # a row's own unit: the case a sample samples, else the case itself
    own = np.where(ids["sample_of"] >= 0, ids["sample_of"], ids["case_id"])
    sample = (judged["sample"].fillna(-1).to_numpy(dtype=np.int64) if "sample" in judged
              else np.full(len(judged), -1, dtype=np.int64))  # fmt: skip
    keys = {"_own": own, "_sample": sample, "_model": pd.factorize(judged["model"])[0],
            "_metric": pd.factorize(judged["metric"])[0]}
    child_keys = {**{k: v[is_child] for k, v in keys.items()}, "_own": ids["parent_id"][is_child]}
    parent_of = _unique_match(list(keys.values()), list(child_keys.values()))
    if parent_of is None:  # a key held by several rows: each pairing, as a join gives them
        parents = pd.DataFrame({**keys, **{f"{c}_parent": judged[c].to_numpy() for c in columns}})
        return (judged[is_child].assign(**child_keys)
                .merge(parents, on=list(keys)).drop(columns=list(keys)))  # fmt: skip
    # A join of 10^6 perturbed rows copied every column twice and hashed four keys (+250 MB at
    # a million cases); with one row per key, each child row is looked up by one integer.
    found = parent_of >= 0
    return judged.iloc[np.flatnonzero(is_child)[found]].reset_index(drop=True).assign(
        **{f"{c}_parent": judged[c].to_numpy()[parent_of[found]] for c in columns}
    )


def _unique_match(rows: list[np.ndarray], wanted: list[np.ndarray]) -> np.ndarray | None:
    """For each key of ``wanted`` (parallel integer columns, each ≥ -1), the position of the one
    row of ``rows`` with the same key (-1: none); None when some key of ``rows`` is repeated.

    Example:
        >>> _unique_match([np.array([0, 1, 2])], [np.array([2, 5, 0])]).tolist()
        [2, -1, 0]
        >>> _unique_match([np.array([0, 0])], [np.array([0])]) is None
        True
    """
    dims = tuple(int(max(r.max(initial=-1), w.max(initial=-1))) + 2
                 for r, w in zip(rows, wanted, strict=True))  # fmt: skip
    if math.prod(dims) >= 2**63:
        return None  # not one int64 key per row (never at realistic sizes)
    row_keys = np.ravel_multi_index([r + 1 for r in rows], dims)
    wanted_keys = np.ravel_multi_index([w + 1 for w in wanted], dims)
    order = np.argsort(row_keys, kind="stable")
    ranked = row_keys[order]
    if len(ranked) > 1 and bool((ranked[1:] == ranked[:-1]).any()):
        return None
    if not len(ranked):
        return np.full(len(wanted_keys), -1, dtype=np.int64)
    at = np.searchsorted(ranked, wanted_keys).clip(max=len(ranked) - 1)
    return np.where(ranked[at] == wanted_keys, order[at], -1)


def _id_codes(frame: pd.DataFrame, names: Sequence[str]) -> dict[str, np.ndarray]:
    """Codes of the id columns ``names`` in one vocabulary (-1 where missing or absent), so that
    ids are matched as integers: the categories' own codes when every column is categorical
    over the same ids (:class:`_LinkedRows`), else one factorization of their texts.

    Example:
        >>> frame = pd.DataFrame({"case_id": ["a", "b"], "parent_id": [None, "a"]})
        >>> {k: v.tolist() for k, v in _id_codes(frame, ["case_id", "parent_id", "x"]).items()}
        {'case_id': [0, 1], 'parent_id': [-1, 0], 'x': [-1, -1]}
    """
    present = [n for n in names if n in frame]
    absent = {n: np.full(len(frame), -1, dtype=np.int64) for n in names if n not in frame}
    columns = [frame[n] for n in present]
    if all(isinstance(c.dtype, pd.CategoricalDtype) for c in columns) and all(
        c.cat.categories.equals(columns[0].cat.categories) for c in columns
    ):
        codes = [c.cat.codes.to_numpy(dtype=np.int64) for c in columns]
    else:
        texts = np.concatenate([c.astype(object).to_numpy() for c in columns])
        missing = pd.isna(texts)
        texts[~missing] = texts[~missing].astype(str)  # ids as texts, whatever their type
        codes = np.split(pd.factorize(texts)[0].astype(np.int64), len(present))
    return dict(zip(present, codes, strict=True)) | absent


def _flips(primary: pd.DataFrame) -> list[Finding]:
    judged = primary if primary["passed"].notna().all() else primary[primary["passed"].notna()]
    merged = parent_pairs(judged, ["value", "passed"])
    if merged.empty:
        return []
    flipped = merged[merged["passed"] != merged["passed_parent"]]
    for name in ("case_id", "parent_id", "model", "evaluator", "metric", "perturbation"):
        texts = flipped[name].astype(object)  # categories read back as texts, missing as None
        flipped = flipped.assign(**{name: texts.where(texts.notna(), None)})
    out: list[Finding] = []
    for row in flipped.itertuples(index=False):
        regression = bool(row.passed_parent) and not bool(row.passed)
        direction = "pass → fail" if regression else "fail → pass"
        out.append(
            {
                "kind": "perturbation_flip",
                "severity": "high" if regression else "low",
                "case_id": row.case_id,
                "parent_id": row.parent_id,
                "model": row.model,
                "evaluator": row.evaluator,
                "metric": row.metric,
                "perturbation": row.perturbation,
                "message": (
                    f"Model {row.model or '(unnamed)'}: {row.metric} flipped {direction} under "
                    f"perturbation {row.perturbation or '(unnamed)'} (case {row.case_id} vs parent "
                    f"{row.parent_id}: {_fmt(row.value)} vs {_fmt(row.value_parent)})."
                ),
                "evidence": {"value": row.value, "parent_value": row.value_parent},
            }
        )
    return out


def find_insights(
    leaderboard: Sequence[LeaderboardRow], usage: pd.DataFrame
) -> list[Finding]:
    """Insights: the best model per primary metric; fastest, slowest, cheapest, dearest model.

    Args:
        leaderboard: leaderboard rows.
        usage: one row per case with ``model``, ``latency_s`` and ``cost_usd`` (may hold nulls).
    """
    insights: list[Finding] = []
    by_metric: dict[str, list[LeaderboardRow]] = {}
    for row in leaderboard:
        if row["primary"] and row["value"] is not None:
            by_metric.setdefault(row["metric"], []).append(row)
    for metric, rows in by_metric.items():
        if len(rows) < 2:
            continue
        pick = max if rows[0]["higher_is_better"] else min
        best = pick(rows, key=lambda r: r["value"] or 0.0)  # never None: filtered above
        insights.append(
            {
                "kind": "best_model",
                "metric": metric,
                "evaluator": best["evaluator"],
                "model": best["model"],
                "message": f"{best['model'] or '(unnamed)'} is the best model on {metric} "
                f"({_fmt(best['value'])}).",
                "evidence": {r["model"]: r["value"] for r in rows},
            }
        )
    for column, unit, low_word, high_word in (
        ("latency_s", "s", "fastest", "slowest"),
        ("cost_usd", "USD", "cheapest", "most expensive"),
    ):
        if column not in usage or usage[column].notna().sum() == 0:
            continue
        means = usage.dropna(subset=[column]).groupby("model")[column].mean()
        if len(means) < 2:
            continue
        for kind, model in ((low_word, means.idxmin()), (high_word, means.idxmax())):
            insights.append(
                {
                    "kind": kind.replace(" ", "_") + "_model",
                    "model": model,
                    "message": f"{model or '(unnamed)'} is the {kind} model "
                    f"(mean {column} {means[model]:.4g} {unit}).",
                    "evidence": {str(k): float(v) for k, v in means.items()},
                }
            )
    return insights
