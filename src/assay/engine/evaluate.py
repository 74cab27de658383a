"""``assay.evaluate``: run evaluators over a suite, batch by batch, into a run directory."""

from __future__ import annotations

import logging
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd

from assay.analyze.findings import PrimaryOutcomes, find_insights, find_problems
from assay.analyze.judge_checks import JudgeOutputs
from assay.analyze.leaderboard import LeaderboardBuilder
from assay.data.case import TestCase
from assay.data.suite import TestSuite, read_suite, write_suite
from assay.engine.batching import batches
from assay.engine.executors import Executor, LocalExecutor, open_executor
from assay.engine.manifest import build_manifest, finish_manifest
from assay.engine.rows import ResultWriter, result_rows
from assay.engine.run import (
    CORPUS_DETAILS_FILE,
    INSIGHTS_FILE,
    LEADERBOARD_FILE,
    MANIFEST_FILE,
    PROBLEMS_FILE,
    RESULTS_CSV,
    RESULTS_FILE,
    SUITE_FILE,
    EvaluationRun,
)
from assay.errors import InvalidInputError
from assay.evaluators.base import CorpusAccumulator, CorpusDetails, Evaluator
from assay.evaluators.embedding_base import prefetch_embeddings
from assay.evaluators.registry import get_evaluator
from assay.fileio import write_json
from assay.params import check

logger = logging.getLogger(__name__)

#: progress(evaluator_name, cases_done, cases_total)
ProgressCallback = Callable[[str, int, int], None]
#: Name of the up-front embedding step in progress reports and the manifest's timings.
PREFETCH_STEP = "embeddings"


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


def _check_thresholds(thresholds: dict[str, float], evaluators: Sequence[Evaluator]) -> None:
    known = {m for e in evaluators for m in e.metric_names()}
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


class _RunDirectory:
    """A run directory written under a temporary name and renamed into place when complete."""

    def __init__(self, out: Path | None, overwrite: bool) -> None:
        self.final = out
        if out is not None:
            if out.exists() and not overwrite:
                raise InvalidInputError(
                    f"{out}: already exists (pass overwrite=True / --overwrite)"
                )
            out.parent.mkdir(parents=True, exist_ok=True)
            self.work = Path(tempfile.mkdtemp(prefix=f".{out.name}.partial-", dir=out.parent))
        else:
            self.work = Path(tempfile.mkdtemp(prefix="assay-run-"))

    def commit(self) -> Path | None:
        if self.final is None:
            return None
        if self.final.exists():
            shutil.rmtree(self.final)
        self.work.rename(self.final)
        return self.final

    def discard(self) -> None:
        shutil.rmtree(self.work, ignore_errors=True)


