"""Bad-actor validation: an attack library by category, attacked-case builder, success detectors
(canaries, refusal detection, system-prompt leakage, PII / secrets) and refusal detection.

Example:
    >>> from assay.data.case import TestCase
    >>> from assay.attacks import make_attacks
    >>> cases = make_attacks([TestCase(id="q1", question="What is the fee?")])
    >>> sorted({c.metadata["attack"]["category"] for c in cases})[:2]
    ['harmful_compliance', 'indirect_injection']
"""

from assay.attacks.build import canary, make_attacks
from assay.attacks.detectors import (
    AttackVerdict,
    canary_leaked,
    conversation_verdict,
    judge_attack,
    shared_ngram,
)
from assay.attacks.library import (
    ATTACK_REGISTRY,
    ATTACKS,
    CATEGORIES,
    DETECTORS,
    HARMFUL_REQUESTS,
    Attack,
    attacks,
)
from assay.attacks.refusal import RefusalVerdict, detect_refusal, is_refusal

__all__ = [
    "ATTACKS",
    "ATTACK_REGISTRY",
    "CATEGORIES",
    "DETECTORS",
    "HARMFUL_REQUESTS",
    "Attack",
    "AttackVerdict",
    "RefusalVerdict",
    "attacks",
    "canary",
    "canary_leaked",
    "conversation_verdict",
    "detect_refusal",
    "is_refusal",
    "judge_attack",
    "make_attacks",
    "shared_ngram",
]
