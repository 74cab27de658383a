"""``assess``: run a validation plan end to end — evaluate, calibrate to labels, decide, report.

The assessment directory holds ``run/`` (an ordinary run directory, reused when it is complete and
was made from the same suite, evaluators, parameters and seed — so an interrupted or re-labelled
assessment resumes without re-scoring), ``verdict.json``, ``verdict_cases.csv``,
``review_queue.jsonl`` (the cases routed to REVIEW, ready to label), ``looks.json`` (the ledger of
looks: how often each check's bound inputs were assessed, :mod:`assay.verdict.looks`),
``verdict.md`` and ``verdict.html``.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from assay.data.case import model_key
from assay.errors import InvalidInputError
from assay.fileio import atomic_path, sha256_file, write_text
from assay.memory import release_memory
from assay.progress import ProgressCallback
from assay.rundir.layout import (
    ASSESSMENT_RUN_DIR,
    PLAN_FILE,
    REVIEW_QUEUE_FILE,
    VERDICT_CASES_FILE,
    VERDICT_FILE,
    VERDICT_HTML,
    VERDICT_MD,
)
from assay.verdict.case_table import CaseTable
from assay.verdict.cases import (
    REVIEW,
    CaseVerdicts,
    calibrated_verdicts,
    compact_texts,
    rule_verdicts,
)
from assay.verdict.decide import EXIT_CODES, CheckDecision, combine, decide_check
from assay.verdict.design import Key, LabelRecord
from assay.verdict.labels import LabelEvidence, label_evidence
from assay.verdict.left_out import LeftOut, left_out
from assay.verdict.looks import LookLedger
from assay.verdict.measures import explain_decisions
from assay.verdict.overrules import apply_overrules, overrule_records
from assay.verdict.plan import DIMENSIONS, Check, ValidationPlan, load_plan, plan_record
from assay.verdict.preflight import preflight
from assay.verdict.provenance import Provenance, provenance
from assay.verdict.samples import collapse_samples
from assay.verdict.suite_cases import SuiteCases, case_table, each_case
from assay.verdict.truncation import unmeasured_truncated

if TYPE_CHECKING:
    from assay.engine.executors import Executor

logger = logging.getLogger(__name__)


@dataclass
class Assessment:
    """The outcome of a validation plan: decisions per system, dimension and check."""

    plan: ValidationPlan
    decisions: list[CheckDecision]
    verdicts: dict[str, CaseVerdicts]
    run_path: Path | None = None
    models: list[str] = field(default_factory=list)
    #: The inputs the verdict rests on (hashes, date, the labels' design).
    provenance: Provenance | None = None
    #: (check, system) → the cases in the check's scope its n leaves out, with reasons.
    left_out: dict[tuple[str, str], LeftOut] = field(default_factory=dict)

    def dimension_decisions(self, model: str) -> dict[str, str]:
        """Dimension → decision for one system (dimensions without a check are left out)."""
        out: dict[str, str] = {}
        for dimension in DIMENSIONS:
            own = [
                d.decision for d in self.decisions if d.model == model and d.dimension == dimension
            ]
            if own:
                out[dimension] = combine(own)
        return out

    def model_decision(self, model: str) -> str:
        """A system's overall decision (any FAIL fails; any INCONCLUSIVE is inconclusive)."""
        return combine(list(self.dimension_decisions(model).values()))

    @property
    def decision(self) -> str:
        """Overall: FAIL if any system fails, INCONCLUSIVE if any is undecided, else PASS."""
        return combine([self.model_decision(m) for m in self.models])

    @property
    def exit_code(self) -> int:
        """0 PASS, 1 FAIL, 3 INCONCLUSIVE (see :data:`~assay.verdict.decide.EXIT_CODES`)."""
        return EXIT_CODES[self.decision]

    def as_dict(self) -> dict[str, Any]:
        """``verdict.json``: the plan, each system's decisions, and the measurement validity."""
        return {
            "title": self.plan.title,
            "decision": self.decision,
            "exit_code": self.exit_code,
            "models": {
                m: {
                    "decision": self.model_decision(m),
                    "dimensions": self.dimension_decisions(m),
                }
                for m in self.models
            },
            "checks": [d.as_dict() for d in self.decisions],
            "validity": {
                name: {
                    "metric": v.metric,
                    "calibrated": v.calibrated,
                    "reason": v.reason,
                    "candidates": v.validity,
                }
                for name, v in self.verdicts.items()
            },
            "curves": {name: v.curve for name, v in self.verdicts.items() if v.curve},
            "overrules": overrule_records(self.verdicts),
            "provenance": self.provenance.as_dict() if self.provenance else None,
            "left_out": [
                {"check": check, "model": model, **vars(out)}
                for (check, model), out in self.left_out.items()
            ],
        }