def evaluate(
    suite: TestSuite | Sequence[TestCase] | str | Path,
    evaluators: Iterable[str | Evaluator],
    *,
    params: dict[str, dict[str, Any]] | None = None,
    thresholds: dict[str, float] | None = None,
    out: str | Path | None = None,
    overwrite: bool = False,
    seed: int = 0,
    batch_size: int = 512,
    progress: ProgressCallback | None = None,
    calibrators: Sequence[str | Path | Any] | None = None,
    executor: str | Executor = "local",
    executor_options: dict[str, Any] | None = None,
) -> EvaluationRun:
    """Evaluate a suite with the given evaluators.

    Args:
        suite: a :class:`TestSuite`, a list of cases, or a path to a suite file.
        evaluators: registered names or evaluator instances.
        params: constructor parameters per evaluator name, used with names.
        thresholds: metric name → threshold, overriding the metric's default.
        out: run directory to write, with its reports (HTML, Markdown, ``analysis.json``);
            without it results are kept in memory only and no report is built (call
            :func:`assay.report.write_reports` to ask for one).
        overwrite: replace an existing run directory.
        seed: recorded in the manifest (evaluators that sample take their own ``seed`` parameter).
        batch_size: cases per evaluator batch; bounds memory on large suites.
        progress: called as ``progress(evaluator, done, total)`` after each batch.
        calibrators: calibrator files (or fitted :class:`assay.calibrate.Calibrator` objects);
            each adds the calibrated probability and prediction set of every case to
            ``calibrated.parquet`` / ``.csv``, and its file hash to the manifest.
        executor: where batches are evaluated: ``"local"`` (in-process, the default), ``"ray"``
            or an :class:`~assay.engine.executors.Executor`; the run directory is the same.
        executor_options: options of a named executor (e.g. ``{"address": "auto"}`` for Ray,
            see :class:`~assay.engine.executors.ray_executor.RayExecutor`).

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", actual_answer="Paris", expected_answer="paris")],
        ...                ["exact_match"])
        >>> run.leaderboard[0]["value"]
        1.0
    """
    if isinstance(suite, str | Path):
        suite = read_suite(suite)
    elif not isinstance(suite, TestSuite):
        suite = TestSuite(suite)
    check(
        isinstance(batch_size, int) and batch_size > 0,
        "batch_size",
        "evaluate",
        "a positive integer",
        batch_size,
    )
    chosen = resolve_evaluators(evaluators, params)
    thresholds = dict(thresholds or {})
    _check_thresholds(thresholds, chosen)
    loaded: list[Any] = []
    if calibrators:
        from assay.calibrate.apply import prepare_calibrators

        loaded = prepare_calibrators(calibrators, {m for e in chosen for m in e.metric_names()})

    started = datetime.now(UTC)
    run_dir = _RunDirectory(Path(out) if out is not None else None, overwrite)
    try:
        with open_executor(executor, **(executor_options or {})) as ex:
            run = _evaluate_into(
                suite, chosen, thresholds, seed, batch_size, progress, run_dir.work, started,
                loaded, ex, reports=out is not None,
            )  # fmt: skip
        final = run_dir.commit()
    except BaseException:
        run_dir.discard()
        raise
    if final is None:
        run.results  # noqa: B018 - load into memory before the temporary directory goes
        run_dir.discard()
    run.path = final
    return run


