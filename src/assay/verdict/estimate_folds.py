"""Sequential cross-fitting of the design bound's predictor (design note 0063, *Amendments*).

A round's draws are split into sequential folds; fold j's P(PASS) comes from a calibrator fit on
the labels known before the round, the round's draws of other systems and the folds before j —
never on its own draws (Zrnic & Candès, *Cross-prediction-powered inference*, PNAS 2024, made
sequential so that the folds combine as a martingale and the variance needs no stability
assumption).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from assay.verdict.design import ACTIVE, DesignRound, Key
from assay.verdict.estimate_rounds import SampleRound

#: Fit a calibrator on ``(case id, system) → 1 PASS / 0 FAIL`` and return P(PASS) per unit it can
#: score (units left out have no prediction).
FitPredict = Callable[[dict[Key, int]], Mapping[Key, float]]


def sequential_folds(rnd: SampleRound, folds: int, seed: int) -> list[SampleRound]:
    """Split a round's draws into ``folds`` sequential folds (seeded, by unit).

    Fold j is, given the folds before it, again a draw of the round's design: a simple random
    sample of the pool less the earlier folds' units (which join the known units) for
    ``uniform`` / ``random``; i.i.d. draws at the recorded probabilities for ``active`` drawn with
    replacement. An ``active`` round drawn successively (``rnd.ordered``) is split into
    consecutive runs of its draw order instead, the earlier folds' units joining the known units:
    each fold is then the continuation of the successive draw from the units left, its chances
    given the draws before it as recorded. Each fold's predictor may therefore learn from the
    earlier folds, and the folds combine as a martingale whose variance is the sum of theirs.
    """
    unique = list(dict.fromkeys(rnd.draws))
    k = max(1, min(folds, len(unique) // 2))
    if k == 1:
        return [rnd]
    if rnd.ordered:
        order = np.arange(len(unique))
    else:
        order = np.random.default_rng(seed + rnd.number).permutation(len(unique))
    fold_of = {unique[i]: position * k // len(unique) for position, i in enumerate(order)}
    assigned = np.array([fold_of[d] for d in rnd.draws])
    out: list[SampleRound] = []
    earlier: list[Key] = []
    for j in range(k):
        mask = assigned == j
        keys = [d for d, chosen in zip(rnd.draws, mask, strict=True) if chosen]
        inside = set(rnd.counted)
        if rnd.design == ACTIVE and not rnd.ordered:
            known, pool, probability = rnd.known, rnd.pool, rnd.probability[mask]
        else:
            gone = set(earlier)
            known = rnd.known + [u for u in earlier if u in inside]
            pool = [u for u in rnd.pool if u not in gone]
            probability = (
                rnd.probability[mask] if rnd.ordered else np.full(len(keys), 1.0 / len(pool))
            )
        out.append(
            SampleRound(
                rnd.number,
                rnd.design,
                known,
                pool,
                keys,
                probability,
                rnd.inside[mask],
                tuple(earlier),
                floor=rnd.floor,
                ordered=rnd.ordered,
            )
        )
        earlier = earlier + list(dict.fromkeys(keys))
    return out


def fold_predictions(
    sub: SampleRound,
    rounds: Sequence[DesignRound],
    labels: Mapping[Key, int],
    predictions: Mapping[Key, float] | None,
    fit_predict: FitPredict | None,
) -> Mapping[Key, float]:
    """The predictor of a (sub-)round: fit on the labels known before its round, the round's
    draws of other systems (drawn independently of this system's) and this system's earlier
    folds — never on its own draws. Fixed ``predictions`` when there is no ``fit_predict``."""
    if fit_predict is None:
        return predictions or {}
    rnd = next(r for r in rounds if r.number == sub.number)
    model = sub.pool[0][1] if sub.pool else (sub.draws[0][1] if sub.draws else "")
    train = {k: labels[k] for k in rnd.known if k in labels}
    others = ((d.case_id, d.model) for d in rnd.draws if d.model != model)
    train.update({k: labels[k] for k in others if k in labels})
    train.update({k: labels[k] for k in sub.earlier if k in labels})
    return fit_predict(train)
