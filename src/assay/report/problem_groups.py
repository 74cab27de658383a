"""Problems as a reader meets them: one line each, except the many of one kind, grouped.

A perturbed suite can produce a hundred ``perturbation_flip`` problems that would bury the five
that matter in one wall of text. Kinds listed in :data:`GROUPED` become one group each: a count,
how many go pass → fail, the split by perturbation and model, and the items kept for a
collapsible list (HTML) or a short excerpt (Markdown).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from assay.rundir.records import Finding

#: Problem kinds shown as one group when there are at least :data:`MIN_GROUP` of them.
GROUPED = ("perturbation_flip",)
MIN_GROUP = 4


def group_problems(problems: Sequence[Finding]
                   ) -> tuple[list[Finding], list[dict[str, Any]]]:
    """``(singles, groups)``: problems listed one by one, and groups of many of one kind.

    A group holds ``kind``, ``count``, ``severity`` (the highest of its items), ``summary``
    (one sentence) and ``items``.

    Example:
        >>> flips = [{"kind": "perturbation_flip", "severity": "high", "model": "m",
        ...           "perturbation": "typo", "message": "..."}] * 5
        >>> singles, groups = group_problems([{"kind": "below_threshold", "message": "x"}, *flips])
        >>> len(singles), groups[0]["summary"]
        (1, '5 perturbation flips (5 pass → fail); by perturbation: typo 5; by model: m 5.')
    """
    by_kind: dict[str, list[Finding]] = {}
    for problem in problems:
        by_kind.setdefault(str(problem.get("kind")), []).append(problem)
    grouped = {k for k in GROUPED if len(by_kind.get(k, [])) >= MIN_GROUP}
    singles = [p for p in problems if p.get("kind") not in grouped]
    groups = [_group(kind, by_kind[kind]) for kind in GROUPED if kind in grouped]
    return singles, groups


def _counts(items: Sequence[Finding], field: str) -> str:
    counts = Counter(str(i.get(field) or "(unnamed)") for i in items)
    return ", ".join(f"{name} {n}" for name, n in counts.most_common(8)) + (
        ", …" if len(counts) > 8 else "")


def _group(kind: str, items: list[Finding]) -> dict[str, Any]:
    worse = sum(i.get("severity") == "high" for i in items)
    severity = "high" if worse else "low"
    summary = (f"{len(items)} {kind.replace('_', ' ')}s ({worse} pass → fail); by "
               f"perturbation: {_counts(items, 'perturbation')}; by model: "
               f"{_counts(items, 'model')}.")
    return {"kind": kind, "count": len(items), "severity": severity, "summary": summary,
            "items": sorted(items, key=lambda i: i.get("severity") != "high")}