def _evaluate_into(
    suite: TestSuite,
    evaluators: list[Evaluator],
    thresholds: dict[str, float],
    seed: int,
    batch_size: int,
    progress: ProgressCallback | None,
    work: Path,
    started: datetime,
    calibrators: Sequence[Any] = (),
    executor: Executor | None = None,
    *,
    reports: bool = True,
) -> EvaluationRun:
    cases = suite.cases
    executor = executor or LocalExecutor()
    writer = ResultWriter(work / RESULTS_FILE, work / RESULTS_CSV)
    board = LeaderboardBuilder(evaluators, thresholds)
    perturbed = [c for c in cases if c.parent_id]
    outcomes = PrimaryOutcomes(
        linked_ids={c.id for c in perturbed} | {c.parent_id or "" for c in perturbed}
    )
    judged = {e.name for e in evaluators if e.family == "judge"}
    judge_outputs = JudgeOutputs(
        judged, {c.id: len((c.actual_answer or "").split()) for c in cases} if judged else {}
    )
    timings: dict[str, float] = {}
    corpus_details: dict[str, dict[str, Any]] = {}  # evaluator → model → details (small)
    try:
        if executor.name == "local":  # remote workers encode for themselves
            _prefetch(evaluators, cases, progress, timings)
        for evaluator in evaluators:
            t0 = time.perf_counter()
            accumulators: dict[str, CorpusAccumulator] = {}
            done = 0
            for _, batch, results in executor.map_batches(
                evaluator, batches(cases, evaluator, batch_size)
            ):
                rows = result_rows(evaluator, batch, results, thresholds)
                writer.write(rows)
                board.add(rows)
                outcomes.add(rows)
                judge_outputs.add(rows)
                _accumulate(evaluator, batch, results, accumulators)
                done += len(batch)
                if progress is not None:
                    progress(evaluator.name, done, len(cases))
            for model, accumulator in accumulators.items():
                for metric, value in accumulator.finish().items():
                    board.set_corpus(model, metric, value)
                if isinstance(accumulator, CorpusDetails):
                    corpus_details.setdefault(evaluator.name, {})[model] = accumulator.details()
            timings[evaluator.name] = round(time.perf_counter() - t0, 4)
    finally:
        writer.close()

    leaderboard = board.rows()
    usage = pd.DataFrame(
        {
            "model": [c.model or "" for c in cases],
            "latency_s": [c.latency_s for c in cases],
            "cost_usd": [c.cost_usd for c in cases],
        }
    )
    problems = find_problems(leaderboard, outcomes) + judge_outputs.problems()
    insights = find_insights(leaderboard, usage)
    write_json(work / LEADERBOARD_FILE, leaderboard)
    write_json(work / PROBLEMS_FILE, problems)
    write_json(work / INSIGHTS_FILE, insights)
    if corpus_details:
        write_json(work / CORPUS_DETAILS_FILE, corpus_details)
    suite_info = {
        "path": suite.source,
        "sha256": suite.sha256,
        "n_cases": len(cases),
        "models": suite.models,
    }
    manifest = build_manifest(  # before the reports, which show its run details
        suite_info=suite_info,
        evaluators=[e.spec() for e in evaluators],
        thresholds=thresholds,
        seed=seed,
        timings=timings,
        started=started,
        extra={
            "executor": executor.describe(),
            **({"calibrators": [c.info() for c in calibrators]} if calibrators else {}),
        },
    )
    run = EvaluationRun(
        manifest=manifest,
        leaderboard=leaderboard,
        problems=problems,
        insights=insights,
        path=work,
        corpus_details=corpus_details,
    )
    write_suite(suite, work / SUITE_FILE)  # the case texts, so reports need no original file
    report_files: list[Path] = []
    if reports:  # without a run directory they would go with the temporary one: no report work
        from assay.report import write_reports

        report_files = write_reports(run, work)
    calibrated_files: list[Path] = []
    if calibrators:
        from assay.calibrate.apply import write_calibrated

        calibrated_files = write_calibrated(work, pd.read_parquet(work / RESULTS_FILE), calibrators)
    data_files = [
        RESULTS_FILE,
        RESULTS_CSV,
        LEADERBOARD_FILE,
        PROBLEMS_FILE,
        INSIGHTS_FILE,
        *([CORPUS_DETAILS_FILE] if corpus_details else []),
        SUITE_FILE,
    ]
    finish_manifest(manifest, [work / n for n in data_files] + report_files + calibrated_files)
    write_json(work / MANIFEST_FILE, run.manifest)  # written last: marks the run complete
    return run


def _prefetch(
    evaluators: Sequence[Evaluator],
    cases: Sequence[TestCase],
    progress: ProgressCallback | None,
    timings: dict[str, float],
) -> None:
    """Encode the run's texts up front (design note 0004). Only an optimisation: when it fails
    (a model that cannot load, a backend error), the evaluators meet the same problem batch by
    batch and report it as ``error`` outcomes with the reason, so the run goes on."""
    t0 = time.perf_counter()
    report = None if progress is None else partial(progress, PREFETCH_STEP)
    try:
        encoded = prefetch_embeddings(evaluators, cases, progress=report)
    except Exception as exc:
        logger.warning("embedding prefetch failed, evaluators will encode on demand: %s", exc)
        return
    if encoded:
        timings[PREFETCH_STEP] = round(time.perf_counter() - t0, 4)


def _accumulate(
    evaluator: Evaluator,
    batch: Sequence[TestCase],
    results: Sequence[Any],
    accumulators: dict[str, CorpusAccumulator],
) -> None:
    if not any(m.aggregation == "corpus" for m in evaluator.metrics):
        return
    by_model: dict[str, tuple[list[TestCase], list[Any]]] = {}
    for case, result in zip(batch, results, strict=True):
        cases, res = by_model.setdefault(case.model or "", ([], []))
        cases.append(case)
        res.append(result)
    for model, (cases, res) in by_model.items():
        if model not in accumulators:
            accumulator = evaluator.corpus_accumulator()
            if accumulator is None:
                return
            accumulators[model] = accumulator
        accumulators[model].add(cases, res)
