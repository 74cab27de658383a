"""The conformance check every registered evaluator must pass (DESIGN §10).

Shipped so third-party evaluators can run the same check in their own test-suites.
"""

from __future__ import annotations

import json
import math
import pickle
from collections.abc import Sequence

from assay.data.case import TestCase
from assay.evaluators.base import Evaluator, Status
from assay.testing.cases import sample_cases


def check_evaluator(evaluator: Evaluator, cases: Sequence[TestCase] | None = None) -> None:
    """Assert the generic contract of an evaluator; raise AssertionError naming the breach.

    Checks: one result per case, every declared non-corpus metric reported, values finite and in
    range, skipped/error outcomes carry a reason, missing required fields give ``skipped``,
    reproducible evaluators give identical results twice, the spec is JSON and the evaluator
    pickles without the state it keeps out of pickles (``unpickled``: resolved models, judge
    sessions, memos).
    """
    cases = list(cases if cases is not None else sample_cases())
    name = evaluator.name
    results = evaluator.evaluate(cases)
    assert len(results) == len(cases), f"{name}: {len(results)} results for {len(cases)} cases"
    per_case = [m for m in evaluator.metrics if m.aggregation != "corpus"]
    for case, result in zip(cases, results, strict=True):
        for spec in per_case:
            assert spec.name in result.outcomes, f"{name}: {spec.name} missing for {case.key}"
            outcome = result.outcomes[spec.name]
            if outcome.status is Status.OK:
                assert outcome.value is not None and math.isfinite(outcome.value)
                low, high = spec.range
                assert low - 1e-9 <= outcome.value <= high + 1e-9, (
                    f"{name}: {spec.name}={outcome.value} outside [{low}, {high}]"
                )
            else:
                assert outcome.reason, f"{name}: {outcome.status} without a reason"
    if evaluator.requires:
        bare = [TestCase(id="bare", model="m")]
        for outcome in evaluator.evaluate(bare)[0].outcomes.values():
            assert outcome.status is Status.SKIPPED, f"{name}: bare case not skipped"
            assert "missing required field" in (outcome.reason or "")
    if evaluator.reproducible:
        again = evaluator.evaluate(cases)
        for first, second in zip(results, again, strict=True):
            assert first.outcomes == second.outcomes, f"{name}: not reproducible"
    shipped = pickle.loads(pickle.dumps(results))  # a batch travels to and from Ray workers
    assert [(r.outcomes, r.explanation, r.details) for r in shipped] == [
        (r.outcomes, r.explanation, r.details) for r in results], f"{name}: batch not picklable"
    spec_json = json.loads(json.dumps(evaluator.spec()))
    assert spec_json["name"] == name and spec_json["metrics"]
    clone = pickle.loads(pickle.dumps(evaluator))
    carried = [a for a in getattr(evaluator, "unpickled", ()) if a in vars(clone)]
    assert not carried, f"{name}: pickled {carried}, which it keeps out of pickles"
    assert clone.get_params().keys() == evaluator.get_params().keys()
