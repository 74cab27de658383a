"""PII leakage in the answer (generation) and in the retrieved context (retrieval)."""

from __future__ import annotations

from collections.abc import Sequence

from assay.data.case import TestCase
from assay.evaluators.base import CaseResult, Evaluator
from assay.evaluators.leak_scoring import leak_metrics, score_leaks
from assay.evaluators.registry import register
from assay.params import check
from assay.safety import Finding, find_pii
from assay.safety.pii import ALL_PII_TYPES


@register
class PiiLeakage(Evaluator):
    """Personal data in the answer and, separately, in the retrieved context.

    Detected offline: credit card numbers (Luhn-checked), US SSNs, emails, phone numbers
    (``phonenumbers``), IBANs (mod-97-checked), IPv4/IPv6 and English street addresses (heuristic);
    see docs/safety.md for measured precision and recall. Values are masked in every output.

    Args:
        entities: PII types to look for (default: ``assay.safety.PII_TYPES``; add ``"PERSON"``
            for person names by a spaCy model, which needs ``pip install 'assay[ner]'``).
        allow: Exact values that are not leaks (e.g. the public support address).

    Example:
        >>> case = TestCase(id="q", actual_answer="Write to jane.doe@example.com")
        >>> r = PiiLeakage().evaluate([case])[0]
        >>> r.outcomes["pii_generation_leak"].value, r.explanation
        (1.0, 'answer: 1 PII (EMAIL_ADDRESS jane************.com at 9-29)')
    """

    name = "pii_leakage"
    family = "safety"
    description = (
        "PII (cards, SSN, email, phone, IBAN, IP, street address) in the answer (generation "
        "leak) and in the retrieved context (retrieval leak), per entity type; values masked."
    )
    requires = ("actual_answer",)
    metrics = leak_metrics("pii", "PII", "PII values")

    def __init__(self, entities: Sequence[str] | None = None, allow: Sequence[str] = ()) -> None:
        if entities is not None:
            unknown = [e for e in entities if e not in ALL_PII_TYPES]
            check(
                not unknown, "entities", "PiiLeakage", f"a subset of {list(ALL_PII_TYPES)}", unknown
            )
        self.entities = None if entities is None else list(entities)
        self.allow = list(allow)

    def _find(self, text: str) -> list[Finding]:
        return find_pii(text, self.entities)

    def score(self, cases: Sequence[TestCase]) -> list[CaseResult]:
        return score_leaks(cases, self._find, self.allow, "pii", "PII")
