"""Labelling rounds in the label store: what ``assay labels sample`` drew, read back as
:class:`~assay.verdict.design.DesignRound` (design note 0063).

A round is stored with its criterion, scope, design, sampling scheme, time, floor, budget and
seed; per system its pool size; each draw with its selection probability, how many times it was
drawn and its place in the serving order; and the units already labelled when it was drawn
(``known``). The serving order is a seeded random permutation of the draws: annotators who stop
half-way leave a random subset of the round labelled, not the first cases in some order that
could follow the outcome. An ``active`` round drawn ``successive`` is served in the order drawn
within each system (the systems taking turns in a seeded order): Des Raj's estimator reads that
order, and the first draws of a successive sample are themselves a successive sample. Rounds
recorded before the scheme was stored (schema migration 3) read as ``with-replacement``.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

import numpy as np

from assay.errors import InvalidInputError
from assay.label.store import Store
from assay.verdict.design import ACTIVE, SUCCESSIVE, DesignRound, Draw

Key = tuple[str, str]


def next_round_number(store: Store) -> int:
    """The number the next round will take (1 for the first)."""
    with store.transaction() as tx:
        row = tx.fetchone("SELECT MAX(number) FROM rounds")
    return int(row[0] or 0) + 1 if row else 1


def save_round(store: Store, drawn: DesignRound, *, budget: int, seed: int | None) -> DesignRound:
    """Record a drawn round; returns it with ``drawn_at`` set (now, when it was empty).

    Refused when another round took the number meanwhile (two ``assay labels sample`` at once):
    the later one must be drawn again, with the first one's draws in its ``known``-free pool.
    """
    drawn_at = drawn.drawn_at or datetime.now(UTC).isoformat(timespec="seconds")
    order = serving_order(drawn, seed)
    with store.transaction(lock=True) as tx:
        row = tx.fetchone("SELECT MAX(number) FROM rounds")
        expected = int(row[0] or 0) + 1 if row else 1
        if drawn.number != expected:
            raise InvalidInputError(
                f"round {drawn.number} cannot be recorded in {store.safe_url}: the next round "
                f"there is {expected} (another round was drawn meanwhile); draw again"
            )
        inserted = tx.fetchone(
            "INSERT INTO rounds (number, criterion, scope, design, drawn_at, floor, budget, seed, "
            "sampling) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            (
                drawn.number,
                drawn.criterion,
                drawn.scope,
                drawn.design,
                drawn_at,
                float(drawn.floor),
                int(budget),
                seed,
                drawn.sampling,
            ),
        )
        round_id = int(inserted[0])
        for model, size in drawn.pool_sizes.items():
            tx.execute(
                "INSERT INTO round_pools (round_id, model, pool_size) VALUES (?, ?, ?)",
                (round_id, model, int(size)),
            )
        for position, index in enumerate(order):
            draw = drawn.draws[int(index)]
            tx.execute(
                "INSERT INTO round_draws (round_id, case_id, model, probability, times, "
                "position) VALUES (?, ?, ?, ?, ?, ?)",
                (round_id, draw.case_id, draw.model, draw.probability, draw.times, position),
            )
        for case_id, model in sorted(drawn.known):
            tx.execute(
                "INSERT INTO round_known (round_id, case_id, model) VALUES (?, ?, ?)",
                (round_id, case_id, model),
            )
    return DesignRound(
        drawn.number,
        drawn.criterion,
        drawn.scope,
        drawn.design,
        drawn_at,
        drawn.known,
        dict(drawn.pool_sizes),
        drawn.draws,
        drawn.floor,
        {**drawn.extra, "budget": int(budget), "seed": seed},
        drawn.sampling,
    )


def serving_order(drawn: DesignRound, seed: int | None) -> np.ndarray:
    """The order the round's draws are served in (indices into ``drawn.draws``): a seeded random
    permutation; for a ``successive`` ``active`` round each system's draws in the order drawn,
    the systems taking turns in a seeded random order (module docstring).

    Example:
        >>> d = tuple(Draw(c, m, 0.5) for m in "ab" for c in "xy")
        >>> r = DesignRound(1, "ok", "all", "active", "", frozenset(), {}, d, 0.5, {}, "successive")
        >>> [d[i].case_id for i in serving_order(r, 0) if d[i].model == "a"]
        ['x', 'y']
    """
    rng = np.random.default_rng([seed or 0, drawn.number])
    if drawn.design != ACTIVE or drawn.sampling != SUCCESSIVE:
        return rng.permutation(len(drawn.draws))
    models = sorted({d.model for d in drawn.draws})
    turn = dict(zip(models, rng.permutation(len(models)).tolist(), strict=True))
    rank: dict[str, int] = {}
    keys = []
    for d in drawn.draws:
        keys.append((rank.get(d.model, 0), turn[d.model]))
        rank[d.model] = rank.get(d.model, 0) + 1
    return np.array(sorted(range(len(keys)), key=keys.__getitem__), dtype=np.int64)


def load_rounds(store: Store, criteria: Iterable[str] | None = None) -> list[DesignRound]:
    """Every recorded round (of ``criteria`` when given), in the order drawn; draws in serving
    order."""
    wanted = None if criteria is None else set(criteria)
    with store.transaction() as tx:
        rounds = tx.fetchall(
            "SELECT id, number, criterion, scope, design, drawn_at, floor, budget, seed, sampling "
            "FROM rounds ORDER BY number"
        )
        pools = tx.fetchall("SELECT round_id, model, pool_size FROM round_pools ORDER BY model")
        draws = tx.fetchall(
            "SELECT round_id, case_id, model, probability, times FROM round_draws "
            "ORDER BY round_id, position"
        )
        known = tx.fetchall("SELECT round_id, case_id, model FROM round_known")
    by_round: dict[int, dict[str, Any]] = {
        int(r[0]): {"pools": {}, "draws": [], "known": set()} for r in rounds
    }
    for round_id, model, size in pools:
        by_round[int(round_id)]["pools"][str(model)] = int(size)
    for round_id, case_id, model, probability, times in draws:
        by_round[int(round_id)]["draws"].append(
            Draw(str(case_id), str(model), float(probability), int(times))
        )
    for round_id, case_id, model in known:
        by_round[int(round_id)]["known"].add((str(case_id), str(model)))
    out = []
    for row in rounds:
        if wanted is not None and row[2] not in wanted:
            continue
        parts = by_round[int(row[0])]
        out.append(
            DesignRound(
                number=int(row[1]),
                criterion=str(row[2]),
                scope=str(row[3]),
                design=str(row[4]),
                drawn_at=str(row[5]),
                known=frozenset(parts["known"]),
                pool_sizes=dict(parts["pools"]),
                draws=tuple(parts["draws"]),
                floor=float(row[6]),
                extra={"budget": int(row[7]), "seed": None if row[8] is None else int(row[8])},
                sampling=str(row[9]),
            )
        )
    return out


def round_of_units(
    rounds: Iterable[DesignRound],
) -> dict[tuple[str, Key], tuple[DesignRound, Draw]]:
    """(criterion, unit) → the first round that drew the unit while it was unlabelled, and the
    draw. A label of such a unit carries that round's design: its case was chosen by the round,
    whatever order the annotators then took.

    Example:
        >>> r = DesignRound(1, "ok", "all", "uniform", "", frozenset(), {"m": 2},
        ...                 (Draw("a", "m", 0.5),))
        >>> round_of_units([r])[("ok", ("a", "m"))][1].probability
        0.5
    """
    out: dict[tuple[str, Key], tuple[DesignRound, Draw]] = {}
    for drawn in sorted(rounds, key=lambda r: r.number):
        for draw in drawn.draws:
            key = (draw.case_id, draw.model)
            if key not in drawn.known:
                out.setdefault((drawn.criterion, key), (drawn, draw))
    return out
