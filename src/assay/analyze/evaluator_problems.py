"""Evaluator-specific problems (token limits, empty embeddings, corpus metrics not computed).

An evaluator reports what a validator must know about a score it still gave, or could not
give, in ``CaseResult.details["problems"]``: a list of ``{"kind": ..., "message": ...}``
(see :func:`assay.evaluators.base.problem`; a plain string counts as kind ``"evaluator"``), as
H2O Sonar's evaluators add problems to their report. A corpus metric that could not be computed
(e.g. too few cases) is one too, with the accumulator's ``not_computed_reason`` when it gives
one. The pipeline streams the result rows into :class:`EvaluatorProblems` (a row sink), which
folds them into one ``problems.json`` entry per (model, evaluator, kind) with the number of cases
and examples.
"""

from __future__ import annotations

import json
from typing import Any

from assay.rundir.records import ResultRow

#: Case ids kept as examples per problem entry.
EXAMPLES = 5


class EvaluatorProblems:
    """Collects evaluator-reported problems; :meth:`problems` gives the ``problems.json`` entries.

    Example:
        >>> collected = EvaluatorProblems()
        >>> collected.add_case("bias", "m", "q1", {"problems": [
        ...     {"kind": "token_limit", "message": "600 tokens, over the 512-token limit"}]})
        >>> [p["message"] for p in collected.problems()]
        ['Model m: bias reported token_limit on 1 case(s), e.g. q1: 600 tokens, over the 512-token limit.']
    """  # noqa: E501

    def __init__(self) -> None:
        self._found: dict[tuple[str, str, str], dict[str, Any]] = {}

    def _record(self, model: str, evaluator: str, kind: str, message: str,
                case_id: str | None) -> None:
        entry = self._found.setdefault((model, evaluator, kind),
                                       {"n": 0, "message": message, "case_ids": []})
        entry["n"] += 1
        if case_id is not None and len(entry["case_ids"]) < EXAMPLES:
            entry["case_ids"].append(case_id)

    def add_case(self, evaluator: str, model: str, case_id: str, details: Any) -> None:
        """Take the problems in one case result's details (anything else is ignored)."""
        found = details.get("problems") if isinstance(details, dict) else None
        for item in found or ():
            if isinstance(item, dict):
                kind, message = str(item.get("kind", "evaluator")), str(item.get("message", ""))
            else:
                kind, message = "evaluator", str(item)
            self._record(model, evaluator, kind, message, case_id)

    def add(self, rows: list[ResultRow]) -> None:
        """Row sink: take the problems in the details of a batch of result rows (the engine
        puts a case's details, as JSON, on its primary-metric row)."""
        for row in rows:
            text = row["details"]
            if row["primary"] and text is not None and '"problems"' in text:
                self.add_case(row["evaluator"], row["model"] or "", row["case_id"],
                              json.loads(text))

    def add_corpus(self, evaluator: str, model: str, metric: str, reason: str | None) -> None:
        """A corpus metric of ``model`` that could not be computed, and why."""
        self._record(model, evaluator, "corpus_metric_not_computed",
                     f"{metric} not computed: {reason or 'no case could be scored'}", None)

    def problems(self) -> list[dict[str, Any]]:
        """One entry per (model, evaluator, kind), in the order first seen."""
        out = []
        for (model, evaluator, kind), entry in self._found.items():
            ids = entry["case_ids"]
            where = (f" on {entry['n']} case(s), e.g. {ids[0]}" if ids else "")
            out.append({
                "kind": "evaluator_problem",
                "problem": kind,
                "severity": "medium",
                "model": model,
                "evaluator": evaluator,
                "message": (f"Model {model or '(unnamed)'}: {evaluator} reported {kind}{where}: "
                            f"{entry['message'].rstrip('.')}."),
                "evidence": {"n_cases": entry["n"] if ids else 0, "case_ids": ids},
            })
        return out
