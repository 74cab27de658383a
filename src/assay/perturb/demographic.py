"""Demographic counterfactuals for bias testing: swap gender, race, age or income terms.

When the question mentions a group of the chosen axis, each other group is swapped in (one child
per group); when it mentions none, a short persona sentence ("I am a woman.") is put in front,
one child per group, so the answers to otherwise identical questions can be compared
(counterfactual fairness). Word lists are small and explicit; extend them with ``groups``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from assay.data.case import TestCase
from assay.params import check_choice
from assay.perturb.base import Perturbation, Variant
from assay.perturb.rewrite import _keep_case

#: Gender swaps (applied simultaneously, both directions).
GENDER_PAIRS = (
    ("he", "she"), ("him", "her"), ("his", "her"), ("himself", "herself"), ("man", "woman"),
    ("men", "women"), ("male", "female"), ("boy", "girl"), ("boys", "girls"),
    ("father", "mother"), ("husband", "wife"), ("son", "daughter"), ("brother", "sister"),
    ("mr", "mrs"), ("gentleman", "lady"), ("boyfriend", "girlfriend"), ("uncle", "aunt"),
    ("grandfather", "grandmother"), ("dad", "mum"), ("king", "queen"),
)  # fmt: skip
#: Group terms per axis; each axis' terms are swapped for one another.
GROUPS: dict[str, tuple[str, ...]] = {
    "race": ("White", "Black", "Asian", "Hispanic", "Arab", "Indigenous"),
    "age": ("young", "middle-aged", "elderly"),
    "income": ("low-income", "middle-income", "high-income"),
}
#: Persona sentences used when the question names no group.
PERSONAS: dict[str, dict[str, str]] = {
    "gender": {"man": "I am a man.", "woman": "I am a woman.", "nonbinary": "I am non-binary."},
    "race": {g.lower(): f"I am {g}." for g in GROUPS["race"]},
    "age": {
        "young": "I am 22 years old.",
        "middle-aged": "I am 45 years old.",
        "elderly": "I am 78 years old.",
    },
    "income": {
        "low-income": "I have a low income.",
        "middle-income": "I have an average income.",
        "high-income": "I have a high income.",
    },
}
AXES = tuple(PERSONAS)


def _gender_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for a, b in GENDER_PAIRS:
        table.setdefault(a, b)
        table.setdefault(b, a)
    table["her"] = "his"  # ambiguous (him / his): the possessive is more common in questions
    table["ms"] = "mr"
    return table


_GENDER = _gender_table()
_WORD = r"(?<![\w-])({})(?![\w-])"


def swap_gender(text: str) -> str:
    """Swap gendered words in both directions at once.

    Example:
        >>> swap_gender("Can my wife open an account for her son?")
        'Can my husband open an account for his daughter?'
    """
    pattern = re.compile(
        _WORD.format("|".join(sorted(map(re.escape, _GENDER), key=len, reverse=True))),
        re.IGNORECASE,
    )
    return pattern.sub(lambda m: _keep_case(m.group(0), _GENDER[m.group(0).lower()]), text)


def swap_group(text: str, groups: Sequence[str], target: str) -> str:
    """Replace every group term of ``groups`` in ``text`` by ``target``.

    Example:
        >>> swap_group("Is the loan open to elderly customers?", GROUPS["age"], "young")
        'Is the loan open to young customers?'
    """
    pattern = re.compile(
        _WORD.format("|".join(sorted(map(re.escape, groups), key=len, reverse=True))),
        re.IGNORECASE,
    )
    return pattern.sub(lambda m: _keep_case(m.group(0), target), text)


def _mentions(text: str, terms: Sequence[str]) -> list[str]:
    pattern = re.compile(_WORD.format("|".join(map(re.escape, terms))), re.IGNORECASE)
    return [m.group(0).lower() for m in pattern.finditer(text)]


class DemographicCounterfactual(Perturbation):
    """Counterfactual versions of the question along one demographic ``axis``.

    Args:
        axis: ``gender``, ``race``, ``age`` or ``income``.
        mode: ``swap`` (only questions naming a group), ``persona`` (always add a persona
            sentence) or ``auto`` (swap when a group is named, else persona).

    Example:
        >>> cf = DemographicCounterfactual("gender")
        >>> [(v.suffix, v.update["question"]) for v in
        ...  cf.variants(TestCase(id="q", question="Can my wife apply?"), random.Random(0))]
        [('gender-swap', 'Can my husband apply?')]
        >>> [v.suffix for v in cf.variants(TestCase(id="q", question="Fee?"), random.Random(0))]
        ['gender-man', 'gender-woman', 'gender-nonbinary']
    """

    name = "counterfactual"
    description = "demographic counterfactual (gender, race, age, income)"

    def __init__(self, axis: str = "gender", mode: str = "auto") -> None:
        check_choice(axis, AXES, "axis", "DemographicCounterfactual")
        check_choice(mode, ("auto", "swap", "persona"), "mode", "DemographicCounterfactual")
        self.axis = axis
        self.mode = mode

    def _swaps(self, question: str) -> list[Variant]:
        if self.axis == "gender":
            found = _mentions(question, list(_GENDER))
            if not found:
                return []
            detail = {"axis": "gender", "swapped": found}
            return [Variant({"question": swap_gender(question)}, "gender-swap", detail)]
        groups = GROUPS[self.axis]
        found = _mentions(question, groups)
        if not found:
            return []
        out = []
        for target in groups:
            if target.lower() in found:
                continue
            detail = {"axis": self.axis, "swapped": found, "group": target}
            new = swap_group(question, groups, target)
            out.append(Variant({"question": new}, f"{self.axis}-{target.lower()}", detail))
        return out

    def variants(self, case: TestCase, rng: random.Random) -> list[Variant]:
        question = case.question or ""
        if not question:
            return []
        if self.mode != "persona":
            swapped = self._swaps(question)
            if swapped or self.mode == "swap":
                return swapped
        return [
            Variant(
                {"question": f"{sentence} {question}"},
                f"{self.axis}-{group}",
                {"axis": self.axis, "group": group, "persona": sentence},
            )
            for group, sentence in PERSONAS[self.axis].items()
        ]
