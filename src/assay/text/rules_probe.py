"""A fixed probe of assay's text rules, and the fingerprint of how a feature set reads it.

The NLI heads and the combining head of ``hallucination_score`` read lexical features made by
:mod:`assay.text` (facts, alignment, token support). A head trained under one version of those
rules and scored under another meets features its training never made: in design note 0056 the
token NLI head lost 0.036 SummEdits AUROC that way, unnoticed for four sessions. So each such
head records, when it is trained, the fingerprint of its features on this probe, and a test
fails when the rules read the probe differently from the heads' training (design note 0058).

The probe (``data/text_rules_probe.json``) is frozen: hand-written pairs for each facts rule
(figures, dates, currencies, durations, codes, names, negations, antonyms), then the bundled
demo's answer and reference sentences against their retrieved passages. It is a copy, so that
editing the demo does not look like a change of rules.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from functools import lru_cache
from importlib.resources import files

PROBE = "data/text_rules_probe.json"
#: Where a head's ``head.json`` records the fingerprint (its ``training`` section).
FINGERPRINT = "text_rules_fingerprint"
#: Decimals a feature is rounded to before hashing (far below any rule's effect, above noise).
DECIMALS = 6


@lru_cache(maxsize=1)
def probe_pairs() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The probe's (claim, passages) pairs.

    Example:
        >>> claim, passages = probe_pairs()[0]
        >>> claim, passages
        ('Revenue decreased in 2023.', ('Revenue increased in 2023.',))
    """
    doc = json.loads(files("assay.text").joinpath(PROBE).read_text("utf-8"))
    passages = doc["passages"]
    return tuple((claim, tuple(passages[i] for i in indices)) for claim, indices in doc["pairs"])


def fingerprint(rows: Iterable[Sequence[float]]) -> str:
    """The sha256 of feature rows, each value rounded to :data:`DECIMALS` decimals.

    Example:
        >>> fingerprint([[0.5, 1.0]]) == fingerprint([[0.5000000001, 1]])
        True
        >>> fingerprint([[0.5, 1.0]]) == fingerprint([[0.5, 0.0]])
        False
    """
    digest = hashlib.sha256()
    for row in rows:
        values = [round(float(value), DECIMALS) + 0.0 for value in row]  # + 0.0: no "-0.0"
        digest.update(json.dumps(values).encode("ascii") + b"\n")
    return digest.hexdigest()
