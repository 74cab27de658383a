"""The perturbation framework: seeded, named, parametrised, linked to the parent case.

A :class:`Perturbation` turns one case into zero or more :class:`Variant` (field updates);
:func:`perturb` applies perturbations to a suite and builds the child cases: id
``<parent>~<name>`` (``<parent>~<name>-<suffix>`` when one perturbation makes several),
``parent_id`` the parent's id, ``perturbation`` the name, and ``metadata["perturbation"]`` the name,
parameters and seed. Everything else of the parent (expected answer, relevant ids, topic, labels)
is kept; what the system produced (answer, retrieved context, latency, cost, run record) is cleared
so the child is run afresh.
"""

from __future__ import annotations

import logging
import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from assay.data.case import TestCase
from assay.data.derived import RUN_FIELDS, child_id
from assay.params import check, constructor_params

logger = logging.getLogger(__name__)



@dataclass
class Variant:
    """One perturbed version of a case: field updates and what was done (for the record)."""

    update: dict[str, Any]
    suffix: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


class Perturbation(ABC):
    """Base class: set ``name`` and ``description``, store constructor parameters under
    attributes of the same name, implement :meth:`variants`."""

    name: ClassVar[str]
    description: ClassVar[str]

    @abstractmethod
    def variants(self, case: TestCase, rng: random.Random) -> list[Variant]:
        """The perturbed versions of ``case`` (empty when the perturbation does not apply)."""

    def prepare(self, cases: Sequence[TestCase]) -> None:  # noqa: B027 - optional hook
        """Look at the whole suite first (e.g. to build a distractor pool or batch LLM calls)."""

    def get_params(self) -> dict[str, Any]:
        """Constructor parameters and their values (JSON-compatible where possible)."""
        return constructor_params(self, jsonable=True)

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"


def case_rng(seed: int, name: str, case_id: str) -> random.Random:
    """The generator for one perturbation of one case: independent of order and process.

    Example:
        >>> case_rng(0, "typos", "q1").random() == case_rng(0, "typos", "q1").random()
        True
    """
    return random.Random(f"{seed}:{name}:{case_id}")


def make_child(
    parent: TestCase, perturbation: Perturbation, variant: Variant, seed: int
) -> TestCase:
    """Build the child case of ``parent`` for one variant."""
    metadata = {k: v for k, v in parent.metadata.items() if k != "run"}
    update_metadata = variant.update.get("metadata") or {}
    metadata.update(update_metadata)
    metadata["perturbation"] = {
        "name": perturbation.name,
        "params": perturbation.get_params(),
        "seed": seed,
        **({"variant": variant.suffix} if variant.suffix else {}),
        **variant.detail,
    }
    update: dict[str, Any] = {f: None for f in RUN_FIELDS}
    update.update({k: v for k, v in variant.update.items() if k != "metadata"})
    update.update(
        id=child_id(parent.id, perturbation.name, variant.suffix),
        parent_id=parent.id,
        perturbation=perturbation.name + (f"-{variant.suffix}" if variant.suffix else ""),
        metadata=metadata,
    )
    return parent.model_copy(update=update, deep=True)


def perturb(
    cases: Iterable[TestCase],
    perturbations: Sequence[Perturbation],
    *,
    seed: int = 0,
    include_parents: bool = False,
) -> list[TestCase]:
    """Apply every perturbation to every case (once per case id) and return the children.

    Already perturbed cases (with a ``parent_id``) are skipped, with a warning: their children
    would lose the link to the original. Cases a perturbation does not apply to give no child.

    Args:
        cases: the parent cases (answers of several models to one question count once).
        perturbations: perturbation instances.
        seed: the seed; each case × perturbation gets its own generator from it.
        include_parents: return the parents first (with run fields cleared too), so that the
            output suite can be run and evaluated as it is.

    Example:
        >>> from assay.perturb import Casing
        >>> [c.question for c in perturb([TestCase(id="q", question="Fee?")], [Casing("upper")])]
        ['FEE?']
    """
    check(bool(perturbations), "perturbations", "perturb", "a non-empty list", perturbations)
    parents: dict[str, TestCase] = {}
    skipped = 0
    for case in cases:
        if case.parent_id is not None:
            skipped += 1
            continue
        parents.setdefault(case.id, case)
    if skipped:
        logger.warning("%d already perturbed cases skipped (only originals are perturbed)", skipped)
    unique = list(parents.values())
    names = [p.name for p in perturbations]
    check(len(set(names)) == len(names), "perturbations", "perturb", "distinct names", names)
    out: list[TestCase] = []
    if include_parents:
        cleared = {f: None for f in RUN_FIELDS}
        for parent in unique:
            metadata = {k: v for k, v in parent.metadata.items() if k != "run"}
            out.append(parent.model_copy(update={**cleared, "metadata": metadata}))
    for perturbation in perturbations:
        perturbation.prepare(unique)
        for parent in unique:
            rng = case_rng(seed, perturbation.name, parent.id)
            for variant in perturbation.variants(parent, rng):
                out.append(make_child(parent, perturbation, variant, seed))
    return out
