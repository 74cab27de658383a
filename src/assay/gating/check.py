"""Gate a run on its verdict. Data for CI (pytest plugin, JUnit XML, assertions).

The gate decides nothing of its own (DESIGN §15): a run is decided by its implicit plan through
the verdict's rules (:func:`assay.verdict.implicit.assess_run`, the code ``assay assess`` runs),
and each gate check is one system × check of that assessment. A FAIL fails the gate; so does an
INCONCLUSIVE check (unmeasured beyond its tolerance, or too few cases to decide) and a run with
nothing decided, unless ``require_measured`` is turned off. Naming a metric the run does not
decide is always a failure: the gate would otherwise pass silently on a typo.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import RunGateError

if TYPE_CHECKING:
    from assay.rundir.run import EvaluationRun

PASS, FAIL, INCONCLUSIVE = "pass", "fail", "inconclusive"
#: Exit status of ``assay junit RUN --check`` per overall outcome (as ``assay assess``).
EXIT_CODES = {PASS: 0, FAIL: 1, INCONCLUSIVE: 3}


@dataclass
class GateResult:
    """Outcome of :func:`check_run`: every check with its status, and the failures."""

    checks: list[dict[str, Any]] = field(default_factory=list)
    #: whether an INCONCLUSIVE check (or nothing decided) fails the gate
    require_measured: bool = True

    @property
    def failures(self) -> list[dict[str, Any]]:
        """Checks that fail the gate: FAIL, and INCONCLUSIVE when measurement is required."""
        failing = {FAIL, INCONCLUSIVE} if self.require_measured else {FAIL}
        return [c for c in self.checks if c["status"] in failing]

    @property
    def passed(self) -> bool:
        """True when no check fails the gate."""
        return not self.failures

    @property
    def exit_code(self) -> int:
        """0 when the gate passes, 1 when a check FAILs, 3 when only undecided checks fail it."""
        if self.passed:
            return EXIT_CODES[PASS]
        if any(c["status"] == FAIL for c in self.failures):
            return EXIT_CODES[FAIL]
        return EXIT_CODES[INCONCLUSIVE]

    def message(self) -> str:
        """A readable summary: one line per failure."""
        if self.passed:
            undecided = sum(c["status"] == INCONCLUSIVE for c in self.checks)
            extra = f", {undecided} inconclusive (allowed)" if undecided else ""
            return f"run passes: {len(self.checks)} checks, none failing{extra}"
        lines = [f"run fails {len(self.failures)} of {len(self.checks)} checks:"]
        lines += [f"  - {c['name']}: {c['message']}" for c in self.failures]
        return "\n".join(lines)


def _as_run(run: EvaluationRun | str | Path) -> EvaluationRun:
    if isinstance(run, str | Path):
        from assay.rundir.run import load_run

        return load_run(run)
    return run


def _gate_check(decision: Any, stated: Mapping[str, Any]) -> dict[str, Any]:
    model = decision.model or "(unnamed)"
    return {
        "kind": "check",
        "name": f"{model}::{decision.dimension}::{decision.check}",
        "model": decision.model,
        "dimension": decision.dimension,
        "check": decision.check,
        "metric": stated["metric"],
        "threshold": stated["threshold"],
        "value": decision.estimate,
        "status": decision.decision.lower(),
        "message": f"{decision.decision} [{stated['rule']}, {decision.appetite}]: "
        f"{decision.reason}",
    }


def _failed(name: str, metric: str | None, message: str) -> dict[str, Any]:
    return {"kind": "check", "name": name, "model": None, "metric": metric, "status": FAIL,
            "message": message}  # fmt: skip


def check_run(
    run: EvaluationRun | str | Path,
    *,
    metrics: Iterable[str] | None = None,
    models: Iterable[str] | None = None,
    thresholds: Mapping[str, float] | None = None,
    require_measured: bool = True,
) -> GateResult:
    """Gate a run (or run directory) on its verdict under the implicit plan.

    Args:
        run: an :class:`EvaluationRun` or the path of a run directory.
        metrics: gate only the checks of these metrics (default: every check of the plan).
        models: systems to gate (default: all).
        thresholds: metric → threshold overriding the run's (the plan's checks use them).
        require_measured: an INCONCLUSIVE check, or a run with nothing decided, fails the gate
            (default); False lets only FAIL fail it.

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a", expected_answer="b")],
        ...                ["exact_match"])
        >>> result = check_run(run)  # one wrong answer: too few to decide, and never a pass
        >>> result.passed, result.failures[0]["name"], result.exit_code
        (False, 'm::qa::correct answers (exact_match)', 3)
    """
    from assay.verdict.implicit import assess_run

    run = _as_run(run)
    verdict = assess_run(run, thresholds=thresholds)
    stated = {c.check.name: c.as_dict() for c in verdict.implicit.checks}
    wanted = None if metrics is None else list(dict.fromkeys(metrics))
    model_set = None if models is None else set(models)
    result = GateResult(require_measured=require_measured)
    present = {r["metric"] for r in run.leaderboard}
    decided = {c["metric"] for c in stated.values()}
    for metric in wanted or []:
        if metric not in present:
            result.checks.append(_failed(f"*::{metric}", metric, "metric not in this run"))
        elif metric not in decided:
            result.checks.append(
                _failed(f"*::{metric}", metric, "no threshold: pass one in 'thresholds'")
            )
    for decision in verdict.assessment.decisions:
        check = stated[decision.check]
        if wanted is not None and check["metric"] not in wanted:
            continue
        if model_set is not None and decision.model not in model_set:
            continue
        result.checks.append(_gate_check(decision, check))
    if not result.checks:
        result.checks.append(
            {"kind": "check", "name": "verdict", "model": None, "metric": None,
             "status": INCONCLUSIVE,
             "message": "nothing decided: no check of the implicit plan covers this selection "
             "(a metric needs a threshold to be decided)"}
        )  # fmt: skip
    return result


def assert_run_passes(run: EvaluationRun | str | Path, **options: Any) -> GateResult:
    """Raise :class:`RunGateError` (an AssertionError) unless the run passes :func:`check_run`.

    Use it in a team's own test-suite to fail the build when a run misses its thresholds.

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", actual_answer="a", expected_answer="a")],
        ...                ["exact_match"])
        >>> assert_run_passes(run, require_measured=False).passed
        True
    """
    result = check_run(run, **options)
    if not result.passed:
        raise RunGateError(result.message())
    return result
