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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from assay.data.samples import question_of
from assay.errors import InvalidInputError
from assay.fileio import write_text
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
from assay.verdict.cases import REVIEW, CaseVerdicts, calibrated_verdicts, rule_verdicts
from assay.verdict.decide import EXIT_CODES, CheckDecision, combine, decide_check
from assay.verdict.labels import LabelEvidence, label_evidence
from assay.verdict.looks import LookLedger
from assay.verdict.plan import DIMENSIONS, Check, ValidationPlan, load_plan, plan_record
from assay.verdict.samples import collapse_samples

logger = logging.getLogger(__name__)


@dataclass
class Assessment:
    """The outcome of a validation plan: decisions per system, dimension and check."""

    plan: ValidationPlan
    decisions: list[CheckDecision]
    verdicts: dict[str, CaseVerdicts]
    run_path: Path | None = None
    models: list[str] = field(default_factory=list)

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
        }


def _case_frame(cases: list[Any]) -> pd.DataFrame:
    """Per (case, model): the question group and which scopes the case belongs to."""
    rows = []
    for case in cases:
        perturbation = case.perturbation or ""
        rows.append(
            {
                "case_id": case.id,
                "model": str(case.model),
                "group": question_of(case),
                "attacks": perturbation.startswith("attack:"),
                "perturbed": bool(perturbation) and not perturbation.startswith("attack:"),
                "abstain": str(case.labels.get("expected_behaviour", "")).lower() == "abstain",
            }
        )
    frame = pd.DataFrame(rows).drop_duplicates(["case_id", "model"], keep="last")
    frame["original"] = ~frame["attacks"] & ~frame["perturbed"]
    frame["all"] = True
    return frame.set_index(["case_id", "model"])


def _run_fingerprint(plan: ValidationPlan, suite_sha: str) -> str:
    body = {
        "suite": suite_sha,
        "evaluators": plan.run.evaluators,
        "params": plan.run.params,
        "thresholds": plan.run.thresholds,
        "seed": plan.run.seed,
    }
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _evaluate(plan: ValidationPlan, out: Path | None, progress: ProgressCallback | None) -> Any:
    """The plan's run: reused from ``out/run`` when complete and made from the same inputs."""
    from assay.pipeline import evaluate
    from assay.rundir import load_run

    suite_sha = hashlib.sha256(plan.suite_path.read_bytes()).hexdigest()
    fingerprint = _run_fingerprint(plan, suite_sha)
    run_dir = out / ASSESSMENT_RUN_DIR if out is not None else None
    stamp = out / "run.fingerprint" if out is not None else None
    if run_dir is not None and stamp is not None and stamp.is_file():
        try:
            run = load_run(run_dir)
        except InvalidInputError:
            run = None
        if run is not None and stamp.read_text(encoding="utf-8").strip() == fingerprint:
            logger.info("reusing the complete run in %s", run_dir)
            return run
    run = evaluate(
        plan.suite_path,
        plan.run.evaluators,
        params=plan.run.params,
        thresholds=plan.run.thresholds or None,
        out=run_dir,
        overwrite=True,
        seed=plan.run.seed,
        progress=progress,
    )
    if stamp is not None:
        write_text(stamp, fingerprint + "\n")
    return run


def _check_verdicts(
    check: Check,
    results: pd.DataFrame,
    frame: pd.DataFrame,
    evidence: LabelEvidence,
    direction: dict[str, bool],
    plan: ValidationPlan,
) -> CaseVerdicts:
    keys = frame.index[frame[check.scope]]
    records = evidence.records.get(check.label or "", {})
    if check.label and records:
        return calibrated_verdicts(
            check,
            results,
            keys,
            frame["group"],
            records,
            evidence.rounds_for(check.label),
            direction,
            plan.calibration,
            plan.labels.calibration_fraction,
            plan.run.seed,
        )
    return rule_verdicts(check, results, keys, direction)


