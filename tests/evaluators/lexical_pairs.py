"""Seeded, realistic (expected, actual) answer pairs for the lexical parity tests."""

from __future__ import annotations

import random

_SENTENCES = [
    "The Premier current account has a monthly fee of 12 euros.",
    "The fee is waived when the balance stays above 5,000 euros.",
    "Card payments abroad cost 1.5% of the amount.",
    "Cash withdrawals abroad cost 3 euros each.",
    "Customers can close their accounts online at any time without charge.",
    "Overdrafts are charged at an annual rate of 9.9%, calculated daily.",
    "Lost or stolen cards must be reported immediately by calling +44 20 7946 0958.",
    "Standing orders can't be changed on the day they're due.",
    "International transfers usually arrive within 1-2 working days.",
    "The bank's mobile app lets you freeze and unfreeze your card instantly!",
    "Interest is paid monthly on balances between £1,000 and £50,000.",
    "Joint accounts require the consent of both holders for closures.",
    "Über-fast payments (Faster Payments) are free of charge; SEPA transfers cost €0.50.",
    "Loans are approved subject to status and affordability checks.",
    'You\'re entitled to a refund of unauthorised payments "without undue delay".',
]
_FILLERS = ["Yes,", "No.", "Actually", "In short,", "Please note:", "However,", "—", "(see terms)"]


def _perturb(text: str, rng: random.Random) -> str:
    words = text.split()
    out: list[str] = []
    for word in words:
        roll = rng.random()
        if roll < 0.08:
            continue
        if roll < 0.14:
            out.append(rng.choice(_FILLERS))
        if roll < 0.2:
            word = word.upper() if rng.random() < 0.5 else word.lower()
        out.append(word)
    if rng.random() < 0.2:
        rng.shuffle(out)
    return " ".join(out)


def answer_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` (expected, actual) pairs: paraphrase-like edits, reordering, loops and edge cases."""
    rng = random.Random(seed)
    pairs = [("", ""), ("", "An answer."), ("The fee.", ""), ("!!!", "..."), ("Ünïcödé", "unicode")]
    while len(pairs) < n:
        expected = " ".join(rng.sample(_SENTENCES, rng.randint(1, 3)))
        kind = rng.random()
        if kind < 0.6:
            actual = _perturb(expected, rng)
        elif kind < 0.8:
            actual = " ".join(rng.sample(_SENTENCES, rng.randint(1, 4)))
        elif kind < 0.9:
            actual = " ".join([rng.choice(_SENTENCES)] * rng.randint(2, 6))
        else:
            actual = expected[: rng.randint(0, len(expected))]
        pairs.append((expected, actual))
    return pairs[:n]
