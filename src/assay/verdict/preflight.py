"""Plan preflight: the mistakes of a validation plan that would change a decision without a word,
refused before anything runs.

:func:`preflight` is called at the start of :func:`assay.verdict.assess.assess` and by
``assay validate PLAN``. It refuses, naming the plan file, the line and the key:

* a metric a check names that none of the plan's evaluators declares (found only after the whole
  evaluation, otherwise);
* a threshold (a check's ``threshold``, or ``[run] thresholds``) outside its metric's declared
  range — ``threshold = -1`` on a metric in ``[0, 1]`` would pass every case;
* a rule-based check (no ``label``) on a metric with no threshold anywhere;
* a label criterion with no label at all, that no label source knows (no such key in the suite's
  ``labels``, column of a labels file or criterion of the labeling app's store), while the plan's
  other criteria have labels: a mistyped ``label = "correctness"`` would silently turn a
  calibrated check into a rule-based one (a known criterion not labelled yet is a note);
* label rows that match no case of the suite beyond :data:`MAX_UNMATCHED_SHARE` (a few are
  counted and shown with examples: the share of labelled cases quietly falls otherwise).

It returns the notes to show and, per check and metric, the threshold that decides it
(:func:`deciding_thresholds`).
"""

from __future__ import annotations

import difflib
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from assay.errors import InvalidInputError
from assay.evaluators.outcomes import MetricSpec
from assay.verdict.case_table import CaseTable
from assay.verdict.design import Key
from assay.verdict.plan import ValidationPlan
from assay.verdict.suite_cases import SuiteCases, case_table, label_names

logger = logging.getLogger(__name__)

#: Label rows matching no case are an error above this share of the label rows (a note below).
MAX_UNMATCHED_SHARE = 0.05
#: Examples named in a message.
EXAMPLES = 5