def _case_frame(cases: CaseTable) -> pd.DataFrame:
    """Per (case, model): the question group and which scopes the case belongs to (a case
    listed twice: its last row)."""
    frame = cases.frame().drop_duplicates(["case_id", "model"], keep="last")
    # one out-of-scope question asked under several parents is one unit, counted once per system
    repeated = frame[frame["abstain"]].duplicated(["question", "sample", "model"])
    frame = frame[["case_id", "model", "group", "attacks", "perturbed", "abstain", "truncated"]]
    frame.loc[repeated[repeated].index, "abstain"] = False
    frame["original"] = ~frame["attacks"] & ~frame["perturbed"]
    frame["all"] = True
    return frame.set_index(["case_id", "model"])


#: The result columns the per-case verdicts read.
_VERDICT_COLUMNS = ["case_id", "model", "metric", "status", "value", "passed", "threshold"]
#: What a calibrated check reads of them: its scores (a rule check reads ``passed`` and
#: ``threshold`` too, ~32 MB of two metrics' rows at a million cases).
_CALIBRATED_COLUMNS = ["case_id", "model", "metric", "status", "value"]


def _labels_of(check: Check, evidence: LabelEvidence) -> dict[Key, LabelRecord]:
    """The labels that calibrate ``check`` (none: a rule check)."""
    return evidence.records.get(check.label, {}) if check.label else {}


def _verdict_results(check: Check, run: Any, evidence: LabelEvidence) -> pd.DataFrame:
    """The result rows of one check's metrics, with only the columns its verdicts read (filtered
    while reading: at a million cases the whole lean table was several GB; its texts stay
    categories, which the checks align to the cases' keys as they would texts).

    Read per check and freed before its bounds: the rows of every check's metrics, held through
    all the checks, were ~180 MB at a million cases (three metrics) under each system's bound.
    """
    columns = _CALIBRATED_COLUMNS if _labels_of(check, evidence) else _VERDICT_COLUMNS
    return run.result_columns(columns, metrics=set(check.metrics))


