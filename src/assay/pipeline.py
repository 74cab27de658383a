"""``assay.evaluate``: the pipeline score → analyse → report → calibrate → seal.

Each stage is owned elsewhere: :mod:`assay.engine` scores, :mod:`assay.analyze` builds the
leaderboard and findings, :mod:`assay.report` renders, :mod:`assay.calibrate` applies
calibrators, and :mod:`assay.rundir` owns every file and the atomic commit. This module only
composes them, so no lower layer imports a higher one.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.analyze.evaluator_problems import EvaluatorProblems
from assay.analyze.findings import PrimaryOutcomes, find_insights, find_problems
from assay.analyze.judge_checks import JudgeOutputs
from assay.analyze.leaderboard import LeaderboardBuilder
from assay.data.case import TestCase
from assay.data.samples import repeat_cases
from assay.data.suite import TestSuite, read_suite
from assay.engine.executors import Executor, open_executor
from assay.engine.score import ProgressCallback, check_thresholds, resolve_evaluators, score
from assay.evaluators.base import Evaluator
from assay.memory import release_memory
from assay.params import check_int
from assay.rundir.directory import RunDirectory
from assay.rundir.layout import SUITE_FILE
from assay.rundir.manifest import build_manifest
from assay.rundir.records import Finding
from assay.rundir.results import ResultWriter, read_results
from assay.rundir.run import EvaluationRun
from assay.rundir.store import seal, write_tables
from assay.rundir.suite_copy import stage_suite
from assay.safety.masking import redact, redact_each
from assay.verdict.case_table import CaseTable

__all__ = ["ProgressCallback", "evaluate"]

#: Cases staged and scored per chunk (scoring rounds it to whole batches): what evaluation holds
#: of a streamed suite.
SCORING_CHUNK = 8192


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
    judge_probes: int = 0,
    judge_repeats: int = 1,
) -> EvaluationRun:
    """Evaluate a suite with the given evaluators.

    A suite file is streamed: validated and copied into the run directory in one pass, then
    scored chunk by chunk, so memory does not grow with the suite (unless an evaluator needs
    groups of cases whole, e.g. ``perturbation_robustness``: the suite is then read whole).

    Args:
        suite: a :class:`TestSuite`, a list of cases, or a path to a suite file (every invalid
            row is reported in one :class:`~assay.errors.InvalidInputError` before scoring).
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
        judge_probes: probe each judge evaluator for verbosity and context-order bias on up to
            this many cases (:mod:`assay.analyze.judge_probes`; extra judge calls); the
            results are problems or insights of the run. 0 (the default) probes nothing.
        judge_repeats: ask each judge this many times per case, to show a sampling judge's
            non-determinism: every case becomes that many linked samples
            (:func:`~assay.data.samples.repeat_cases`, read whole), each judged afresh (a cache
            entry and seed of its own), and the analysis reports their spread and the cases
            whose verdict flips as for ``assay run --repeats`` (docs/judge.md). Evaluators
            without a judge score each sample too, with the same values. 1 (the default) changes
            nothing.

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", actual_answer="Paris", expected_answer="paris")],
        ...                ["exact_match"])
        >>> run.leaderboard[0]["value"]
        1.0
    """
    if not isinstance(suite, str | Path | TestSuite):
        suite = TestSuite(suite)
    check_int(batch_size, "batch_size", "evaluate")
    check_int(judge_probes, "judge_probes", "evaluate", minimum=0)
    if judge_repeats != 1:
        suite = _judge_samples(suite, judge_repeats)
    chosen = resolve_evaluators(evaluators, params)
    thresholds = dict(thresholds or {})
    check_thresholds(thresholds, chosen)
    loaded: list[Any] = []
    if calibrators:
        from assay.calibrate.apply import prepare_calibrators

        loaded = prepare_calibrators(calibrators, {m for e in chosen for m in e.metric_names()})

    started = datetime.now(UTC)
    run_dir = RunDirectory(Path(out) if out is not None else None, overwrite)  # checks, locks
    with run_dir.writing() as work:
        with open_executor(executor, **(executor_options or {})) as ex:
            run = _run_pipeline(
                suite, chosen, thresholds, seed, batch_size, progress, work, started,
                loaded, ex, reports=out is not None, judge_probes=judge_probes,
                judge_repeats=judge_repeats,
            )  # fmt: skip
        final = run_dir.commit()
    if final is None:
        run.results  # noqa: B018 - load into memory before the temporary directory goes
        run_dir.discard()
    run.path = final
    return run


def _judge_samples(suite: TestSuite | str | Path, repeats: int) -> TestSuite:
    """Each case of ``suite`` as ``repeats`` linked samples (``evaluate(judge_repeats=...)``)."""
    check_int(repeats, "judge_repeats", "evaluate")
    cases = suite if isinstance(suite, TestSuite) else read_suite(suite)
    return TestSuite(repeat_cases(list(cases), repeats), source=cases.source, sha256=cases.sha256)


def _probe_judges(evaluators: list[Evaluator], chunks: Iterable[Sequence[TestCase]], n: int,
                  seed: int) -> tuple[list[Finding], list[Finding]]:
    """The judge bias probes' problems and insights (none when ``n`` is 0 or no judge runs)."""
    if not n or not any(e.family == "judge" for e in evaluators):
        return [], []
    from assay.analyze.judge_probes import probe_findings, probe_judges, probe_sample

    return probe_findings(probe_judges(evaluators, probe_sample(chunks, n, seed), n, seed))


