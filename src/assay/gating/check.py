"""Gate a run: does it meet its thresholds? Data for CI (pytest plugin, JUnit XML, assertions).

A gate check is one (model, metric) aggregate compared with its threshold, or one six-dimension
verdict per model. Metrics skipped as not applicable never fail a gate unless ``require_measured``
is set (DESIGN §3); errors do: a metric in error on more than ``max_error_rate`` of its cases (5 %
by default), or on every case, fails. Naming a metric that is not in the run at all is always a
failure: the gate would otherwise pass silently on a typo.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.analyze.dimensions import FAIL, NOT_MEASURED, PASS
from assay.analyze.leaderboard import MAX_ERROR_SHARE
from assay.errors import RunGateError

if TYPE_CHECKING:
    from assay.rundir.run import EvaluationRun



@dataclass
class GateResult:
    """Outcome of :func:`check_run`: every check with its status, and the failures."""

    checks: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failures(self) -> list[dict[str, Any]]:
        """Checks whose status is ``fail``."""
        return [c for c in self.checks if c["status"] == FAIL]

    @property
    def passed(self) -> bool:
        """True when no check failed."""
        return not self.failures

    def message(self) -> str:
        """A readable summary: one line per failure."""
        if self.passed:
            return f"run passes: {len(self.checks)} checks, none failing"
        lines = [f"run fails {len(self.failures)} of {len(self.checks)} checks:"]
        lines += [f"  - {c['name']}: {c['message']}" for c in self.failures]
        return "\n".join(lines)


def _as_run(run: EvaluationRun | str | Path) -> EvaluationRun:
    if isinstance(run, str | Path):
        from assay.rundir.run import load_run

        return load_run(run)
    return run


def _metric_check(
    row: Mapping[str, Any], threshold: float | None, require_measured: bool
) -> dict[str, Any]:
    model = row["model"] or "(unnamed)"
    name = f"{model}::{row['metric']}"
    value = row["value"]
    higher = bool(row["higher_is_better"])
    base = {
        "kind": "metric",
        "name": name,
        "model": row["model"],
        "metric": row["metric"],
        "value": value,
        "threshold": threshold,
        "higher_is_better": higher,
    }
    if value is None:
        # errors never pass: a metric that errored everywhere fails the gate
        status = FAIL if require_measured or row["n_error"] else NOT_MEASURED
        counts = f"{row['n_skipped']} skipped, {row['n_error']} errors"
        return {**base, "status": status, "message": f"not measured ({counts})"}
    side = "≥" if higher else "≤"
    ok = value >= threshold if higher else value <= threshold
    message = f"{value:.4g} (needs {side} {threshold:.4g}; {row['n_ok']} cases measured)"
    return {**base, "status": PASS if ok else FAIL, "message": message}


def check_run(
    run: EvaluationRun | str | Path,
    *,
    metrics: Iterable[str] | None = None,
    models: Iterable[str] | None = None,
    thresholds: Mapping[str, float] | None = None,
    dimensions: bool | Sequence[str] = False,
    dimension_config: Mapping[str, Any] | str | Path | None = None,
    require_measured: bool = False,
    max_error_rate: float | None = MAX_ERROR_SHARE,
) -> GateResult:
    """Check a run (or run directory) against its thresholds.

    Args:
        run: an :class:`EvaluationRun` or the path of a run directory.
        metrics: metrics to gate on (default: every primary metric that has a threshold).
        models: models to gate (default: all).
        thresholds: metric → threshold overriding the run's thresholds.
        dimensions: also require six-dimension verdicts: True for every measured dimension, or
            the names of the dimensions that must be measured and pass.
        dimension_config: six-dimension configuration (see
            :func:`assay.analyze.dimensions.load_dimension_config`).
        require_measured: fail a gated metric that no case could measure.
        max_error_rate: fail a (model, metric) whose share of ``error`` outcomes exceeds this
            (default 5 %: errors never pass; None disables the check).

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a", expected_answer="b")],
        ...                ["exact_match"])
        >>> result = check_run(run)
        >>> result.passed, result.failures[0]["name"]
        (False, 'm::exact_match')
    """
    run = _as_run(run)
    thresholds = dict(thresholds or {})
    wanted = None if metrics is None else list(dict.fromkeys(metrics))
    model_set = None if models is None else set(models)
    board = [r for r in run.leaderboard if model_set is None or r["model"] in model_set]
    result = GateResult()
    present = {r["metric"] for r in board}
    for metric in wanted or []:
        if metric not in present:
            result.checks.append(
                {
                    "kind": "metric",
                    "name": f"*::{metric}",
                    "model": None,
                    "metric": metric,
                    "status": FAIL,
                    "message": "metric not in this run",
                }
            )
    for row in board:
        if wanted is None and not row["primary"]:
            continue
        if wanted is not None and row["metric"] not in wanted:
            continue
        threshold = thresholds.get(row["metric"], row["threshold"])
        if threshold is None:
            if wanted is not None:
                result.checks.append(
                    {
                        "kind": "metric",
                        "name": f"{row['model'] or '(unnamed)'}::{row['metric']}",
                        "model": row["model"],
                        "metric": row["metric"],
                        "status": FAIL,
                        "message": "no threshold: pass one in 'thresholds'",
                    }
                )
            continue
        result.checks.append(_metric_check(row, threshold, require_measured))
        if max_error_rate is not None:
            total = row["n_ok"] + row["n_skipped"] + row["n_error"]
            rate = row["n_error"] / total if total else 0.0
            if rate > max_error_rate:
                result.checks.append(
                    {
                        "kind": "errors",
                        "name": f"{row['model'] or '(unnamed)'}::{row['metric']}::errors",
                        "model": row["model"],
                        "metric": row["metric"],
                        "status": FAIL,
                        "message": f"error rate {rate:.3g} > {max_error_rate:.3g}",
                    }
                )
    if dimensions:
        result.checks.extend(_dimension_checks(run, dimensions, dimension_config, model_set))
    return result


def _dimension_checks(
    run: EvaluationRun,
    dimensions: bool | Sequence[str],
    config: Mapping[str, Any] | str | Path | None,
    models: set[str] | None,
) -> list[dict[str, Any]]:
    from assay.analyze.dimensions import load_dimension_config, summarize_dimensions

    summary = summarize_dimensions(run.leaderboard, run.results, load_dimension_config(config))
    named = None if dimensions is True else set(dimensions)  # type: ignore[arg-type]
    known = {d["name"] for d in summary}
    checks = []
    for name in sorted((named or set()) - known):
        checks.append(
            {
                "kind": "dimension",
                "name": f"dimension::{name}",
                "model": None,
                "metric": None,
                "status": FAIL,
                "message": f"unknown dimension (known: {', '.join(sorted(known))})",
            }
        )
    for dim in summary:
        if named is not None and dim["name"] not in named:
            continue
        for model, status in dim["models"].items():
            if models is not None and model not in models:
                continue
            failing = [c for c in dim["checks"] if c["model"] == model and c["status"] == FAIL]
            if status == FAIL:
                message = "; ".join(f"{c['label']} ({c['metric']}): {c['detail']}" for c in failing)
            elif status == NOT_MEASURED:
                message = dim["reason"] or "not measured"
                status = FAIL if named is not None else NOT_MEASURED
            else:
                message = f"{dim['title']}: {status}"
                status = PASS if status == PASS else NOT_MEASURED
            checks.append(
                {
                    "kind": "dimension",
                    "name": f"{model or '(unnamed)'}::dimension::{dim['name']}",
                    "model": model,
                    "metric": None,
                    "status": status,
                    "message": message,
                }
            )
    return checks


def assert_run_passes(run: EvaluationRun | str | Path, **options: Any) -> GateResult:
    """Raise :class:`RunGateError` (an AssertionError) unless the run passes :func:`check_run`.

    Use it in a team's own test-suite to fail the build when a run misses its thresholds.

    Example:
        >>> from assay import TestCase, evaluate
        >>> run = evaluate([TestCase(id="1", model="m", actual_answer="a", expected_answer="a")],
        ...                ["exact_match"])
        >>> assert_run_passes(run).passed
        True
    """
    result = check_run(run, **options)
    if not result.passed:
        raise RunGateError(result.message())
    return result
