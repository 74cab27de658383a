"""Threshold selection from human labels: every method reports its threshold, held-out
Type I / II error rates and a bootstrap confidence interval.

The labelled cases are split (stratified) into a *fit* part, on which the method picks its
threshold, and a *held-out* part, on which its errors are measured. The interval comes from
re-running the method on label-stratified bootstrap resamples of the fit part. Methods:

* ``normal`` — risk appetite → confidence level → ``μ − z·σ`` of the PASS scores;
* ``kfold`` — K-fold cross-validated thresholds of a base method (mean or max of the folds);
* ``kde`` — midpoint between the kernel density estimates of PASS and FAIL scores;
* ``logistic_youden`` / ``logistic_false_pass`` — logistic regression and its ROC curve;
* ``spline`` — a GAM-style spline logistic model;
* ``conformal`` — a threshold with a guaranteed false-pass rate.

Every method is on :data:`THRESHOLD_METHODS`, which installed plugins extend through the
``assay.thresholds`` entry-point group: an entry point names a rule
``rule(scores, labels, **params) -> (threshold, details)`` that sees PASS as label 1 and
higher-is-better scores, like the built-ins of :mod:`assay.calibrate.threshold_methods`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from assay.calibrate._arrays import FloatArray, IntArray, as_binary, as_scores, check_same_length
from assay.calibrate.diagnostics import error_rates
from assay.calibrate.separation import bootstrap_indices
from assay.calibrate.threshold_methods import RULES, Rule, confidence_level
from assay.errors import InvalidInputError
from assay.params import check, check_choice, check_int
from assay.registry import GROUPS, Registry

#: The built-in methods, in report order (the default of :func:`select_thresholds`).
METHODS: tuple[str, ...] = ("normal", "kfold", *[m for m in RULES if m != "normal"])


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


@dataclass
class ThresholdResult:
    """The outcome of one threshold method on one metric.

    ``threshold`` is on the metric's own scale (a case passes when ``score >= threshold``, or
    ``<=`` for lower-is-better metrics); ``None`` means no score can be trusted to pass.
    ``held_out`` holds the confusion and the Type I (false fail) / Type II (false pass) rates.
    """

    metric: str
    method: str
    threshold: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    higher_is_better: bool
    held_out: dict[str, Any]
    n_fit: int
    n_held_out: int
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def type_i(self) -> float | None:
        """Held-out false-fail rate."""
        value: float | None = self.held_out.get("type_i")
        return value

    @property
    def type_ii(self) -> float | None:
        """Held-out false-pass rate."""
        value: float | None = self.held_out.get("type_ii")
        return value

    def to_dict(self) -> dict[str, Any]:
        """JSON-serialisable form."""
        return asdict(self)


def kfold_threshold(
    s: FloatArray,
    y: IntArray,
    *,
    base: str = "normal",
    k: int = 5,
    aggregate: str = "mean",
    seed: int = 0,
    base_params: dict[str, Any] | None = None,
) -> tuple[float, dict[str, Any]]:
    """K-fold thresholds: each fold's threshold comes from the other K−1 folds and is checked on
    the fold itself; the final threshold is the mean (or, more cautious, the max) of the K.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> s = np.concatenate([rng.normal(0, 1, 500), rng.normal(3, 1, 500)])
        >>> t, d = kfold_threshold(s, np.repeat([0, 1], 500), base="normal", k=5)
        >>> len(d["folds"]), bool(1.0 < t < 2.0)
        (5, True)
    """
    from sklearn.model_selection import StratifiedKFold

    bases = [m for m in THRESHOLD_METHODS.names() if m != "kfold"]
    check_choice(base, bases, "base", "kfold_threshold")
    check_choice(aggregate, ("mean", "max"), "aggregate", "kfold_threshold")
    check_int(k, "k", "kfold_threshold", minimum=2)
    rule = THRESHOLD_METHODS.get(base)
    params = dict(base_params or {})
    folds = []
    splitter = StratifiedKFold(n_splits=k, shuffle=True, random_state=seed)
    for train, test in splitter.split(s.reshape(-1, 1), y):
        t, _ = rule(s[train], y[train], **params)
        folds.append({"threshold": _finite(t), **_rates(y[test], s[test] >= t)})
    values = np.array([f["threshold"] if f["threshold"] is not None else math.inf for f in folds])
    final = float(values.mean() if aggregate == "mean" else values.max())
    details = {
        "base": base,
        "k": k,
        "aggregate": aggregate,
        "folds": folds,
        "mean_fold_type_i": _mean([f["type_i"] for f in folds]),
        "mean_fold_type_ii": _mean([f["type_ii"] for f in folds]),
    }
    return final, details


def _rates(y: IntArray, decisions: np.ndarray) -> dict[str, Any]:
    r = error_rates(y, decisions)
    return {"type_i": r["type_i"], "type_ii": r["type_ii"]}


def _mean(values: list[float | None]) -> float | None:
    kept = [v for v in values if v is not None]
    return float(np.mean(kept)) if kept else None


#: Every threshold method by name: the built-ins, then plugins of ``assay.thresholds``.
THRESHOLD_METHODS: Registry[Rule] = Registry("threshold method", GROUPS["threshold method"])
THRESHOLD_METHODS.register("kfold", kfold_threshold)
for _name, (_rule, _fixed) in RULES.items():
    THRESHOLD_METHODS.register(_name, functools.partial(_rule, **_fixed) if _fixed else _rule)


def _method_params(
    method: str, confidence: float, false_pass_rate: float, seed: int, extra: dict[str, Any]
) -> tuple[Rule, dict[str, Any]]:
    rule = THRESHOLD_METHODS.get(method)
    if method == "kfold":
        base = extra.get("base", "normal")
        base_params = dict(extra.get("base_params") or {})
        if base == "normal":
            base_params.setdefault("confidence", confidence)
        if base in ("conformal", "logistic_false_pass"):
            base_params.setdefault("false_pass_rate", false_pass_rate)
        return rule, {**extra, "base": base, "base_params": base_params, "seed": seed}
    params: dict[str, Any] = {}
    if method == "normal":
        params["confidence"] = confidence
    if method in ("conformal", "logistic_false_pass"):
        params["false_pass_rate"] = false_pass_rate
    return rule, {**params, **extra}


def select_thresholds(
    scores: Any,
    labels: Any,
    methods: Sequence[str] = METHODS,
    *,
    metric: str = "score",
    higher_is_better: bool = True,
    pass_at: float | None = None,
    risk: str | float = "moderate",
    false_pass_rate: float | None = None,
    held_out: float = 0.3,
    n_boot: int = 200,
    ci: float = 0.95,
    seed: int = 0,
    params: dict[str, dict[str, Any]] | None = None,
) -> list[ThresholdResult]:
    """Run several threshold methods on one metric, all on the same fit / held-out split.

    Args:
        scores: the metric's scores (1-D).
        labels: human labels (binary, or graded with ``pass_at``).
        methods: names on :data:`THRESHOLD_METHODS` (the built-in :data:`METHODS` by default).
        metric: name recorded in the results.
        higher_is_better: direction of the metric.
        pass_at: graded labels ``>= pass_at`` are PASS.
        risk: risk appetite (``high``/``moderate``/``low``) or a confidence level in (0, 1).
        false_pass_rate: target for the false-pass methods; default ``1 − confidence``.
        held_out: fraction of cases kept aside to measure Type I / II errors.
        n_boot: bootstrap resamples for the threshold's interval (0: no interval).
        ci: level of that interval.
        seed: seed of the split, the folds and the bootstrap.
        params: extra parameters per method, e.g. ``{"kfold": {"k": 10, "aggregate": "max"}}``.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> s = np.concatenate([rng.normal(0, 1, 400), rng.normal(3, 1, 400)])
        >>> res = select_thresholds(s, np.repeat([0, 1], 400), ["normal", "conformal"], n_boot=20)
        >>> [(r.method, round(r.threshold, 1)) for r in res]
        [('normal', 1.3), ('conformal', 1.5)]
    """
    where = "select_thresholds"
    x = as_scores(scores, where)
    check(x.shape[1] == 1, "scores", where, "a single metric column", x.shape)
    y = as_binary(labels, where, pass_at=pass_at)
    check_same_length(x, y, where)
    check(0 < held_out < 1, "held_out", where, "a fraction in (0, 1)", held_out)
    check(0 < ci < 1, "ci", where, "in (0, 1)", ci)
    check_int(n_boot, "n_boot", where, minimum=0)
    confidence = confidence_level(risk)
    fpr = 1.0 - confidence if false_pass_rate is None else false_pass_rate
    check(0 < fpr < 1, "false_pass_rate", where, "in (0, 1)", fpr)
    counts = np.bincount(y, minlength=2)
    if counts.min() < 4:
        raise InvalidInputError(
            f"{where}: threshold selection needs at least 4 PASS and 4 FAIL cases (2 of each to "
            f"fit, the rest held out); got {counts[1]} PASS and {counts[0]} FAIL"
        )
    sign = 1.0 if higher_is_better else -1.0
    s = x[:, 0] * sign

    from sklearn.model_selection import train_test_split

    fit_idx, test_idx = train_test_split(
        np.arange(len(y)), test_size=held_out, stratify=y, random_state=seed
    )
    s_fit, y_fit, s_test, y_test = s[fit_idx], y[fit_idx], s[test_idx], y[test_idx]
    boot = bootstrap_indices(y_fit, n_boot, seed + 1) if n_boot else np.empty((0, 0), dtype=int)
    results = []
    for method in methods:
        rule, kw = _method_params(
            method, confidence, fpr, seed, dict((params or {}).get(method, {}))
        )
        t, details = rule(s_fit, y_fit, **kw)
        boots = np.array([_resampled(rule, s_fit[i], y_fit[i], kw) for i in boot])
        low = high = None
        if boots.size:
            failed = np.isnan(boots)
            boots = boots[~failed]
            details["bootstrap_failed"] = int(failed.sum())
            details["bootstrap_infinite"] = int(np.isinf(boots).sum())
            if boots.size:
                tail = (1 - ci) / 2
                # order statistics, no interpolation: +inf ("nothing passes") sorts last
                q = np.quantile(boots, [tail, 1 - tail], method="inverted_cdf")
                low, high = sorted((q[0] * sign, q[1] * sign))
        results.append(
            ThresholdResult(
                metric=metric,
                method=method,
                threshold=_finite(t * sign),
                ci_low=_finite(low) if low is not None else None,
                ci_high=_finite(high) if high is not None else None,
                confidence=ci,
                higher_is_better=higher_is_better,
                held_out=error_rates(y_test, s_test >= t),
                n_fit=len(fit_idx),
                n_held_out=len(test_idx),
                details={
                    "risk_confidence": confidence,
                    "false_pass_target": fpr,
                    **_jsonable(details),
                },
            )
        )
    return results


def _resampled(rule: Any, s: FloatArray, y: IntArray, kw: dict[str, Any]) -> float:
    """The rule's threshold on one resample; NaN when the rule cannot run on it."""
    try:
        return float(rule(s, y, **kw)[0])
    except InvalidInputError:
        return math.nan


def _jsonable(details: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in details.items():
        if isinstance(value, float) and not math.isfinite(value):
            out[key] = None
        elif isinstance(value, np.generic):
            out[key] = value.item()
        else:
            out[key] = value
    return out
