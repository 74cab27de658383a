"""Scoring: run evaluators over a suite, batch by batch, streaming result rows to sinks.

The engine only scores. Where the rows go (the run directory's results table, the leaderboard,
the findings) is decided by :mod:`assay.pipeline`, which passes them in as sinks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from assay.data.case import TestCase
from assay.engine.batching import batches
from assay.engine.executors import Executor
from assay.engine.rows import result_rows
from assay.errors import InvalidInputError
from assay.evaluators.base import (
    CorpusAccumulator,
    CorpusDetails,
    Evaluator,
    Prefetch,
    ResultBatch,
)
from assay.evaluators.registry import get_evaluator
from assay.params import check
from assay.progress import ProgressCallback
from assay.rundir.records import ResultRow

logger = logging.getLogger(__name__)

#: Receives each batch's result rows (a results writer, a leaderboard builder, ...).
RowSink = Callable[[list[ResultRow]], None]


def resolve_evaluators(
    evaluators: Iterable[str | Evaluator], params: dict[str, dict[str, Any]] | None = None
) -> list[Evaluator]:
    """Turn names (with optional ``params[name]``) and instances into evaluator instances."""
    params = params or {}
    out: list[Evaluator] = []
    for item in evaluators:
        out.append(get_evaluator(item, **params.get(item, {})) if isinstance(item, str) else item)
    names = [e.name for e in out]
    duplicates = {n for n in names if names.count(n) > 1}
    check(
        not duplicates,
        "evaluators",
        "evaluate",
        "a list without repeated names",
        sorted(duplicates),
    )
    check(bool(out), "evaluators", "evaluate", "a non-empty list of evaluators", [])
    return out


def check_thresholds(thresholds: dict[str, float], evaluators: Sequence[Evaluator]) -> None:
    """Refuse a threshold for a metric no selected evaluator reports, a non-number, or one
    outside the metric's declared range (``-1`` on a rate would pass every case)."""
    specs = {m.name: m for e in evaluators for m in e.metrics}
    known = set(specs)
    for metric, value in thresholds.items():
        if metric not in known:
            raise InvalidInputError(
                f"Threshold given for unknown metric {metric!r}; the selected evaluators report: "
                f"{', '.join(sorted(known))}"
            )
        check(
            isinstance(value, int | float),
            "thresholds",
            "evaluate",
            "a mapping of metric name to number",
            {metric: value},
        )
        low, high = specs[metric].range
        if not low <= value <= high:
            raise InvalidInputError(
                f"Threshold {value:g} for {metric!r} is outside the metric's range "
                f"[{low:g}, {high:g}]"
            )


@dataclass
class Scored:
    """What scoring yields besides the streamed rows."""

    #: step or evaluator name → seconds.
    timings: dict[str, float] = field(default_factory=dict)
    #: (model, metric) → corpus-level value of ``corpus`` metrics.
    corpus_values: dict[tuple[str, str], float | None] = field(default_factory=dict)
    #: evaluator → model → corpus-level details (small).
    corpus_details: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: (evaluator, model, metric) → why a corpus metric has no value (None: no reason given).
    corpus_not_computed: dict[tuple[str, str, str], str | None] = field(default_factory=dict)


