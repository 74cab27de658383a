"""Whether a generation kept enough of the questions asked for, and why the others were dropped.

A suite that holds fewer questions than requested no longer covers the topics as planned, so a
generation that keeps less than ``min_kept`` of the requested number is *incomplete*: the CLI
exits non-zero, prints :meth:`Shortfall.message` on stderr and writes its outputs under an
``.incomplete`` name, never at the requested path where they would look complete.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: Default share of the requested questions a generation must keep (a stated tolerance of 20%).
DEFAULT_MIN_KEPT = 0.8
#: Drop reasons that mean the writer's replies were unusable (not that a usable question was
#: rejected on its merits): the sign of a model too small for the full prompts.
WRITER_FAILURES = ("parse_failure", "placeholder", "malformed", "not_generated")


def minimum_kept(requested: int, min_kept: float) -> int:
    """The fewest questions a complete generation keeps: ``ceil(min_kept * requested)``.

    Example:
        >>> minimum_kept(60, 0.8), minimum_kept(3, 0.5), minimum_kept(5, 0.0)
        (48, 2, 0)
    """
    return math.ceil(round(min_kept * requested, 9))


@dataclass(frozen=True)
class Shortfall:
    """A generation that kept fewer than ``minimum`` of ``requested`` questions.

    ``reasons`` counts the dropped questions by reason (``over_quota`` excluded: those are
    the surplus of oversampling, not losses).
    """

    requested: int
    kept: int
    minimum: int
    min_kept: float
    reasons: Mapping[str, int]

    def message(self) -> str:
        """What went wrong, for the console (several lines).

        Example:
            >>> print(Shortfall(60, 0, 48, 0.8, {"parse_failure": 35, "placeholder": 23})
            ...       .message())  # doctest: +NORMALIZE_WHITESPACE
            generation incomplete: kept 0 of 60 questions requested (at least 48 needed,
            --min-kept 0.8). Dropped: parse_failure 35, placeholder 23.
            The question writer's replies were unusable for 58 of 58 dropped questions: a
            small local model cannot follow the full prompts; use --writer compact (one
            question per request, grammar-constrained) or a larger model.
        """
        listed = ", ".join(f"{reason} {count}" for reason, count in
                           sorted(self.reasons.items(), key=lambda item: (-item[1], item[0])))
        lines = [f"generation incomplete: kept {self.kept} of {self.requested} questions "
                 f"requested (at least {self.minimum} needed, --min-kept {self.min_kept:g}). "
                 f"Dropped: {listed or 'none'}."]
        dropped = sum(self.reasons.values())
        unusable = sum(self.reasons.get(r, 0) for r in WRITER_FAILURES)
        if dropped and unusable * 2 >= dropped:
            lines.append(f"The question writer's replies were unusable for {unusable} of "
                         f"{dropped} dropped questions: a small local model cannot follow the "
                         "full prompts; use --writer compact (one question per request, "
                         "grammar-constrained) or a larger model.")
        elif self.kept + dropped < self.requested:
            lines.append("Fewer questions were planned than requested: the corpus has too few "
                         "chunks for --n at three questions per chunk.")
        else:
            lines.append("Write more than needed with --oversample (e.g. 1.5), or lower "
                         "--min-kept to accept a smaller suite.")
        return "\n".join(lines)


def shortfall(report: Mapping[str, Any], min_kept: float = DEFAULT_MIN_KEPT
              ) -> Shortfall | None:
    """The :class:`Shortfall` of a generation report, or None when it kept enough.

    Example:
        >>> report = {"summary": {"requested": 4, "kept": 1},
        ...           "dropped": [{"reason": "parse_failure"}] * 3}
        >>> shortfall(report, 0.5).reasons, shortfall(report, 0.25)
        ({'parse_failure': 3}, None)
    """
    requested = int(report["summary"]["requested"])
    kept = int(report["summary"]["kept"])
    minimum = minimum_kept(requested, min_kept)
    if kept >= minimum:
        return None
    reasons = Counter(str(d["reason"]) for d in report["dropped"] if d["reason"] != "over_quota")
    return Shortfall(requested, kept, minimum, min_kept, dict(reasons))


__all__ = ["DEFAULT_MIN_KEPT", "WRITER_FAILURES", "Shortfall", "minimum_kept", "shortfall"]
