"""Decisions that say what they measure: the stated measure of a check and the run's reasons.

Three facts a reader of a check's decision needs and the rate alone hides:

* **what the metric measured**: a retrieval check run with ``retrieval.id_match=document``
  counts a retrieved chunk as relevant when it is *a chunk of the same document* as a relevant
  one (``text``: when it contains a relevant chunk's text), not the relevant chunk itself;
* **why cases are unmeasured**: the run records each error's reason (e.g. disjoint id spaces,
  with the parameter that fixes it); the decision carries the most frequent ones;
* **which verdicts a reviewer overruled** (:mod:`assay.verdict.overrules`).

:func:`explain_decisions` appends them to each decision's ``reason``, after the decision is made:
it never changes a decision.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

import pandas as pd

from assay.verdict.overrules import REVIEWER

if TYPE_CHECKING:
    from assay.verdict.cases import CaseVerdicts
    from assay.verdict.decide import CheckDecision
    from assay.verdict.plan import Check, ValidationPlan

#: How many distinct error reasons a decision quotes.
MAX_REASONS = 2
_MATCHED = {
    "document": (
        "matched by document (retrieval.id_match=document): a retrieved chunk counts as relevant "
        "when it is a chunk of the same document as a relevant chunk"
    ),
    "text": (
        "matched by text (retrieval.id_match=text): a retrieved chunk counts as relevant when it "
        "contains a relevant chunk's text"
    ),
}


def stated_measure(check: Check, plan: ValidationPlan) -> str | None:
    """What a check's metrics measure when a parameter changed it, else None.

    Example:
        >>> from assay.verdict.plan import parse_plan
        >>> plan = parse_plan('''
        ... [run]
        ... suite = "s.jsonl"
        ... evaluators = ["retrieval"]
        ... params.retrieval = { id_match = "document" }
        ... [[check]]
        ... dimension = "retrieval"
        ... name = "relevant chunk retrieved"
        ... metrics = ["hit_at_k"]
        ... min_pass_rate = 0.9
        ... ''')
        >>> stated_measure(plan.check[0], plan)[:60]
        'hit_at_k matched by document (retrieval.id_match=document): '
    """
    from assay.errors import InvalidInputError
    from assay.evaluators.registry import metric_owner

    match = plan.run.params.get("retrieval", {}).get("id_match", "id")
    if match not in _MATCHED:
        return None
    ours = []
    for metric in check.metrics:
        try:
            if metric_owner(metric) == "retrieval":
                ours.append(metric)
        except InvalidInputError:
            continue
    return f"{', '.join(ours)} {_MATCHED[match]}" if ours else None


def _error_reasons(run: Any, metrics: set[str]) -> pd.DataFrame:
    """The run's error rows of ``metrics``: case_id, model, metric, reason."""
    try:  # the error rows only, filtered while reading (not every row's ids)
        frame = run.result_columns(
            ["case_id", "model", "metric", "reason"], metrics=metrics, statuses={"error"}
        )
    except (KeyError, ValueError):
        return pd.DataFrame(columns=["case_id", "model", "metric", "reason"])
    return frame.assign(model=frame["model"].astype(str), reason=frame["reason"].astype(str))


def unmeasured_reason(errors: pd.DataFrame, keys: set[tuple[str, str]]) -> str | None:
    """The most frequent error reasons among the cases ``keys`` (case id, system), with counts.

    Example:
        >>> errors = pd.DataFrame({"case_id": ["a", "b"], "model": "m", "metric": "hit_at_k",
        ...                        "reason": ["disjoint id spaces", "disjoint id spaces"]})
        >>> unmeasured_reason(errors, {("a", "m"), ("b", "m")})
        'the run says: disjoint id spaces (2 cases)'
    """
    if not keys or not len(errors):
        return None
    mine = errors[[(str(c), str(m)) in keys for c, m in zip(errors["case_id"], errors["model"],
                                                            strict=True)]]  # fmt: skip
    if not len(mine):
        return None
    per_case = mine.drop_duplicates(["case_id", "model", "reason"])
    counts = Counter(per_case["reason"]).most_common()
    shown = "; ".join(
        f"{reason} ({n} case{'s' if n != 1 else ''})" for reason, n in counts[:MAX_REASONS]
    )
    more = f"; and {len(counts) - MAX_REASONS} other reasons" if len(counts) > MAX_REASONS else ""
    return f"the run says: {shown}{more}"


def explain_decisions(
    plan: ValidationPlan,
    run: Any,
    verdicts: dict[str, CaseVerdicts],
    decisions: list[CheckDecision],
) -> None:
    """Append each check's stated measure, the run's reasons for its unmeasured cases and its
    overruled cases to the decisions' ``reason`` (in place; decisions themselves unchanged)."""
    from assay.verdict.cases import UNMEASURED

    checks = {c.name: c for c in plan.check}
    metrics = {m for c in plan.check for m in c.metrics}
    errors = _error_reasons(run, metrics) if any(d.n_unmeasured for d in decisions) or any(
        v.metric is None for v in verdicts.values()) else None  # fmt: skip
    for decision in decisions:
        check, cv = checks.get(decision.check), verdicts.get(decision.check)
        if check is None or cv is None:
            continue
        notes = []
        measure = stated_measure(check, plan)
        if measure:
            notes.append(f"measure: {measure}")
        # the columns read below only: a system's rows of every column were a copy of a third
        # of the table per decision
        table = cv.table[[c for c in ("case_id", "model", "verdict", "source") if c in cv.table]]
        rows = table[table["model"] == decision.model] if len(table) else table
        if errors is not None and (decision.n_unmeasured or cv.metric is None):
            own = errors[errors["metric"].isin(check.metrics) & (errors["model"] == decision.model)]
            if decision.n_unmeasured:
                unmeasured = rows[rows["verdict"] == UNMEASURED]
                keys = {(str(r.case_id), str(r.model)) for r in unmeasured.itertuples()}
            else:  # no metric decides the check: every error of its metrics
                keys = {(str(c), decision.model) for c in own["case_id"]}
            why = unmeasured_reason(own, keys)
            if why:
                notes.append(why)
        if "source" in rows and len(rows):
            overruled = int((rows["source"] == REVIEWER).sum())
            if overruled:
                notes.append(
                    f"{overruled} case{'s' if overruled != 1 else ''} overruled by a reviewer "
                    "(rule verdict replaced; see Overrules)"
                )
        if notes:
            decision.reason = "; ".join([decision.reason, *notes]) if decision.reason else (
                "; ".join(notes))  # fmt: skip
