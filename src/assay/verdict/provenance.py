"""Where a verdict came from: the assay version, the hashes of the plan, suite and labels, the
date, and how the labels were chosen (their design, design note 0063).

A validator who signs a verdict must be able to say which inputs it rests on; two verdicts with
the same hashes were decided from the same plan, suite and labels.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from assay._version import __version__
from assay.fileio import sha256_file
from assay.verdict.labels import LabelEvidence
from assay.verdict.plan import ValidationPlan


@dataclass(frozen=True)
class Provenance:
    """The inputs a verdict rests on.

    Attributes:
        assay_version: the version that decided.
        assessed_at: when (UTC, ISO 8601, seconds).
        plan_sha256: sha256 of the plan's canonical JSON (its settings, not its file's layout).
        suite_sha256: sha256 of the suite file's bytes (None when it cannot be read).
        labels_sha256: sha256 of every label (criterion, case, system, value, design), sorted;
            None when the plan uses no label.
        designs: criterion → design (``random``, ``uniform``, ``active``, ``unknown``) → labels.
        rounds: design rounds drawn (``assay labels sample`` rounds and random outside sources).
    """

    assay_version: str
    assessed_at: str
    plan_sha256: str
    suite_sha256: str | None
    labels_sha256: str | None
    designs: dict[str, dict[str, int]] = field(default_factory=dict)
    rounds: int = 0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)

    def designs_text(self) -> str:
        """The labels' designs in one line, e.g. ``correct: 108 random; grounded: 108 random``.

        Example:
            >>> Provenance("0", "", "", None, None, {"correct": {"random": 3, "unknown": 1}}
            ...            ).designs_text()
            'correct: 3 random, 1 unknown'
        """
        if not self.designs:
            return "no labels"
        return "; ".join(
            f"{criterion}: " + ", ".join(f"{n} {design}" for design, n in sorted(counts.items()))
            for criterion, counts in sorted(self.designs.items())
        )


def _sha256_file(plan: ValidationPlan) -> str | None:
    try:
        return sha256_file(plan.suite_path)  # in blocks: a million-case suite is GBs
    except OSError:
        return None


def provenance(plan: ValidationPlan, evidence: LabelEvidence) -> Provenance:
    """The provenance of a verdict decided from ``plan`` and the labels in ``evidence``."""
    canonical = plan.model_dump(mode="json", exclude={"base_dir"})
    plan_sha = hashlib.sha256(json.dumps(canonical, sort_keys=True).encode()).hexdigest()
    records = sorted(
        (r.criterion, case_id, model, r.value, r.design)
        for per_criterion in evidence.records.values()
        for (case_id, model), r in per_criterion.items()
    )
    labels_sha = (
        hashlib.sha256(json.dumps(records).encode()).hexdigest() if records else None
    )
    # sorted: the sources' criteria may arrive in a set's order, which changes between processes
    designs = {
        criterion: dict(sorted(Counter(r.design for r in per_criterion.values()).items()))
        for criterion, per_criterion in sorted(evidence.records.items())
        if per_criterion
    }
    return Provenance(
        assay_version=__version__,
        assessed_at=datetime.now(UTC).replace(microsecond=0).isoformat(),
        plan_sha256=plan_sha,
        suite_sha256=_sha256_file(plan),
        labels_sha256=labels_sha,
        designs=designs,
        rounds=len(evidence.rounds),
    )