@dataclass
class Preflight:
    """What the preflight found that is not an error.

    Attributes:
        metrics: metric name → its declared spec (every metric of the plan's evaluators).
        thresholds: check name → metric → the threshold that decides it (None: calibrated to
            labels, or no threshold).
        notes: things to show the user (label rows matching no case, within the tolerance).
    """

    metrics: dict[str, MetricSpec] = field(default_factory=dict)
    thresholds: dict[str, dict[str, float | None]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def declared_metrics(plan: ValidationPlan) -> dict[str, MetricSpec]:
    """Metric name → spec, for every metric the plan's evaluators declare.

    Example:
        >>> from assay.verdict.plan import parse_plan
        >>> plan = parse_plan('''
        ... [run]
        ... suite = "s.jsonl"
        ... evaluators = ["token_f1"]
        ... [[check]]
        ... dimension = "qa"
        ... name = "c"
        ... metrics = ["token_f1"]
        ... min_pass_rate = 0.9
        ... ''')
        >>> declared_metrics(plan)["token_f1"].range
        (0.0, 1.0)
    """
    from assay.evaluators.registry import evaluator_class

    out: dict[str, MetricSpec] = {}
    for name in plan.run.evaluators:
        try:
            cls = evaluator_class(name)
        except InvalidInputError as exc:
            raise InvalidInputError(f"{plan.where('run', 'evaluators')}: run.evaluators: {exc}") \
                from None
        out.update({spec.name: spec for spec in cls.metrics})
    return out


def deciding_thresholds(
    plan: ValidationPlan, metrics: dict[str, MetricSpec]
) -> dict[str, dict[str, float | None]]:
    """Check name → metric → the threshold a case's value is compared with: the check's
    ``threshold``, else ``[run] thresholds``, else the metric's default.

    Example:
        >>> from assay.verdict.plan import parse_plan
        >>> plan = parse_plan('''
        ... [run]
        ... suite = "s.jsonl"
        ... evaluators = ["retrieval"]
        ... thresholds.hit_at_k = 1.0
        ... [[check]]
        ... dimension = "retrieval"
        ... name = "hit"
        ... metrics = ["hit_at_k"]
        ... min_pass_rate = 0.8
        ... ''')
        >>> deciding_thresholds(plan, declared_metrics(plan))
        {'hit': {'hit_at_k': 1.0}}
    """
    out: dict[str, dict[str, float | None]] = {}
    for check in plan.check:
        out[check.name] = {
            m: check.threshold
            if check.threshold is not None
            else plan.run.thresholds.get(m, metrics[m].threshold if m in metrics else None)
            for m in check.metrics
        }
    return out


def _in_range(value: float, spec: MetricSpec) -> bool:
    low, high = spec.range
    return math.isfinite(value) and low <= value <= high


def _range_text(spec: MetricSpec) -> str:
    low, high = spec.range
    return f"[{low:g}, {high:g}]"


def check_metrics(plan: ValidationPlan) -> dict[str, MetricSpec]:
    """Refuse unknown metrics, thresholds outside their metric's range and rule-based checks on a
    metric without a threshold; returns the declared metrics.

    Raises:
        InvalidInputError: naming the plan file, the line and the key of every problem.
    """
    metrics = declared_metrics(plan)
    problems: list[str] = []
    for metric, value in plan.run.thresholds.items():
        where = plan.where("run", "thresholds", metric)
        if metric not in metrics:
            problems.append(f"{where}: run.thresholds.{metric}: {_unknown(metric, metrics, plan)}")
        elif not _in_range(value, metrics[metric]):
            problems.append(
                f"{where}: run.thresholds.{metric}: {value:g} is outside the range of "
                f"{metric}, {_range_text(metrics[metric])}"
            )
    for index, check in enumerate(plan.check):
        for metric in check.metrics:
            if metric not in metrics:
                where = plan.where("check", index, "metrics")
                problems.append(
                    f"{where}: check {check.name!r}, metrics: {_unknown(metric, metrics, plan)}"
                )
            elif check.threshold is not None and not _in_range(check.threshold, metrics[metric]):
                where = plan.where("check", index, "threshold")
                problems.append(
                    f"{where}: check {check.name!r}, threshold: {check.threshold:g} is outside "
                    f"the range of {metric}, {_range_text(metrics[metric])}"
                )
            elif check.label is None and check.threshold is None and (
                plan.run.thresholds.get(metric, metrics[metric].threshold) is None
            ):
                where = plan.where("check", index, "metrics")
                problems.append(
                    f"{where}: check {check.name!r}: metric {metric} has no threshold; give the "
                    "check a 'threshold' or set it in [run] thresholds"
                )
    if problems:
        raise InvalidInputError("the validation plan cannot be used:\n  " + "\n  ".join(problems))
    return metrics


def _unknown(metric: str, metrics: dict[str, MetricSpec], plan: ValidationPlan) -> str:
    close = difflib.get_close_matches(metric, list(metrics), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    return (
        f"{metric!r} is not a metric of the plan's evaluators "
        f"({', '.join(plan.run.evaluators)}){hint}"
    )


def _available_criteria(
    plan: ValidationPlan, cases: Sequence[Any] | SuiteCases, run_dir: Path | None
) -> set[str]:
    """The label criteria the plan's sources know, labelled yet or not: the keys of the suite's
    ``labels``, the columns of a labels file, the criteria of the labeling app's store."""
    from assay.verdict.labels import label_columns

    found: set[str] = set()
    for source in plan.labels.sources:
        if source == "suite":
            found |= label_names(cases)
        elif source == "store":
            found |= _store_criteria(run_dir)
        else:
            found |= label_columns(plan.resolve(source))
    return found


def _store_criteria(run_dir: Path | None) -> set[str]:
    """The criteria recorded in the labeling app's store of ``run_dir`` (none without one)."""
    from assay.label.assessment import label_store_dir
    from assay.label.store import DEFAULT_DB, Store, database_url

    if run_dir is None:
        return set()
    home = label_store_dir(run_dir)
    if not (home / DEFAULT_DB).is_file():
        return set()
    store = Store(database_url(home, None))
    try:
        return {criterion.name for criterion in store.criteria()}
    finally:
        store.close()


def check_labels(
    plan: ValidationPlan, cases: Sequence[Any] | SuiteCases, run_dir: Path | None
) -> list[str]:
    """Refuse a label criterion that no source knows while other criteria have labels, and label
    rows matching no case beyond :data:`MAX_UNMATCHED_SHARE`; returns the notes to show.

    Raises:
        InvalidInputError: naming the plan file, the line and the key.
    """
    from assay.verdict.labels import label_evidence

    if not any(c.label for c in plan.check):
        return []
    evidence = label_evidence(plan, cases, run_dir)
    counts = {criterion: len(records) for criterion, records in evidence.records.items()}
    problems: list[str] = []
    notes: list[str] = []
    if any(counts.values()):
        available = _available_criteria(plan, cases, run_dir) | {r.criterion for r in
                                                                 evidence.rounds}
        labelled = ", ".join(sorted(c for c, n in counts.items() if n))
        for index, check in enumerate(plan.check):
            if not check.label or counts.get(check.label):
                continue
            if check.label in available:  # a criterion the sources know, not labelled yet
                notes.append(
                    f"check {check.name!r}: criterion {check.label!r} has no label yet; the "
                    "check is decided uncalibrated until it has some"
                )
                continue
            close = difflib.get_close_matches(check.label, sorted(available), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            problems.append(
                f"{plan.where('check', index, 'label')}: check {check.name!r}, label: no "
                f"source of the plan knows criterion {check.label!r}, while other criteria have "
                f"labels ({labelled}){hint}"
            )
    keys = {key for records in evidence.records.values() for key in records}
    unmatched = _unmatched(keys, case_table(cases))
    if unmatched:
        examples = ", ".join(f"{i!r} (model {m!r})" for i, m in unmatched[:EXAMPLES])
        text = (
            f"{len(unmatched)} of {len(keys)} labelled (case, model) pairs match no case of the "
            f"suite {plan.suite_path}, e.g. {examples}; their labels are not used"
        )
        if len(unmatched) > MAX_UNMATCHED_SHARE * len(keys):
            problems.append(
                f"{plan.where('labels', 'source')}: labels.source: {text} (more than "
                f"{MAX_UNMATCHED_SHARE:.0%}: check the ids and the model names)"
            )
        else:
            notes.append(text)
    if problems:
        raise InvalidInputError("the validation plan cannot be used:\n  " + "\n  ".join(problems))
    return notes


def _unmatched(keys: set[Key], table: CaseTable) -> list[Key]:
    """The label keys matching no case (its id, or the id it samples, with its model), sorted;
    matched by index on the table's columns, not by a set of every case's key."""
    if not keys:
        return []
    frame = table.frame()[["case_id", "model", "sample_of"]]
    sampled = frame[frame["sample_of"].notna()]
    known = pd.MultiIndex.from_arrays([frame["case_id"], frame["model"]]).append(
        pd.MultiIndex.from_arrays([sampled["sample_of"], sampled["model"]])
    )
    wanted = sorted(keys)
    found = pd.MultiIndex.from_tuples(wanted).isin(known)
    return [key for key, hit in zip(wanted, found, strict=True) if not hit]


def preflight(
    plan: ValidationPlan, cases: Sequence[Any] | SuiteCases, run_dir: Path | None = None
) -> Preflight:
    """Check a plan against its evaluators and its labels before anything runs.

    Args:
        plan: the validation plan.
        cases: the suite's cases, or the suite as an assessment reads it.
        run_dir: the assessment's run directory (its labeling-app store), when there is one.

    Raises:
        InvalidInputError: naming the plan file, the line and the key of each problem.
    """
    metrics = check_metrics(plan)
    notes = check_labels(plan, cases, run_dir)
    for note in notes:
        logger.warning("%s", note)
    return Preflight(metrics, deciding_thresholds(plan, metrics), notes)
