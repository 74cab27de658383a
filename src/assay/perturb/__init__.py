"""Seeded perturbations of test cases, each recording its name and parameters and linked to its
parent case (child id ``<parent>~<name>``, ``parent_id``).

Example:
    >>> from assay.data.case import TestCase
    >>> from assay.perturb import KeyboardTypos, perturb
    >>> [child] = perturb([TestCase(id="q1", question="What is the fee?")], [KeyboardTypos(0.2)])
    >>> child.id, child.parent_id, child.metadata["perturbation"]["params"]["rate"]
    ('q1~typos', 'q1', 0.2)
"""

from assay.data.derived import child_id
from assay.perturb.base import Perturbation, Variant, case_rng, perturb
from assay.perturb.context import OOD_QUESTIONS, Copies, Distractors, OutOfDistribution, contradict
from assay.perturb.demographic import DemographicCounterfactual, swap_gender, swap_group
from assay.perturb.paraphrase import LLMParaphrase
from assay.perturb.registry import DEFAULT_NOISE, PERTURBATIONS, get_perturbation
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
    TextPerturbation,
    WhitespaceNoise,
)

__all__ = [
    "DEFAULT_NOISE",
    "OOD_QUESTIONS",
    "PERTURBATIONS",
    "Casing",
    "CharDrop",
    "CharDuplicate",
    "CharSwap",
    "Colloquial",
    "Contractions",
    "Copies",
    "DemographicCounterfactual",
    "Distractors",
    "Encoding",
    "Homoglyphs",
    "KeyboardTypos",
    "LLMParaphrase",
    "Leetspeak",
    "OutOfDistribution",
    "Perturbation",
    "PunctuationNoise",
    "TextPerturbation",
    "Variant",
    "WhitespaceNoise",
    "case_rng",
    "child_id",
    "contradict",
    "get_perturbation",
    "perturb",
    "swap_gender",
    "swap_group",
]