def _keyed(chunks: Iterable[Sequence[TestCase]], keys: CaseTable) -> Iterator[Sequence[TestCase]]:
    """``chunks``, each added to ``keys`` as it passes (as their case keys: what deciding the run
    reads of each case, gathered while scoring reads the suite instead of reading it again)."""
    from assay.verdict.implicit import case_key

    for chunk in chunks:
        keys.add(case_key(case) for case in chunk)
        yield chunk


def _run_pipeline(
    suite: TestSuite | str | Path,
    evaluators: list[Evaluator],
    thresholds: dict[str, float],
    seed: int,
    batch_size: int,
    progress: ProgressCallback | None,
    work: Path,
    started: datetime,
    calibrators: Sequence[Any],
    executor: Executor,
    *,
    reports: bool = True,
    judge_probes: int = 0,
    judge_repeats: int = 1,
) -> EvaluationRun:
    judged = {e.name for e in evaluators if e.family == "judge"}
    files: list[Path] = []
    clock = time.perf_counter()
    staged = stage_suite(suite, work, count_words=bool(judged), chunk_size=SCORING_CHUNK)
    stages = {"staging": time.perf_counter() - clock}
    clock = time.perf_counter()
    index = staged.index
    # -- score: rows stream to the results table and to the analysis builders
    writer = ResultWriter.in_directory(work)
    board = LeaderboardBuilder(evaluators, thresholds)
    outcomes = PrimaryOutcomes(  # perturbed cases and their parents (each sample of them)
        linked_ids=index.linked_ids(), sampled=index.sampled
    )
    judge_outputs = JudgeOutputs(judged, index.answer_words)
    reported = EvaluatorProblems()
    # Whole chunks of batches; a grouped evaluator needs its groups whole: one chunk.
    per_chunk = batch_size * max(1, SCORING_CHUNK // batch_size)
    if any(e.grouped for e in evaluators):
        per_chunk = max(len(staged), 1)
    keys = CaseTable()
    try:
        scored = score(
            _keyed(staged.chunks(per_chunk), keys),
            evaluators,
            n_cases=len(staged),
            thresholds=thresholds,
            sinks=[writer.write, board.add, outcomes.add, judge_outputs.add, reported.add],
            executor=executor,
            batch_size=batch_size,
            progress=progress,
        )
    finally:
        writer.close()
    release_memory()  # the pages of scored chunks and written batches, before the analysis
    stages["scoring"] = time.perf_counter() - clock
    clock = time.perf_counter()
    # -- analyse
    for (model, metric), value in scored.corpus_values.items():
        board.set_corpus(model, metric, value)
    for (name, model, metric), reason in scored.corpus_not_computed.items():
        reported.add_corpus(name, model, metric, reason)
    leaderboard = board.rows()
    usage = index.usage()
    # Their messages name slices and models, which come from the suite: masked like every report.
    probed, probe_notes = _probe_judges(evaluators, staged.chunks(per_chunk), judge_probes, seed)
    problems = (find_problems(leaderboard, outcomes) + judge_outputs.problems()
                + reported.problems() + probed)
    insights = redact(find_insights(leaderboard, usage) + probe_notes)
    # Scoring's per-case bookkeeping (outcomes of linked cases, answer lengths, latency and
    # cost) is spent: freed before deciding and reporting, which read the run directory.
    del outcomes, judge_outputs, usage
    manifest = build_manifest(  # before the reports, which show its run details
        suite_info={
            "path": staged.source,
            "sha256": staged.sha256,
            "n_cases": len(staged),
            "models": index.models,
        },
        evaluators=[e.spec() for e in evaluators],
        thresholds=thresholds,
        seed=seed,
        timings=scored.timings,
        started=started,
        extra={
            "executor": executor.describe(),
            **({"judge_repeats": judge_repeats} if judge_repeats > 1 else {}),
            "stages_s": stages,
            **({"calibrators": [c.info() for c in calibrators]} if calibrators else {}),
        },
    )
    run = EvaluationRun(
        manifest=manifest,
        leaderboard=leaderboard,
        problems=[],  # with the verdict's, below
        insights=insights,
        path=work,
        corpus_details=scored.corpus_details,
    )
    # The suite's index (a million cases: ~24 MB of models, latencies, costs and linked ids)
    # is spent once the manifest has its counts: freed before deciding, not after.
    del staged, index
    # -- decide: the implicit plan through the verdict's rules (its problems say why)
    from assay.verdict.implicit import assess_run

    verdict = assess_run(run, cases=keys)
    del keys
    # in place: an unmasked copy beside the masked one was ~100 MB at 10^6 cases
    problems.extend(verdict.problems)
    run.problems = redact_each(problems)
    del problems
    # The reports need the verdict's record only: its per-case tables and keys (a million
    # cases' worth) go before the analysis reads the results; a run
    # without a directory keeps the keys (what deciding it again needs).
    decided = verdict.as_dict()
    if not reports:
        run.case_keys = verdict.case_keys
    del verdict
    release_memory()
    files += [
        *writer.paths,
        *write_tables(work, leaderboard, run.problems, insights, scored.corpus_details),
        work / SUITE_FILE,
    ]
    stages["analysis"] = time.perf_counter() - clock
    # -- report (without a run directory they would go with the temporary one: no report work)
    if reports:
        from assay.report import write_reports

        clock = time.perf_counter()
        files += write_reports(run, work, verdict=decided)
        stages["reports"] = time.perf_counter() - clock
    for stage, seconds in stages.items():
        stages[stage] = round(seconds, 4)
    # -- calibrate
    if calibrators:
        from assay.calibrate.apply import write_calibrated

        files += write_calibrated(work, read_results(work), calibrators)
    # -- seal: the manifest, written last, marks the run complete
    seal(work, run.manifest, files)
    return run
