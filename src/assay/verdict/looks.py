"""The ledger of looks: re-assessing until decided keeps the stated confidence (design note 0063).

A user re-assesses after each labelling round and stops once a check is decided. Each assessment
whose bound inputs (labels, their designs, the rounds, the units in scope) changed is a new *look*
at the check. Look ``k`` spends ``α_k = α · 6 / (π² k²)`` of the plan's error ``α = 1 − confidence``
(Σ_k α_k = α): whatever the stopping rule, the chance that any look's bound is wrong stays ≤ α
(a union bound over the looks). An assessment of unchanged inputs is the same look again.

The ledger is ``ASSESSMENT/looks.json``: per check and system, the fingerprints of the bound inputs
seen, in order. An assessment kept in memory (no directory) is look 1.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from assay.errors import InvalidInputError
from assay.fileio import write_text
from assay.params import check

LOOKS_FILE = "looks.json"
_VERSION = 1


def look_level(confidence: float, look: int) -> float:
    """The one-sided confidence a bound uses at look ``look``: ``1 − α · 6 / (π² look²)``.

    Example:
        >>> round(look_level(0.95, 1), 4), round(look_level(0.95, 2), 4)
        (0.9696, 0.9924)
    """
    check(0.0 < confidence < 1.0, "confidence", "look_level", "in (0, 1)", confidence)
    check(look >= 1, "look", "look_level", "a positive integer", look)
    return 1.0 - (1.0 - confidence) * 6.0 / (math.pi**2 * look**2)


def fingerprint(parts: Iterable[Any]) -> str:
    """A stable digest of a bound's inputs (JSON of the parts, sorted keys).

    Example:
        >>> fingerprint([("q1", "m", 1)]) == fingerprint([["q1", "m", 1]])
        True
    """
    body = json.dumps(list(parts), sort_keys=True, default=str)
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


class LookLedger:
    """Looks per (check, system), read from and written to an assessment directory.

    Args:
        directory: the assessment directory; None keeps the ledger in memory (every bound is
            look 1 of its inputs).

    Example:
        >>> ledger = LookLedger(None)
        >>> ledger.look("accuracy", "m", "aa"), ledger.look("accuracy", "m", "bb")
        (1, 2)
        >>> ledger.look("accuracy", "m", "aa")  # the same inputs again: the same look
        1
    """

    def __init__(self, directory: Path | None) -> None:
        self.path = directory / LOOKS_FILE if directory is not None else None
        self.seen: dict[str, dict[str, list[str]]] = {}
        if self.path is not None and self.path.is_file():
            try:
                data = json.loads(self.path.read_text(encoding="utf-8"))
                self.seen = {
                    str(name): {str(m): [str(f) for f in prints] for m, prints in per.items()}
                    for name, per in data["looks"].items()
                }
            except (OSError, ValueError, KeyError, AttributeError, TypeError) as exc:
                raise InvalidInputError(
                    f"{self.path}: cannot read the ledger of looks ({exc}); it records how often "
                    "each check was assessed — restore it, or delete it to start counting anew"
                ) from exc

    def look(self, check_name: str, model: str, digest: str) -> int:
        """The look number of these inputs (a new look when they were never seen)."""
        prints = self.seen.setdefault(check_name, {}).setdefault(model, [])
        if digest not in prints:
            prints.append(digest)
        return prints.index(digest) + 1

    def save(self) -> None:
        """Write ``looks.json`` (nothing when the ledger is in memory)."""
        if self.path is not None:
            body = {"version": _VERSION, "looks": self.seen}
            write_text(self.path, json.dumps(body, indent=2, sort_keys=True) + "\n")