def score(
    chunks: Iterable[Sequence[TestCase]],
    evaluators: Sequence[Evaluator],
    *,
    n_cases: int,
    thresholds: dict[str, float],
    sinks: Sequence[RowSink],
    executor: Executor,
    batch_size: int = 512,
    progress: ProgressCallback | None = None,
) -> Scored:
    """Score the cases of each chunk with every evaluator, batch by batch, handing every batch's
    rows to each sink.

    Chunks come one at a time (a suite streamed from its file is never held whole): each is
    scored by every evaluator in turn, so its result rows are grouped by evaluator within the
    chunk. Before a chunk is scored (on the local executor: remote workers do their own), the
    :class:`~assay.evaluators.base.Prefetch` steps the evaluators declare run on it.

    Args:
        chunks: the cases, in chunks; a grouped evaluator's groups must not span two chunks.
        evaluators: the evaluators.
        n_cases: cases in all the chunks (the ``total`` of ``progress``).
        thresholds: metric → threshold overriding the metric's default.
        sinks: callables receiving each batch's result rows.
        executor: where batches are evaluated.
        batch_size: cases per evaluator batch.
        progress: called as ``progress(evaluator, done, n_cases)`` after each batch.
    """
    scored = Scored()
    names = [e.name for e in evaluators]
    accumulators: dict[str, dict[str, CorpusAccumulator]] = {name: {} for name in names}
    done = dict.fromkeys(names, 0)
    seconds = dict.fromkeys(names, 0.0)
    for chunk in chunks:
        if executor.name == "local":
            prefetch(evaluators, chunk, progress, scored.timings)
        for evaluator in evaluators:
            t0 = time.perf_counter()
            for _, batch, results in executor.map_batches(
                evaluator, batches(chunk, evaluator, batch_size)
            ):
                rows = result_rows(evaluator, batch, results, thresholds)
                for sink in sinks:
                    sink(rows)
                _accumulate(evaluator, batch, results, accumulators[evaluator.name])
                done[evaluator.name] += len(batch)
                if progress is not None:
                    progress(evaluator.name, done[evaluator.name], n_cases)
            seconds[evaluator.name] += time.perf_counter() - t0
    for evaluator in evaluators:
        for model, accumulator in accumulators[evaluator.name].items():
            for metric, value in accumulator.finish().items():
                scored.corpus_values[(model, metric)] = value
                if value is None:
                    scored.corpus_not_computed[(evaluator.name, model, metric)] = getattr(
                        accumulator, "not_computed_reason", None)
            if isinstance(accumulator, CorpusDetails):
                scored.corpus_details.setdefault(evaluator.name, {})[model] = accumulator.details()
        scored.timings[evaluator.name] = round(seconds[evaluator.name], 4)
    return scored


def prefetch(
    evaluators: Sequence[Evaluator],
    cases: Sequence[TestCase],
    progress: ProgressCallback | None,
    timings: dict[str, float],
) -> None:
    """Run each distinct prefetch step the evaluators declare, once, with its evaluators.

    Only an optimisation: when a step fails (a model that cannot load, a backend error), the
    evaluators meet the same problem batch by batch and report it as ``error`` outcomes with
    the reason, so the run goes on.
    """
    groups: dict[Prefetch, list[Evaluator]] = {}
    for evaluator in evaluators:
        step = evaluator.prefetch()
        if step is not None:
            groups.setdefault(step, []).append(evaluator)
    for step, group in groups.items():
        t0 = time.perf_counter()
        report = None if progress is None else partial(progress, step.name)
        try:
            done = step.run(group, cases, progress=report)
        except Exception as exc:
            logger.warning("%s prefetch failed, evaluators will work on demand: %s", step.name, exc)
            continue
        if done:  # summed over the chunks of a run
            timings[step.name] = round(
                timings.get(step.name, 0.0) + time.perf_counter() - t0, 4
            )


def _accumulate(
    evaluator: Evaluator,
    batch: Sequence[TestCase],
    results: ResultBatch,
    accumulators: dict[str, CorpusAccumulator],
) -> None:
    if not any(m.aggregation == "corpus" for m in evaluator.metrics):
        return
    by_model: dict[str, list[int]] = {}
    for index, case in enumerate(batch):
        by_model.setdefault(case.model or "", []).append(index)
    for model, positions in by_model.items():
        if model not in accumulators:
            accumulator = evaluator.corpus_accumulator()
            if accumulator is None:
                return
            accumulators[model] = accumulator
        accumulators[model].add([batch[i] for i in positions], results.take(positions))
