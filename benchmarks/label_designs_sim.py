"""One seeded repetition of the four labelling workflows of bench_label_designs.py on a population.

Every draw is made by the shipped :func:`assay.label.sample.draw_round` and every bound by the
shipped :func:`assay.verdict.estimate.design_bounds` (with the look level of
:mod:`assay.verdict.looks`); the machine's P(PASS) comes from the shipped isotonic calibrator of
:mod:`assay.calibrate`, fitted on every system's labels pooled, as the verdict fits one calibrator
per check. Nothing here re-implements an estimator: this module only plays the labeller.

Workflows (labels in all, split evenly across the systems by :func:`split_budget`, rounds of
:data:`ROUND`):

* ``uniform`` — rounds drawn ``uniform`` (each without replacement from the units not yet
  labelled); bounds after rounds 1, 2, 4 and 8 (100 … 800 labels in all), with the exact
  labels-only Clopper–Pearson bound on the same labels beside them, and after rounds 10 and 12
  (:data:`REFERENCE`) for the width curve the active workflow is read against.
* ``active`` — a first ``uniform`` round (no calibrator exists before any label; or a smaller
  uniform pilot, :data:`PILOT`), then ``active`` rounds (the shipped default: successive, without
  replacement, p ∝ sqrt(p (1 − p)) with the default floor); bounds at the same points.
* ``review-first`` — the app's order before design rounds existed: a first ``uniform`` round, then
  the REVIEW cases (ambiguous or empty 90 % conformal sets of the isotonic calibrator, fitted on
  half the labels and conformalized on the other half as the verdict splits them), labelled by
  hand (design ``unknown``) 100 at a time with the REVIEW set recomputed after each batch; a
  system whose REVIEW cases are all labelled gets its share as a ``uniform`` round instead (what
  ``assay labels sample`` offers next). Bounds at 200, 400 and 800 labels.
* ``decided`` — label-until-decided on the ``active`` rounds: after round ``k`` the bound is
  re-assessed as look ``k`` (level ``1 − α · 6 / (π² k²)``); a system stops at its first PASS
  (lower bound ≥ target) or FAIL (upper bound < target), else at the cap of :data:`ROUNDS` rounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.calibrate import IsotonicCalibrator
from assay.calibrate.binary import _TIE_BREAK as TIE_BREAK  # the shipped calibrator's slope
from assay.label.sample import split_budget
from assay.verdict.bounds import LOWER, UPPER, clopper_pearson
from assay.verdict.design import ACTIVE, UNIFORM, UNKNOWN, DesignRound, LabelRecord
from label_designs_data import Population

Key = tuple[str, str]
CONFIDENCE = 0.95
#: Labels in all per round (and per REVIEW batch).
ROUND = 100
#: Labels per system of a uniform pilot that starts the active workflow, the rest of the first
#: round then drawn ``active`` (None, the shipped workflow: a whole uniform first round). Screened
#: in design note 0063's amendment of 2026-12-07: a pilot of 5 or 10 saved less, not more.
PILOT: int | None = None
#: Rounds at most (the cap of label-until-decided): 800 labels in all.
ROUNDS = 8
#: Rounds after which the uniform and active workflows are assessed.
ASSESSED = (1, 2, 4, 8)
#: Rounds after which the uniform workflow is also assessed, beyond the others' 800 labels: the
#: reference curve that active labelling's width at 800 labels is read against (without it a
#: saving at 800 could not exceed 1.0×: the curve would end there).
REFERENCE = (10, 12)
#: Labels in all at which the REVIEW-first workflow is assessed.
REVIEW_BUDGETS = (200, 400, 800)
#: Conformal level of the REVIEW sets (the plan's default ``calibration.confidence``).
REVIEW_CONFIDENCE = 0.9
#: Targets of label-until-decided: the truth plus each of these.
DELTAS = (-0.05, -0.02, 0.02, 0.05)
CRITERION = "pass"


class Calibrated:
    """The verdict's machine: the shipped isotonic calibrator's map fitted on the labels given,
    pooled over systems, predicting every unit — what :func:`assay.verdict.calibration.
    calibrator_fit_predict` does for a check's deciding metric (same map, same rule for labels of
    one kind), on arrays instead of the verdict's tables: it is called some 700 times per
    repetition, so :func:`isotonic_pass_proba` computes the shipped
    :class:`~assay.calibrate.IsotonicCalibrator`'s P(PASS) with scipy's pool-adjacent-violators
    directly (equal to it exactly; ``tests/benchmarks/test_label_designs.py`` checks). Fits are
    cached by their training set within one repetition."""

    def __init__(self, population: Population) -> None:
        self.population = population
        self.cache: dict[frozenset[Key], Mapping[Key, float]] = {}

    def __call__(self, train: dict[Key, int]) -> Mapping[Key, float]:
        key = frozenset(train)
        if key not in self.cache:
            self.cache[key] = self._fit(train)
        return self.cache[key]

    def _fit(self, train: dict[Key, int]) -> Mapping[Key, float]:
        pop = self.population
        y = np.fromiter(train.values(), dtype=np.int64, count=len(train))
        if not len(y) or y.min() == y.max():
            # labels of one kind give that constant rate, as the verdict's calibrator_fit_predict
            rate = float(y.mean()) if len(y) else 0.5
            return dict.fromkeys(pop.keys, rate)
        rows = np.fromiter((pop.row[k] for k in train), dtype=np.int64, count=len(train))
        p = isotonic_pass_proba(pop.score[rows], y, pop.score)
        # a plain dict: the estimator looks units up one by one
        return dict(zip(pop.keys, p.tolist(), strict=True))


def isotonic_pass_proba(x: np.ndarray, y: np.ndarray, at: np.ndarray) -> np.ndarray:
    """P(PASS) at ``at`` of the shipped :class:`~assay.calibrate.IsotonicCalibrator` fitted on
    scores ``x`` and labels ``y`` (1 = PASS): ties averaged, pool-adjacent-violators with the
    tie counts as weights (:func:`scipy.optimize.isotonic_regression`), linear interpolation
    between the distinct scores clipped at the ends, and the calibrator's 1e-9 tie-breaking slope.

    Example:
        >>> isotonic_pass_proba(np.array([0.1, 0.2, 0.3, 0.4]), np.array([0, 1, 0, 1]),
        ...                     np.array([0.0, 0.2, 0.25, 1.0])).round(6).tolist()
        [0.0, 0.5, 0.5, 1.0]
    """
    from scipy.optimize import isotonic_regression

    order = np.argsort(x, kind="stable")
    distinct, start, counts = np.unique(x[order], return_index=True, return_counts=True)
    means = np.add.reduceat(y[order].astype(np.float64), start) / counts
    fitted = np.clip(isotonic_regression(means, weights=counts.astype(np.float64)).x, 0.0, 1.0)
    p = np.interp(at, distinct, fitted)
    span = float(distinct[-1] - distinct[0]) or 1.0
    rank = np.clip((at - distinct[0]) / span, 0.0, 1.0)
    return (1.0 - TIE_BREAK) * p + TIE_BREAK * rank


@dataclass
class Labelling:
    """The labels obtained so far in one workflow, with the rounds that drew them."""

    population: Population
    rng: np.random.Generator
    records: dict[Key, LabelRecord] = field(default_factory=dict)
    rounds: list[DesignRound] = field(default_factory=list)

    def pools(self) -> dict[str, int]:
        """Units not yet labelled, per system."""
        pop = self.population
        out = {s: pop.size(s) for s in pop.systems}
        for _, system in self.records:
            out[system] -= 1
        return out

    def draw(
        self, design: str, budget: int | Mapping[str, int], p_pass: Mapping[Key, float] | None
    ) -> None:
        """Draw a round by ``design`` (shipped :func:`draw_round`) and label its units."""
        from assay.label.sample import draw_round

        pop = self.population
        rnd = draw_round(
            pop.keys, p_pass, budget, design, rng=self.rng, known=self.records.keys(),
            criterion=CRITERION, number=len(self.rounds) + 1,
        )  # fmt: skip
        self.rounds.append(rnd)
        for d in rnd.draws:
            key = (d.case_id, d.model)
            value = int(pop.label[pop.row[key]])
            self.records[key] = LabelRecord(
                CRITERION, value, design, "simulation", rnd.number, d.probability
            )

    def hand_label(self, keys: list[Key]) -> None:
        """Label units chosen by hand (design ``unknown``)."""
        pop = self.population
        for key in keys:
            value = int(pop.label[pop.row[key]])
            self.records[key] = LabelRecord(CRITERION, value, UNKNOWN, "simulation")

    def labels(self) -> dict[Key, int]:
        return {k: r.value for k, r in self.records.items()}


def bounds(
    lab: Labelling, machine: Calibrated, look: int, seed: int, systems: list[str] | None = None
) -> dict[str, tuple[Any, Any]]:
    """The shipped design-based bounds per system (look ``look``; every system by default)."""
    from assay.verdict.estimate import design_bounds

    pop = lab.population
    out = {}
    for system in pop.systems if systems is None else systems:
        units = [k for k in pop.keys if k[1] == system]
        out[system] = design_bounds(
            units, lab.records, lab.rounds, confidence=CONFIDENCE, look=look,
            fit_predict=machine, seed=seed,
        )  # fmt: skip
    return out


def _row(
    workflow: str, n_all: int, lab: Labelling, system: str, low: Any, high: Any
) -> dict[str, Any]:
    n_system = sum(1 for _, s in lab.records if s == system)
    return {
        "workflow": workflow, "n_all": n_all, "system": system, "n_system": n_system,
        "lower": low.bound, "upper": high.bound, "method_lower": low.method,
        "method_upper": high.method, "lam": low.lam,
    }  # fmt: skip


def _active_p(lab: Labelling, machine: Calibrated) -> Mapping[Key, float] | None:
    """P(PASS) for an active draw: the calibrator on every label so far (None before any)."""
    predicted = machine(lab.labels()) if lab.records else {}
    return predicted or None


def sequential(population: Population, design: str, seed: int) -> tuple[list[dict], list[dict]]:
    """The ``uniform`` or ``active`` workflow; for ``active`` also label-until-decided.

    Returns:
        rows of bounds at :data:`ASSESSED` (and :data:`REFERENCE` for ``uniform``; look 1), and
        for ``active`` the decisions.
    """
    rng = np.random.default_rng(seed)
    lab = Labelling(population, rng)
    machine = Calibrated(population)
    rows: list[dict] = []
    looks: list[dict[str, tuple[Any, Any]]] = []
    labelled: list[dict[str, int]] = []
    open_ = list(population.systems)  # systems some target of label-until-decided still awaits
    assessed = ASSESSED + REFERENCE if design == UNIFORM else ASSESSED
    for number in range(1, (max(assessed) if design == UNIFORM else ROUNDS) + 1):
        use = UNIFORM if design == UNIFORM or (number == 1 and PILOT is None) else ACTIVE
        budget = ROUND
        if use == ACTIVE and number == 1:  # the pilot, then the rest of the round
            assert PILOT is not None
            pilot = split_budget(min(ROUND, PILOT * len(population.systems)), lab.pools(), UNIFORM)
            lab.draw(UNIFORM, pilot, None)
            budget = ROUND - sum(pilot.values())
        p_pass = _active_p(lab, machine) if use == ACTIVE else None
        lab.draw(use, split_budget(budget, lab.pools(), use), p_pass)
        per = bounds(lab, machine, 1, seed) if number in assessed else {}
        if number in assessed:
            for system, (low, high) in per.items():
                row = _row(design, number * ROUND, lab, system, low, high)
                if design == UNIFORM:
                    ys = [r.value for k, r in lab.records.items() if k[1] == system]
                    k, n = int(sum(ys)), len(ys)
                    row["cp_lower"] = clopper_pearson(k, n, CONFIDENCE, LOWER).bound
                    row["cp_upper"] = clopper_pearson(k, n, CONFIDENCE, UPPER).bound
                rows.append(row)
        if design == ACTIVE:
            look = per if number == 1 else bounds(lab, machine, number, seed, open_)
            looks.append(look)
            labelled.append(
                {s: sum(1 for _, t in lab.records if t == s) for s in population.systems}
            )
            open_ = [s for s in open_ if not _all_decided(population, s, look[s])]
    decisions = _decisions(population, looks, labelled) if design == ACTIVE else []
    return rows, decisions


def targets(truth: float) -> list[tuple[float, float]]:
    """(offset, target) of label-until-decided for a true rate: the truth plus each of
    :data:`DELTAS`, where inside (0, 1)."""
    return [(d, round(truth + d, 6)) for d in DELTAS if 0.0 < round(truth + d, 6) < 1.0]


def _all_decided(population: Population, system: str, bound: tuple[Any, Any]) -> bool:
    """Whether the system's bound decides every target of label-until-decided."""
    low, high = bound
    return all(low.bound >= t or high.bound < t for _, t in targets(population.truth(system)))


