"""How each human label's case was chosen: the labelling design (design note 0063).

A rate bound is valid only for the way its labelled cases were chosen (survey sampling's first
rule). Every label the verdict reads therefore carries a design:

* ``uniform`` — drawn by assay (``assay labels sample --design uniform``): a simple random sample
  without replacement of the round's pool (every in-scope unit of a system not yet labelled);
  each draw's probability is ``1 / pool_size``.
* ``active`` — drawn by assay, the probability of a unit proportional to the calibrated
  uncertainty ``sqrt(p (1 - p))`` with a floor (Zrnic & Candès, *Active Statistical Inference*,
  ICML 2024). Two sampling schemes (:attr:`DesignRound.sampling`): ``successive`` (the default
  since design note 0063's amendment of 2026-12-07) draws without replacement, one unit at a
  time with probability proportional to its weight among the units not yet drawn, and is
  estimated by Des Raj's ordered estimator (Des Raj, *Some estimators in sampling with varying
  probabilities without replacement*, JASA 1956); ``with-replacement`` (rounds recorded before
  it) is estimated by Hansen–Hurwitz, a unit drawn twice counting twice.
* ``random`` — an outside source (a CSV, the suite's ``labels``) declared in the plan to be a
  uniform random sample of the suite: one implicit ``uniform`` round with nothing known before it.
* ``unknown`` — anything else: hand-picked, REVIEW cases labelled to settle their verdict, an
  outside source not declared random. Such labels settle their own cases and count as known units
  in later rounds; they never rectify a bound as if random.

A :class:`DesignRound` is what ``assay labels sample`` draws: per system, the pool it drew from
(every in-scope unit not in ``known``) and each draw with its selection probability.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

UNIFORM, ACTIVE, RANDOM, UNKNOWN = "uniform", "active", "random", "unknown"
#: How an ``active`` round's draws were made: with replacement (Hansen–Hurwitz; every round
#: recorded before the successive scheme, and the stored default), or successively without
#: replacement in a recorded order (Des Raj's ordered estimator).
WITH_REPLACEMENT, SUCCESSIVE = "with-replacement", "successive"
#: Every sampling scheme a round may record.
SAMPLINGS = (WITH_REPLACEMENT, SUCCESSIVE)
#: Every design a label may carry.
DESIGNS = (UNIFORM, ACTIVE, RANDOM, UNKNOWN)
#: Designs whose draws have known selection probabilities (they may rectify a bound).
PROBABILITY_DESIGNS = (UNIFORM, ACTIVE, RANDOM)
#: Designs a plan may declare for an outside label source (``[labels] design``).
SOURCE_DESIGNS = (RANDOM, UNKNOWN)

Key = tuple[str, str]


def unit_columns(index: pd.MultiIndex) -> tuple[np.ndarray, np.ndarray]:
    """The case ids and systems of a (case id, system) index, row by row, as object arrays that
    share one string per distinct value.

    Iterating a ``MultiIndex`` caches a tuple per row on it, with a new string per level value
    per row from Arrow-backed levels: ~150 MB at a million units, kept as long as the index.
    """
    case_ids = index.levels[0].to_numpy(dtype=object)[index.codes[0]]
    models = index.levels[1].to_numpy(dtype=object)[index.codes[1]]
    return case_ids, models


def unit_keys(index: pd.MultiIndex) -> Iterator[Key]:
    """The (case id, system) of each row of ``index`` in order, nothing cached on the index
    (:func:`unit_columns`).

    Example:
        >>> import pandas as pd
        >>> index = pd.MultiIndex.from_tuples([("q1", "a"), ("q2", "a")])
        >>> list(unit_keys(index)), "_values" in index._cache
        ([('q1', 'a'), ('q2', 'a')], False)
    """
    case_ids, models = unit_columns(index)
    return zip(case_ids.tolist(), models.tolist(), strict=True)


def row_keys(table: pd.DataFrame) -> Iterator[Key]:
    """The (case id, system) of each row of a table with ``case_id`` and ``model`` columns, as
    texts (one string object per distinct value: :func:`_texts`).

    Example:
        >>> import pandas as pd
        >>> list(row_keys(pd.DataFrame({"case_id": ["q1"], "model": ["a"], "verdict": ["PASS"]})))
        [('q1', 'a')]
    """
    return zip(_texts(table["case_id"]), _texts(table["model"]), strict=True)


def _texts(column: pd.Series) -> list[str]:
    """A column's values as texts (``astype(str)``'s), sharing one string per distinct value.

    Reading an Arrow-backed text column row by row makes a new string per row: a system's
    name once per case (~18 MB per third of a million rows, every time a check's keys were read).
    """
    import pandas as pd

    codes, distinct = pd.factorize(column, use_na_sentinel=False)
    texts = pd.Series(distinct, dtype=column.dtype).astype(str).to_numpy(dtype=object)
    return texts[codes].tolist()


@dataclass(frozen=True, slots=True)
class Draw:
    """One draw of a round: the unit (case id, system), its selection probability over the
    system's pool, and how many times it was drawn (``active`` draws with replacement)."""

    case_id: str
    model: str
    probability: float
    times: int = 1


@dataclass(frozen=True)
class DesignRound:
    """One labelling round drawn by a declared design.

    Attributes:
        number: the round's number (1, 2, ... in the order drawn).
        criterion: the label criterion the round is for.
        scope: the check scope its pool was drawn from (``all``, ``original``, ...).
        design: ``uniform``, ``active`` or ``random``.
        drawn_at: ISO timestamp of the draw.
        known: units (case id, system) already labelled for ``criterion`` when the round was drawn
            (left out of the pool; known exactly to the round's estimator).
        pool_sizes: per system, how many units the pool held.
        draws: the draws, each with its probability.
        floor: the smallest selection probability allowed, as a share of uniform (``active``).
        extra: what the store records beside the design (budget, seed).
        sampling: ``active``: :data:`WITH_REPLACEMENT` (Hansen–Hurwitz; ``Draw.probability`` the
            chance of each draw) or :data:`SUCCESSIVE` (without replacement; ``draws`` in the order
            drawn per system, ``Draw.probability`` the unit's weight over the whole pool, from
            which the chance of each draw given the draws before it follows).
    """

    number: int
    criterion: str
    scope: str
    design: str
    drawn_at: str
    known: frozenset[Key]
    pool_sizes: dict[str, int]
    draws: tuple[Draw, ...]
    floor: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)
    sampling: str = WITH_REPLACEMENT


@dataclass(frozen=True, slots=True)
class LabelRecord:
    """One human label with where it came from; the unit it labels is its key in the records.

    ``round`` is the design round that drew the case (None for ``unknown``); ``source`` names
    where the label was read (``suite``, ``store`` or a file path). Without the unit, one record
    serves every label of a source's criterion with the same value (~50 MB at half a million
    labels, one record each).
    """

    criterion: str
    value: int
    design: str
    source: str
    round: int | None = None
    probability: float | None = None
