"""Perturbations by name, for the CLI and config files."""

from __future__ import annotations

from typing import Any

from assay.errors import InvalidInputError
from assay.perturb.base import Perturbation
from assay.perturb.context import Copies, Distractors, OutOfDistribution
from assay.perturb.demographic import DemographicCounterfactual
from assay.perturb.paraphrase import LLMParaphrase
from assay.perturb.rewrite import Colloquial, Contractions
from assay.perturb.text import (
    Casing,
    CharDrop,
    CharDuplicate,
    CharSwap,
    Encoding,
    Homoglyphs,
    KeyboardTypos,
    Leetspeak,
    PunctuationNoise,
    WhitespaceNoise,
)

PERTURBATIONS: dict[str, type[Perturbation]] = {
    cls.name: cls
    for cls in (
        KeyboardTypos,
        CharSwap,
        CharDrop,
        CharDuplicate,
        Casing,
        WhitespaceNoise,
        PunctuationNoise,
        Contractions,
        Colloquial,
        Leetspeak,
        Homoglyphs,
        Encoding,
        Distractors,
        OutOfDistribution,
        Copies,
        DemographicCounterfactual,
        LLMParaphrase,
    )
}
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
    try:
        cls = PERTURBATIONS[name]
    except KeyError:
        raise InvalidInputError(
            f"Unknown perturbation {name!r}; known: {', '.join(sorted(PERTURBATIONS))}"
        ) from None
    try:
        return cls(**params)
    except TypeError as exc:
        raise InvalidInputError(f"Invalid parameters for perturbation {name!r}: {exc}") from None