def _decisions(
    population: Population, looks: list[dict[str, tuple[Any, Any]]], labelled: list[dict[str, int]]
) -> list[dict[str, Any]]:
    """Each system's decision at each target: its first decided look, else INCONCLUSIVE."""
    out = []
    for system in population.systems:
        for delta, target in targets(population.truth(system)):
            decision, used, at = "INCONCLUSIVE", labelled[-1][system], len(looks)
            for k, per in enumerate(looks, start=1):
                if system not in per:
                    break  # decided at every target at an earlier look
                low, high = per[system]
                if low.bound >= target:
                    decision, used, at = "PASS", labelled[k - 1][system], k
                    break
                if high.bound < target:
                    decision, used, at = "FAIL", labelled[k - 1][system], k
                    break
            out.append({
                "system": system, "delta": delta, "target": target, "decision": decision,
                "labels": used, "look": at,
            })  # fmt: skip
    return out


def _review_units(lab: Labelling, rng: np.random.Generator) -> set[Key]:
    """Unlabelled units whose 90 % conformal set is not a single label (REVIEW), as the verdict
    computes them: the isotonic calibrator fitted on half the labels, conformalized on the rest."""
    pop = lab.population
    keys = list(lab.records)
    y = np.array([lab.records[k].value for k in keys])
    order = rng.permutation(len(keys))
    fit, conf = order[: len(keys) // 2], order[len(keys) // 2 :]
    if len(set(y[fit].tolist())) < 2 or len(set(y[conf].tolist())) < 2:
        return set()
    rows = np.array([pop.row[k] for k in keys])
    calibrator = IsotonicCalibrator().fit(pop.score[rows[fit]], y[fit])
    calibrator.conformalize(pop.score[rows[conf]], y[conf], alpha=1.0 - REVIEW_CONFIDENCE)
    review = calibrator.needs_review(pop.score)
    return {k for k, flag in zip(pop.keys, review, strict=True) if flag and k not in lab.records}


def review_first(population: Population, seed: int) -> list[dict]:
    """The REVIEW-first workflow (module docstring); bounds at :data:`REVIEW_BUDGETS`."""
    rng = np.random.default_rng(seed)
    lab = Labelling(population, rng)
    machine = Calibrated(population)
    lab.draw(UNIFORM, split_budget(ROUND, lab.pools(), UNIFORM), None)
    rows: list[dict] = []
    for total in range(2 * ROUND, max(REVIEW_BUDGETS) + 1, ROUND):
        review = _review_units(lab, rng)
        shares = split_budget(ROUND, lab.pools(), UNIFORM)
        picked: list[Key] = []
        rest: dict[str, int] = {}
        for system, share in shares.items():
            mine = sorted(k for k in review if k[1] == system)
            chosen = [mine[i] for i in rng.permutation(len(mine))[:share]]
            picked += chosen
            if share > len(chosen):
                rest[system] = share - len(chosen)
        lab.hand_label(picked)
        if rest:
            lab.draw(UNIFORM, rest, None)
        if total in REVIEW_BUDGETS:
            for system, (low, high) in bounds(lab, machine, 1, seed).items():
                rows.append(_row("review-first", total, lab, system, low, high))
    return rows


def repetition(population: Population, rep: int, base_seed: int) -> dict[str, list[dict]]:
    """One repetition of every workflow, seeded by ``(base_seed, rep, workflow)``."""
    seeds = np.random.SeedSequence([base_seed, rep]).generate_state(3)
    uniform, _ = sequential(population, UNIFORM, int(seeds[0]))
    active, decisions = sequential(population, ACTIVE, int(seeds[1]))
    review = review_first(population, int(seeds[2]))
    for row in (*uniform, *active, *review):
        row["rep"] = rep
    for row in decisions:
        row["rep"] = rep
    return {"bounds": uniform + active + review, "decisions": decisions}
