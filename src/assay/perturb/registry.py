"""Perturbations by name, for the CLI and config files; installed packages add their own through
the entry-point group ``assay.perturbations`` (a :class:`~assay.perturb.base.Perturbation`
subclass)."""

from __future__ import annotations

from typing import Any

from assay.errors import InvalidInputError
from assay.perturb import context, demographic, paraphrase, rewrite, text
from assay.perturb.base import Perturbation
from assay.registry import GROUPS, Registry

#: The perturbations: assay's own and plugins of the entry-point group ``assay.perturbations``.
PERTURBATIONS: Registry[type[Perturbation]] = Registry("perturbation", GROUPS["perturbation"])
for _cls in (
        text.KeyboardTypos,
        text.CharSwap,
        text.CharDrop,
        text.CharDuplicate,
        text.Casing,
        text.WhitespaceNoise,
        text.PunctuationNoise,
        rewrite.Contractions,
        rewrite.Colloquial,
        text.Leetspeak,
        text.Homoglyphs,
        text.Encoding,
        context.Distractors,
        context.OutOfDistribution,
        context.Copies,
        demographic.DemographicCounterfactual,
        paraphrase.LLMParaphrase,
):
    PERTURBATIONS.register(_cls.name, _cls)
#: A robustness set that needs no model: wording noise that should not change the answer.
DEFAULT_NOISE = (
    "typos",
    "char_swap",
    "char_drop",
    "char_duplicate",
    "casing",
    "whitespace",
    "punctuation",
    "contractions",
    "colloquial",
)


def get_perturbation(name: str, **params: Any) -> Perturbation:
    """Instantiate the perturbation ``name`` with ``params``.

    Example:
        >>> get_perturbation("typos", rate=0.1).get_params()
        {'rate': 0.1, 'field': 'question'}
    """
    cls = PERTURBATIONS.get(name)
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidInputError(f"Invalid parameters for perturbation {name!r}: {exc}") from None
