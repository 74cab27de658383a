"""Data for the report's per-case drill-down, read from a run directory.

The drill-down joins the long results table with the evaluated cases (the suite copy in the run
directory) into one entry per case × model: texts, every metric outcome, explanations and
the evaluators' ``details`` evidence. Large runs are capped, failing and errored cases first.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa

from assay.evaluators.batch import without_cyclic_gc
from assay.memory import release_memory
from assay.report.case_choice import SELECTION_COLUMNS, choose_cases
from assay.report.case_texts import read_cases
from assay.report.dialogue_view import conversation_view, linked_turn_verdicts, trajectory_view
from assay.rundir.results import frame_batches, rows_of

if TYPE_CHECKING:
    from assay.safety.masking import Redactor


#: Drill-down entries embedded in one report at most (failing and errored cases first).
MAX_CASES = 3000
#: Bytes of drill-down data (its JSON as the page embeds it) one report holds at most: with the
#: rest of the page (~0.5 MB of tables and drawings, bounded by slices, not cases) the report stays
#: below 5 MB whatever the suite size; every case stays in the run's results.parquet.
MAX_BYTES = 4_000_000
#: Characters of any one text embedded in the report at most.
MAX_TEXT = 20_000
#: The keys of one metric's outcome in a drill-down entry.
_METRIC_KEYS = (
    "evaluator",
    "metric",
    "primary",
    "status",
    "value",
    "passed",
    "threshold",
    "reason",
)
#: The result-table columns the drill-down reads.
_ROW_KEYS = (
    "case_id",
    "model",
    *_METRIC_KEYS,
    "explanation",
    "details",
    "topic",
    "query_type",
    "perturbation",
    "parent_id",
)
__all__ = ["SELECTION_COLUMNS", "drilldown", "masked_explainers", "run_drilldown", "within"]


def _clip(text: Any, limit: int = MAX_TEXT) -> Any:
    if isinstance(text, str) and len(text) > limit:
        return text[:limit] + f" … [{len(text) - limit:,} more characters]"
    return text


def _clip_kept(text: Any) -> Any:
    """:func:`_clip`, a masked text staying marked as masked."""
    from assay.safety.masking import Scrubbed

    clipped = _clip(text)
    return Scrubbed(clipped) if isinstance(text, Scrubbed) and clipped is not text else clipped


def _redacted(masked: Redactor, text: Any, limit: int = MAX_TEXT) -> Any:
    """:func:`_clip` after masking PII and secrets (the mask keeps the text's length)."""
    from assay.safety.masking import Scrubbed

    return Scrubbed(_clip(masked.text(text), limit)) if isinstance(text, str) else text


def _column(series: pd.Series) -> list[Any]:
    """A column as Python values, missing and non-finite values as None (one vectorised pass
    per column instead of a check per cell)."""
    missing = series.isna().to_numpy().copy()
    if pd.api.types.is_float_dtype(series.dtype):
        missing |= ~np.isfinite(series.to_numpy(dtype=float, na_value=np.nan))
    values = series.astype(object).tolist()
    gone = np.flatnonzero(missing)
    if len(gone) == len(values):
        return [None] * len(values)
    for i in gone.tolist():
        values[i] = None
    return values


def _masked_column(values: list[Any], masked: Redactor) -> list[Any]:
    """``masked(value)`` of each value: each distinct text scanned once (a column of result
    rows repeats few), numbers and flags kept (see :func:`assay.safety.masking.redact`)."""
    lookup = {v: masked(v) for v in set(values) if type(v) not in _PLAIN}
    if all(lookup[v] == v for v in lookup):
        return values
    return [lookup.get(v, v) if type(v) not in _PLAIN else v for v in values]


#: Value types a redaction keeps as they are.
_PLAIN = frozenset({int, float, bool, type(None)})


@without_cyclic_gc()  # ~10^5 dicts and lists, no cycles: collections would only rescan them
def drilldown(
    results: pd.DataFrame,
    cases: dict[tuple[str, str], dict[str, Any]],
    *,
    max_cases: int = MAX_CASES,
    max_bytes: int | None = None,
    redact: bool = False,
    masked_by: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """One entry per case × model with texts, outcomes and evidence.

    With ``redact`` every text of the output is masked (PII and secrets), as in every other
    output: reports are shared. The case texts (question, expected answer, answer, retrieved
    context, turns, trajectory steps) are masked once each, the result rows' texts once per
    distinct text, and nothing needs to walk the output again; the explanations of the
    evaluators named in ``masked_by`` are shown as they are (they were masked when written,
    see :func:`masked_explainers`). A conversation's turns and an agent trajectory's steps are
    bounded (see :mod:`assay.report.dialogue_view`).

    Returns:
        ``{"entries": [...], "total": n, "shown": k, "max_bytes": b}``; entries are ordered
        failing first and, with a ``max_bytes`` budget (the report's), kept while their JSON
        fits in it (see :func:`within`); without one (the labelling queue) all are kept.

    Example:
        >>> frame = pd.DataFrame({"case_id": ["1"], "model": ["m"], "evaluator": ["e"],
        ...     "metric": ["x"], "primary": [True], "status": ["ok"], "value": [0.2],
        ...     "passed": [False], "threshold": [0.5], "reason": [None], "explanation": ["low"],
        ...     "details": ['{"least_grounded_sentence": "b"}'], "topic": [None],
        ...     "query_type": [None], "perturbation": [None], "parent_id": [None]})
        >>> out = drilldown(frame, {("1", "m"): {"question": "q?", "actual_answer": "a. b."}})
        >>> entry = out["entries"][0]
        >>> entry["answer"], entry["n_fail"], entry["evidence"][0]["details"]
        ('a. b.', 1, {'least_grounded_sentence': 'b'})
    """
    from assay.safety.masking import Redactor, Scrubbed

    total, results = _select(results, max_cases)
    masked = Redactor() if redact else None
    text: Callable[..., Any] = partial(_redacted, masked) if masked is not None else _clip
    # Column by column (no dict per row): the metric outcomes are the bulk of a large report.
    missing = [None] * len(results)
    column = {k: _column(results[k]) if k in results else missing for k in _ROW_KEYS}
    metrics = [dict(zip(_METRIC_KEYS, v, strict=True))
               for v in zip(*(column[k] for k in _METRIC_KEYS), strict=True)]
    shown = metrics
    if masked is not None:
        outcomes = [_masked_column(column[k], masked) for k in _METRIC_KEYS]
        if any(m is not column[k] for m, k in zip(outcomes, _METRIC_KEYS, strict=True)):
            shown = [dict(zip(_METRIC_KEYS, v, strict=True)) for v in zip(*outcomes, strict=True)]
    positions: dict[tuple[str, str], list[int]] = {}
    ids = zip(map(str, column["case_id"]), map(str, column["model"]), strict=True)
    for i, key in enumerate(ids):
        positions.setdefault(key, []).append(i)
    linked = linked_turn_verdicts(
        {key: [metrics[i] for i in rows] for key, rows in positions.items()}, cases, text
    )
    counts = dict(zip(positions, _outcome_counts(column, positions), strict=True))
    explanation, details = column["explanation"], column["details"]
    shows = [bool(p and (e or d)) for p, e, d in zip(column["primary"], explanation, details,
                                                    strict=True)]
    if masked is not None and masked_by:
        explanation = [Scrubbed(e) if isinstance(e, str) and name in masked_by else e
                       for e, name in zip(explanation, column["evaluator"], strict=True)]
    # The report's order (most failures and errors first, then model and case id: total, the
    # keys being unique) is known from the counts: entries are built in it, and with a byte
    # budget only until it is spent (at most 3,000 entries were built to keep a few hundred).
    ordered = sorted(counts, key=lambda key: (-(counts[key]["n_fail"] + counts[key]["n_error"]),
                                              key[1], key[0]))

    def built() -> Iterator[dict[str, Any]]:
        for case_id, model in ordered:
            yield entry_of(case_id, model, positions[(case_id, model)])

    def entry_of(case_id: str, model: str, rows: list[int]) -> dict[str, Any]:
        case = cases.get((case_id, model), {})
        evidence = [
            {
                "evaluator": column["evaluator"][i],
                "metric": column["metric"][i],
                "explanation": _clip_kept(explanation[i]),
                "details": _details(details[i]),
            }
            for i in rows
            if shows[i]
        ]
        first = rows[0]
        entry = {
            "case_id": str(case_id),
            "model": str(model),
            "topic": column["topic"][first],
            "query_type": column["query_type"][first],
            "perturbation": column["perturbation"][first],
            "parent_id": column["parent_id"][first],
            "question": text(case.get("question")),
            "expected": text(case.get("expected_answer")),
            "answer": text(_shown_answer(case)),
            "context": [text(c) for c in (case.get("retrieved_context") or [])[:50]],
            "context_ids": (case.get("context_ids") or [])[:50],
            "scenario": text(case.get("scenario")),
            "expected_outcome": text(case.get("expected_outcome")),
            "conversation": conversation_view(
                case.get("turns"), evidence, text, linked.get((case_id, model))
            ),
            "trajectory": trajectory_view(case.get("trajectory"), evidence, text),
            "metrics": None,  # below: the outcomes are masked column by column
            "evidence": evidence,
            **counts[(case_id, model)],
        }
        if masked is not None:  # the few values not masked yet (case texts are Scrubbed)
            entry = {k: masked.walk(v) for k, v in entry.items()}  # (the keys are ours)
        entry["metrics"] = [shown[i] for i in rows]
        return entry

    kept = within(built(), max_bytes) if max_bytes is not None else list(built())
    return {"entries": kept, "total": total, "shown": len(kept), "max_bytes": max_bytes}


def within(entries: Iterable[dict[str, Any]], max_bytes: int) -> list[dict[str, Any]]:
    """The leading ``entries`` whose JSON, as the page embeds it, fits in ``max_bytes``.

    The size is that of ``json.dumps`` (ASCII, as Jinja's ``tojson`` writes it) plus the five
    extra bytes of each character ``tojson`` escapes for HTML (``< > & '``).

    Example:
        >>> [e["i"] for e in within([{"i": 1}, {"i": 2}, {"i": 3}], 20)]
        [1, 2]
    """
    kept, used = [], 0
    for entry in entries:
        text = json.dumps(entry, sort_keys=True, default=str)
        used += len(text) + 2 + 5 * sum(text.count(c) for c in "<>&'")  # ", " between entries
        if used > max_bytes:
            break
        kept.append(entry)
    return kept


def _outcome_counts(
    column: dict[str, list[Any]], positions: dict[tuple[str, str], list[int]]
) -> Iterator[dict[str, int]]:
    """``n_fail``, ``n_error`` and ``n_skipped`` of each entry of ``positions`` (in its order),
    counted over the rows' columns at once."""
    group = np.empty(len(column["status"]), dtype=np.intp)
    for g, rows in enumerate(positions.values()):
        group[rows] = g
    status = np.array(column["status"], dtype=object)
    flags = {
        "n_fail": np.array([p is False for p in column["passed"]], dtype=bool),
        "n_error": status == "error",
        "n_skipped": status == "skipped",
    }
    counted = {k: np.bincount(group[f], minlength=len(positions)).tolist()
               for k, f in flags.items()}
    for g in range(len(positions)):
        yield {k: n[g] for k, n in counted.items()}


def run_drilldown(
    results: pd.DataFrame | Iterable[pa.RecordBatch],
    directory: Path,
    *,
    max_cases: int = MAX_CASES,
    max_bytes: int = MAX_BYTES,
    full_rows: Callable[[set[tuple[str, str]]], pd.DataFrame] | None = None,
    redact: bool = True,
    masked_by: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """:func:`drilldown` of a run directory, reading only the cases it will show (redacted: it
    feeds the shared reports).

    ``results`` is the results table, or record batches of its :data:`SELECTION_COLUMNS` (e.g.
    :meth:`~assay.rundir.run.EvaluationRun.result_batches`: the shown cases are chosen batch by
    batch, see :mod:`assay.report.case_choice`); the chosen cases' complete rows are then read
    through ``full_rows(keys)`` (default: taken from the ``results`` table).

    Example:
        >>> import tempfile
        >>> frame = pd.DataFrame(columns=["case_id", "model", "status", "passed"])
        >>> run_drilldown(frame, Path(tempfile.mkdtemp()))["total"]
        0
    """
    if isinstance(results, pd.DataFrame):
        frame = results
        results = frame_batches(frame, list(SELECTION_COLUMNS))
        full_rows = full_rows or partial(rows_of, frame)
    if full_rows is None:
        raise TypeError("run_drilldown: record batches need full_rows to read the chosen cases")
    choice = choose_cases(results, max_cases)
    release_memory()  # the tally's pages (Arrow's pool keeps them), before the rows are read
    out = drilldown(full_rows(choice.keys), read_cases(directory, choice.keys),
                    max_cases=max_cases, max_bytes=max_bytes, redact=redact, masked_by=masked_by)
    out["total"] = choice.total
    return out


def masked_explainers(manifest: Mapping[str, Any]) -> frozenset[str]:
    """The evaluators of a run whose explanations were masked when written
    (:attr:`~assay.evaluators.base.Evaluator.explanations_masked`): registered under their name
    and the run written by this very version of assay (an older one may not have masked them).

    Example:
        >>> from assay import __version__
        >>> sorted(masked_explainers({"assay_version": __version__, "evaluators": [
        ...     {"name": "rouge"}, {"name": "token_f1"}, {"name": "not-registered"}]}))
        ['rouge']
        >>> masked_explainers({"assay_version": "0.0.1", "evaluators": [{"name": "rouge"}]})
        frozenset()
    """
    from assay._version import __version__
    from assay.errors import AssayError
    from assay.evaluators.registry import evaluator_class

    if manifest.get("assay_version") != __version__:
        return frozenset()
    names = set()
    for spec in manifest.get("evaluators") or []:
        try:
            if evaluator_class(str(spec.get("name"))).explanations_masked:
                names.add(str(spec["name"]))
        except (AssayError, KeyError):
            continue  # not registered here: its explanations are scanned
    return frozenset(names)


def _select(results: pd.DataFrame, max_cases: int) -> tuple[int, pd.DataFrame]:
    """The number of case × model entries, and the rows of the ``max_cases`` shown (most failures
    and errors first, :func:`~assay.report.case_choice.choose_cases`)."""
    choice = choose_cases(frame_batches(results, list(SELECTION_COLUMNS)), max_cases)
    return choice.total, results if choice.all else rows_of(results, choice.keys)


def _details(raw: Any) -> Any:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return _clip(str(raw))
    value = finite(value)
    # Written back, the JSON is at most 4.5x the stored text (strings never grow; a separator
    # gains a space; ``1e15`` becomes 1000000000000000.0): only a long one can be oversized.
    if len(raw) * 5 > 4 * MAX_TEXT:
        text = json.dumps(value, ensure_ascii=False, default=str)
        if len(text) > 4 * MAX_TEXT:  # oversized evidence: keep it readable and bounded
            return {"truncated": True, "preview": text[: 4 * MAX_TEXT]}
    return value


def finite(value: Any) -> Any:
    """Replace NaN and infinities (valid in Python's JSON, not in a browser's) by None.

    Example:
        >>> finite({"a": [float("nan"), 1.5], 2: float("inf")})
        {'a': [None, 1.5], '2': None}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): finite(v) for k, v in value.items()}
    if isinstance(value, list):  # (numbers, e.g. BLEU's n-gram counts, without a call each)
        return [finite(v) if type(v) in _NESTED else v for v in value]
    return value


#: What :func:`finite` must look into: the rest of a JSON value is kept as it is.
_NESTED = frozenset({float, dict, list})


def _shown_answer(case: Mapping[str, Any]) -> Any:
    """The case's answer; for an agent case recorded without one, its trajectory's final answer
    (shown as "(no answer)" before, though the agent had answered)."""
    answer = case.get("actual_answer")
    trajectory = case.get("trajectory")
    if not answer and isinstance(trajectory, Mapping):
        return trajectory.get("final_answer")
    return answer
