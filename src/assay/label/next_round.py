"""Draw and record the next labelling round of an assessment (``assay labels sample``).

For each label criterion the chosen labelled checks read (one round per criterion and scope):
the units are the checks' in-scope units of the last assessment (``verdict_cases.csv``); the
units labelled by any of the plan's sources are ``known`` and left out of the pool; ``active``
weighs the rest by the calibrated P(PASS) of the last assessment (uniform when it has none);
the total budget is split evenly across systems (:func:`~assay.label.sample.split_budget`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from assay.errors import InvalidInputError
from assay.fileio import sha256_file
from assay.label.assessment import LabelScope, label_run_dir, load_scope
from assay.label.criteria import Criterion
from assay.label.rounds import load_rounds, next_round_number, save_round
from assay.label.sample import DEFAULT_FLOOR, active_saving, draw_round, split_budget
from assay.label.store import Store
from assay.rundir.suite_copy import suite_copy
from assay.verdict.design import ACTIVE, UNIFORM, DesignRound
from assay.verdict.labels import Key, LabelEvidence, evidence_from_store, label_evidence
from assay.verdict.plan import Check

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class DrawnRound:
    """A recorded round with what its summary shows.

    Attributes:
        round: the round as stored.
        checks: the checks it serves.
        labelled: per system, how many in-scope units were already labelled (``known``).
        asked: the design asked for (``active`` falls back to ``uniform`` without predictions).
        saving: ``active``: per system, how many times fewer labels the round needs than a
            ``uniform`` one for the same width at best, foreseen from the calibrated P(PASS) of
            its pool (:func:`~assay.label.sample.active_saving`); empty for ``uniform``.
    """

    round: DesignRound
    checks: tuple[str, ...]
    labelled: dict[str, int]
    asked: str
    saving: dict[str, float] = field(default_factory=dict)


def draw_next_rounds(
    assessment: str | Path,
    store: Store,
    budget: int,
    design: str = ACTIVE,
    *,
    criterion: str | None = None,
    checks: Sequence[str] = (),
    seed: int | None = None,
    floor: float = DEFAULT_FLOOR,
) -> list[DrawnRound]:
    """Draw and record the next round(s) for the labelled checks of an assessment.

    Args:
        assessment: the assessment directory (or its ``run``).
        store: the assessment's label store (migrated here).
        budget: labels to draw in each round, split evenly across systems.
        design: ``active`` or ``uniform``.
        criterion: only checks reading this label criterion.
        checks: only these checks (by name).
        seed: the seed of the draws (recorded); None draws one.
        floor: ``active``: the smallest probability as a share of uniform.

    Returns:
        one :class:`DrawnRound` per criterion and scope, in plan order.
    """
    run_dir = label_run_dir(assessment)
    scope = load_scope(run_dir)
    if scope is None:
        raise InvalidInputError(
            f"{assessment} is not an assessment that keeps its plan: run 'assay assess PLAN "
            "--out DIR' (this assay version) and sample for DIR"
        )
    if "store" not in scope.plan.labels.sources:
        raise InvalidInputError(
            f'the plan of {assessment} does not read the labeling app\'s store: add "store" to '
            '[labels] source (e.g. source = ["suite", "store"]) so the drawn labels count'
        )
    chosen = scope.checks([criterion] if criterion else None, checks)
    if not chosen:
        raise InvalidInputError(
            f"no labelled check of {assessment}'s plan"
            + (f" reads criterion {criterion!r}" if criterion else "")
            + ": nothing to sample for"
        )
    groups: dict[tuple[str, str], list[Check]] = {}
    for check in chosen:
        groups.setdefault((str(check.label), check.scope), []).append(check)
    store.migrate()
    copy = suite_copy(run_dir)
    if copy is None:
        raise InvalidInputError(f"{run_dir}: no suite copy (re-run 'assay assess')")
    store.bind_run(sha256_file(copy))
    _add_criteria(store, [label for label, _ in groups])
    known = _labelled(scope, run_dir, store, {label for label, _ in groups})
    _warn_open(store, known)
    seed = secrets.randbits(62) if seed is None else seed
    rng = np.random.default_rng(seed)
    number = next_round_number(store)
    out = []
    for (label, scope_name), members in groups.items():
        units = scope.units(members)
        if not units:
            logger.warning("checks %s have no unit in scope: no round drawn", _names(members))
            continue
        used = design
        p_pass = scope.p_pass(members) if design == ACTIVE else {}
        if design == ACTIVE and not p_pass:
            logger.warning(
                "the last assessment gives no calibrated P(PASS) for %s: drawing uniformly",
                _names(members),
            )
            used = UNIFORM
        in_scope = set(units)
        labelled = {key for key in known.get(label, set()) if key in in_scope}
        pools: dict[str, int] = {}
        for case_id, model in units:
            pools[model] = pools.get(model, 0) + ((case_id, model) not in labelled)
        if not any(pools.values()):
            logger.warning(
                "every unit of %s is labelled already (a census): no round drawn", _names(members)
            )
            continue
        drawn = draw_round(
            units,
            p_pass,
            split_budget(budget, pools, used),
            used,
            rng=rng,
            floor=floor,
            known=labelled,
            criterion=label,
            scope=scope_name,
            number=number,
            drawn_at=datetime.now(UTC).isoformat(timespec="seconds"),
        )
        saved = save_round(store, drawn, budget=budget, seed=seed)
        counts = {m: sum(1 for _, model in labelled if model == m) for m in sorted(pools)}
        saving = _foreseen_saving(units, labelled, p_pass, floor) if used == ACTIVE else {}
        out.append(DrawnRound(saved, _names(members), counts, design, saving))
        logger.info("round %d drawn: %s, %d units", number, used, len(saved.draws))
        number += 1
    return out


def _foreseen_saving(
    units: Sequence[Key], labelled: set[Key], p_pass: dict[Key, float], floor: float
) -> dict[str, float]:
    """Per system, :func:`~assay.label.sample.active_saving` over its pool (units not labelled)."""
    pools: dict[str, list[float | None]] = {}
    for key in units:
        if key not in labelled:
            pools.setdefault(key[1], []).append(p_pass.get(key))
    return {model: active_saving(p, floor) for model, p in sorted(pools.items())}


def _names(checks: Sequence[Check]) -> tuple[str, ...]:
    return tuple(c.name for c in checks)


def _add_criteria(store: Store, labels: Sequence[str]) -> None:
    """Record each round's criterion as binary (a round's labels are PASS / FAIL)."""
    recorded = {c.name: c for c in store.criteria()}
    for label in labels:
        if label in recorded and recorded[label].kind != "binary":
            raise InvalidInputError(
                f"criterion {label!r} is recorded as {recorded[label].spec()} in "
                f"{store.safe_url}; a check's label must be binary (PASS / FAIL)"
            )
    new = [Criterion(label, "binary", 0, 1) for label in labels if label not in recorded]
    if new:
        store.set_criteria([*recorded.values(), *new])


def _labelled(
    scope: LabelScope, run_dir: Path, store: Store, labels: set[str]
) -> dict[str, set[Key]]:
    """Per criterion, the units any of the plan's sources labels (the store read at its URL)."""
    outside = scope.plan.model_copy(
        update={
            "labels": scope.plan.labels.model_copy(
                update={"source": [s for s in scope.plan.labels.sources if s != "store"] or "none"}
            )
        }
    )
    cases = []
    if "suite" in scope.plan.labels.sources:
        from assay.data.suite import iter_suite

        copy = suite_copy(run_dir)
        assert copy is not None
        cases = [case for chunk in iter_suite(copy, keys_unique=True) for case in chunk]
    evidence: LabelEvidence = label_evidence(outside, cases, None)
    evidence.merge(evidence_from_store(run_dir, labels, url=store.url))
    return {label: set(evidence.records.get(label, {})) for label in labels}


def _warn_open(store: Store, known: dict[str, set[Key]]) -> None:
    """Say when earlier rounds still have unlabelled draws (label them first: a round is worth
    most when finished)."""
    for earlier in load_rounds(store, list(known)):
        waiting = sum((d.case_id, d.model) not in known[earlier.criterion] for d in earlier.draws)
        if waiting:
            logger.warning(
                "round %d (%s) still has %d of %d draws unlabelled",
                earlier.number,
                earlier.criterion,
                waiting,
                len(earlier.draws),
            )