def _run_fingerprint(plan: ValidationPlan, suite_sha: str) -> str:
    body = {
        "suite": suite_sha,
        "evaluators": plan.run.evaluators,
        "params": plan.run.params,
        "thresholds": plan.run.thresholds,
        "seed": plan.run.seed,
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _evaluate(
    plan: ValidationPlan,
    out: Path | None,
    progress: ProgressCallback | None,
    executor: str | Executor | None = None,
    executor_options: dict[str, Any] | None = None,
) -> Any:
    """The plan's run: reused from ``out/run`` when complete and made from the same inputs.

    The run is evaluated on ``executor`` (default: the plan's ``[run] executor``) with the plan's
    ``[run.ray]`` options updated by ``executor_options``. Where it ran is not part of the
    fingerprint: every executor gives the same results (docs/distributed.md), so a complete run
    made locally is reused by a Ray assessment of the same inputs and the other way round.

    A run with a directory is returned as stored, without its problems and insights: the
    decision reads neither (a million cases' perturbation flips are ~80 MB once parsed).
    """
    from assay.pipeline import evaluate
    from assay.rundir import load_run

    suite_sha = sha256_file(plan.suite_path)
    fingerprint = _run_fingerprint(plan, suite_sha)
    run_dir = out / ASSESSMENT_RUN_DIR if out is not None else None
    stamp = out / "run.fingerprint" if out is not None else None
    if run_dir is not None and stamp is not None and stamp.is_file():
        try:
            run = load_run(run_dir, findings=False)
        except InvalidInputError:
            run = None
        if run is not None and stamp.read_text(encoding="utf-8").strip() == fingerprint:
            logger.info("reusing the complete run in %s", run_dir)
            return run
    spec = plan.run.executor if executor is None else executor
    options = None
    if spec == "ray":
        options = {**plan.run.ray.executor_options(), **(executor_options or {})}
    elif executor_options:
        options = executor_options  # get_executor names what the executor does not take
    run = evaluate(
        plan.suite_path,
        plan.run.evaluators,
        params=plan.run.params,
        thresholds=plan.run.thresholds or None,
        out=run_dir,
        overwrite=True,
        seed=plan.run.seed,
        progress=progress,
        executor=spec,
        executor_options=options,
    )
    if stamp is not None:
        write_text(stamp, fingerprint + "\n")
    return load_run(run_dir, findings=False) if run_dir is not None else run


def _check_verdicts(
    check: Check,
    results: pd.DataFrame,
    frame: pd.DataFrame,
    evidence: LabelEvidence,
    direction: dict[str, bool],
    plan: ValidationPlan,
) -> CaseVerdicts:
    in_scope = frame[check.scope].to_numpy()
    keys = frame.index[in_scope]
    records = _labels_of(check, evidence)
    truncated = frame.index[frame[check.scope] & frame["truncated"]]
    if check.label and records:
        cv = calibrated_verdicts(
            check,
            results,
            keys,
            frame["group"][in_scope],  # by position: aligned with the keys
            records,
            evidence.rounds_for(check.label),
            direction,
            plan.calibration,
            plan.labels.calibration_fraction,
            plan.run.seed,
        )
    else:
        cv = rule_verdicts(check, results, keys, direction)
    return unmeasured_truncated(cv, truncated)  # an answer cut short is never out of scope


def assess(
    plan: ValidationPlan | str | Path,
    out: str | Path | None = None,
    *,
    progress: ProgressCallback | None = None,
    executor: str | Executor | None = None,
    executor_options: dict[str, Any] | None = None,
) -> Assessment:
    """Run a validation plan: evaluate (or reuse the complete run), calibrate, decide, write.

    Args:
        plan: a :class:`ValidationPlan` or the path of its TOML file.
        out: assessment directory (``run/``, ``verdict.json``, ``verdict.md``, ``verdict.html``,
            ``verdict_cases.csv``, ``review_queue.jsonl``); None keeps everything in memory.
        progress: called as ``progress(evaluator, done, total)`` while evaluating.
        executor: where the plan's evaluators run: ``"local"``, ``"ray"`` or an
            :class:`~assay.engine.executors.Executor`; None: the plan's ``[run] executor``.
        executor_options: Ray options (``address``, ``num_workers``, ``num_cpus``, ``num_gpus``,
            ... as :class:`~assay.engine.executors.ray_executor.RayExecutor` takes them) over the
            plan's ``[run.ray]``; the decisions do not depend on the executor.
    """
    plan = plan if isinstance(plan, ValidationPlan) else load_plan(plan)
    out_path = Path(out) if out is not None else None
    if out_path is not None:
        out_path.mkdir(parents=True, exist_ok=True)
    cases = SuiteCases(plan.suite_path, (c.label for c in plan.check if c.label))
    preflight(plan, cases, out_path / ASSESSMENT_RUN_DIR if out_path is not None else None)
    run = _evaluate(plan, out_path, progress, executor, executor_options)
    ledger = LookLedger(out_path)
    read = _read_cases(plan, run, cases)
    # the checks read the case frame and the labels only; the review queue reads the suite
    # again (the suite's table, ~140 MB at a million cases, freed before the checks)
    del cases
    assessment = _decide_checks(plan, run, read, ledger)
    if out_path is not None:
        # the suite's keys were checked by the first read: the queue's read registers none
        # (~200 MB at a million cases)
        write_assessment(assessment, out_path, each_case(plan.suite_path, keys_unique=True))
        ledger.save()
    return assessment


def decide_run(
    plan: ValidationPlan,
    run: Any,
    cases: list[Any] | SuiteCases | CaseTable,
    ledger: LookLedger | None = None,
) -> Assessment:
    """Decide a plan's checks on an evaluated run (the one decision logic, design note 0063).

    Args:
        plan: the validation plan (or an implicit one built from a run's evaluators).
        run: the :class:`~assay.pipeline.EvaluationRun` of ``cases``.
        cases: the suite's cases, the suite as :class:`SuiteCases`, or the cases'
            :class:`CaseTable` (a plan reading labels from the suite needs the cases).
        ledger: the assessment directory's ledger of looks (None: every bound is look 1).
    """
    return _decide_checks(plan, run, _read_cases(plan, run, cases), ledger)


@dataclass(frozen=True)
class _CasesRead:
    """What the checks read of the cases: per (case, system) its group and scopes, the samples
    of repeated cases, the labels with their designs, and the systems."""

    frame: pd.DataFrame
    sampled: dict[tuple[str, str], str]
    evidence: LabelEvidence
    models: list[str]


def _read_cases(
    plan: ValidationPlan, run: Any, cases: list[Any] | SuiteCases | CaseTable
) -> _CasesRead:
    table = case_table(cases)
    frame = _case_frame(table)
    sampled = table.sampled()
    del table
    evidence = label_evidence(
        plan, _no_cases(plan) if isinstance(cases, CaseTable) else cases, run.path
    )
    models = sorted(frame.index.get_level_values("model").unique())
    return _CasesRead(frame, sampled, evidence, models)


def _decide_checks(
    plan: ValidationPlan, run: Any, read: _CasesRead, ledger: LookLedger | None
) -> Assessment:
    direction = {row["metric"]: bool(row["higher_is_better"]) for row in run.leaderboard}
    decisions: list[CheckDecision] = []
    verdicts: dict[str, CaseVerdicts] = {}
    outside: dict[tuple[str, str], LeftOut] = {}
    for check in plan.check:
        unknown = [m for m in check.metrics if m not in direction]
        if len(unknown) == len(check.metrics):
            raise InvalidInputError(
                f"check {check.name!r}: none of its metrics {check.metrics} is produced by the "
                f"plan's evaluators {plan.run.evaluators}"
            )
        results = _verdict_results(check, run, read.evidence)
        cv = _check_verdicts(check, results, read.frame, read.evidence, direction, plan)
        del results  # the rows of its metrics: read by its verdicts only
        cv = collapse_samples(cv, read.sampled)  # k samples of a case decide as one case
        cv = apply_overrules(check, cv, run.path)  # a reviewer's recorded overrules of rule cases
        cv = compact_texts(cv)  # kept through the later checks and the writing
        metrics = [cv.metric] if cv.calibrated and cv.metric else list(check.metrics)
        for model, out in left_out(cv, metrics, read.sampled, run).items():
            outside[(check.name, model)] = out
        review = plan.calibration.review_in_rates
        # the pages the check's transients freed go back before each system's bound takes its
        # own (~90 MB resident at a million cases each time, which the next peak stood on)
        release_memory()
        for model in read.models:
            decisions.append(decide_check(check, cv, model, review, ledger))
            release_memory()
        # the bound's cross-fitted predictions (~250 MB at a million cases) are not read again
        verdicts[check.name] = cv = replace(cv, fit_predict=None)
    explain_decisions(plan, run, verdicts, decisions)  # stated measures, run's reasons, overrules
    return Assessment(
        plan, decisions, verdicts, run.path, read.models, provenance(plan, read.evidence),
        outside,
    )


def _no_cases(plan: ValidationPlan) -> list[Any]:
    """The cases given as a :class:`CaseTable`: none to read labels from (only a plan whose
    labels come from the suite reads them)."""
    if any(check.label for check in plan.check) and "suite" in plan.labels.sources:
        raise InvalidInputError("deciding a plan with labels from the suite needs the cases")
    return []


#: Rows of a check's table copied and written to ``verdict_cases.csv`` at once.
_ROWS_PER_WRITE = 50_000


def _write_verdict_cases(verdicts: dict[str, CaseVerdicts], path: Path) -> set[tuple[str, str]]:
    """Write ``verdict_cases.csv`` (every case of each check's scope, with its state) one check's
    part at a time, as one concatenated table would be written; return the (case, system) keys
    routed to REVIEW.

    Written part by part, each in slices of :data:`_ROWS_PER_WRITE` rows: the table of every
    check at a million cases was ~0.5 GB beside the parts it copied, and its CSV text 169 MB; a
    whole part's copy with its check column ~100 MB at 250,000 cases.
    """
    parts = [
        (name, part) for name, cv in verdicts.items() for part in (cv.table, cv.excluded)
        if len(part)
    ]  # fmt: skip
    columns = list(dict.fromkeys(c for _, part in parts for c in [*part.columns, "check"]))
    # as a concatenation would hold them: a column some part lacks is missing there, so its
    # integers become floats
    lacking = {c for _, part in parts for c in columns if c not in part.columns and c != "check"}
    wanted: set[tuple[str, str]] = set()
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8", newline="") as handle:
        if not parts:
            pd.DataFrame().to_csv(handle, index=False)
        header = True
        for name, part in parts:
            for start in range(0, len(part), _ROWS_PER_WRITE):
                rows = part.iloc[start : start + _ROWS_PER_WRITE]
                whole = rows.assign(check=name).reindex(columns=columns)
                for column in lacking & set(part.columns):
                    if whole[column].dtype.kind in "iu":  # numpy integers (nullable: keep NA)
                        whole[column] = whole[column].astype(float)
                whole.to_csv(handle, index=False, header=header)
                header = False
                review = whole[whole["verdict"] == REVIEW] if "verdict" in whole else whole[:0]
                wanted.update(zip(review["case_id"], review["model"], strict=True))
    return wanted


def write_assessment(assessment: Assessment, out: Path, cases: Iterable[Any]) -> None:
    """Write ``verdict.json``, ``verdict_cases.csv``, ``review_queue.jsonl`` and the reports."""
    from assay.safety.masking import redact
    from assay.verdict.render import verdict_html, verdict_markdown

    verdict = redact(assessment.as_dict())  # shared like the reports: PII and secrets masked
    if assessment.provenance is not None:  # assay's own hashes: a sha256 is not a secret
        verdict["provenance"] = assessment.provenance.as_dict()
    write_text(out / VERDICT_FILE, json.dumps(verdict, indent=2, default=str) + "\n")
    write_text(out / PLAN_FILE, plan_record(assessment.plan))  # for the labeling queue
    wanted = _write_verdict_cases(assessment.verdicts, out / VERDICT_CASES_FILE)
    with atomic_path(out / REVIEW_QUEUE_FILE) as tmp, tmp.open("w", encoding="utf-8") as queue:
        for case in cases:  # a repeated case under review: every sample of it
            if (case.sample_of or case.id, model_key(case.model)) in wanted:
                record = case.model_dump(mode="json", exclude_none=True)
                queue.write(json.dumps(record, ensure_ascii=False) + "\n")
    write_text(out / VERDICT_MD, verdict_markdown(assessment))
    write_text(out / VERDICT_HTML, verdict_html(assessment))