def assess(
    plan: ValidationPlan | str | Path,
    out: str | Path | None = None,
    *,
    progress: ProgressCallback | None = None,
) -> Assessment:
    """Run a validation plan: evaluate (or reuse the complete run), calibrate, decide, write.

    Args:
        plan: a :class:`ValidationPlan` or the path of its TOML file.
        out: assessment directory (``run/``, ``verdict.json``, ``verdict.md``, ``verdict.html``,
            ``verdict_cases.csv``, ``review_queue.jsonl``); None keeps everything in memory.
        progress: called as ``progress(evaluator, done, total)`` while evaluating.
    """
    from assay.data import read_suite

    plan = plan if isinstance(plan, ValidationPlan) else load_plan(plan)
    out_path = Path(out) if out is not None else None
    if out_path is not None:
        out_path.mkdir(parents=True, exist_ok=True)
    suite = read_suite(plan.suite_path)
    cases = list(suite.cases)
    run = _evaluate(plan, out_path, progress)
    ledger = LookLedger(out_path)
    assessment = decide_run(plan, run, cases, ledger)
    if out_path is not None:
        write_assessment(assessment, out_path, cases)
        ledger.save()
    return assessment


def decide_run(
    plan: ValidationPlan, run: Any, cases: list[Any], ledger: LookLedger | None = None
) -> Assessment:
    """Decide a plan's checks on an evaluated run (the one decision logic, design note 0063).

    Args:
        plan: the validation plan (or an implicit one built from a run's evaluators).
        run: the :class:`~assay.pipeline.EvaluationRun` of ``cases``.
        cases: the suite's cases.
        ledger: the assessment directory's ledger of looks (None: every bound is look 1).
    """
    results = run.lean_results()
    results["model"] = results["model"].astype(str)
    direction = {row["metric"]: bool(row["higher_is_better"]) for row in run.leaderboard}
    frame = _case_frame(cases)
    sampled = {(c.id, str(c.model)): c.sample_of for c in cases if c.sample_of is not None}
    evidence: LabelEvidence = label_evidence(plan, cases, run.path)
    models = sorted(frame.index.get_level_values("model").unique())
    decisions: list[CheckDecision] = []
    verdicts: dict[str, CaseVerdicts] = {}
    for check in plan.check:
        unknown = [m for m in check.metrics if m not in direction]
        if len(unknown) == len(check.metrics):
            raise InvalidInputError(
                f"check {check.name!r}: none of its metrics {check.metrics} is produced by the "
                f"plan's evaluators {plan.run.evaluators}"
            )
        cv = _check_verdicts(check, results, frame, evidence, direction, plan)
        cv = collapse_samples(cv, sampled)  # k samples of a case decide as one case
        verdicts[check.name] = cv
        review = plan.calibration.review_in_rates
        decisions.extend(decide_check(check, cv, model, review, ledger) for model in models)
    return Assessment(plan, decisions, verdicts, run.path, models)


def write_assessment(assessment: Assessment, out: Path, cases: list[Any]) -> None:
    """Write ``verdict.json``, ``verdict_cases.csv``, ``review_queue.jsonl`` and the reports."""
    from assay.safety.masking import redact
    from assay.verdict.render import verdict_html, verdict_markdown

    tables = []
    for name, cv in assessment.verdicts.items():
        for part in (cv.table, cv.excluded):  # every case of the scope, with its state
            if len(part):
                tables.append(part.assign(check=name))
    cases_table = pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()
    verdict = redact(assessment.as_dict())  # shared like the reports: PII and secrets masked
    write_text(out / VERDICT_FILE, json.dumps(verdict, indent=2, default=str) + "\n")
    write_text(out / PLAN_FILE, plan_record(assessment.plan))  # for the labeling queue
    write_text(out / VERDICT_CASES_FILE, cases_table.to_csv(index=False))
    review = cases_table[cases_table["verdict"] == REVIEW] if len(cases_table) else cases_table
    wanted = {(r.case_id, r.model) for r in review.itertuples()} if len(review) else set()
    lines = [  # a repeated case under review: every sample of it
        json.dumps(case.model_dump(mode="json", exclude_none=True), ensure_ascii=False)
        for case in cases
        if (case.sample_of or case.id, str(case.model)) in wanted
    ]
    write_text(out / REVIEW_QUEUE_FILE, "".join(line + "\n" for line in lines))
    write_text(out / VERDICT_MD, verdict_markdown(assessment))
    write_text(out / VERDICT_HTML, verdict_html(assessment))
