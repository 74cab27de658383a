"""Seeded, realistic answer pairs for the lexical benchmarks (no downloads).

Expected answers are built from banking-policy sentence templates with varied slots; actual answers
imitate what systems under test produce: close paraphrases (synonyms, dropped or added words,
hedges), reordered sentences, partial answers, off-topic answers and the occasional loop.
"""

from __future__ import annotations

import random

_TEMPLATES = [
    "The {product} has a monthly fee of {amount} {currency}.",
    "The fee is waived when the balance stays above {big} {currency}.",
    "Card payments abroad cost {pct}% of the amount, with a minimum of {small} {currency}.",
    "Cash withdrawals abroad cost {small} {currency} each, and the first {n} per month are free.",
    "Customers can close the {product} online at any time without charge.",
    "Overdrafts are charged at an annual rate of {pct}%, calculated daily and paid monthly.",
    "Lost or stolen cards must be reported immediately by calling {phone}.",
    "Standing orders cannot be changed on the day they are due.",
    "International transfers usually arrive within {n} working days.",
    "The mobile app lets you freeze and unfreeze your card instantly.",
    "Interest of {pct}% is paid monthly on balances between {small} and {big} {currency}.",
    "Joint accounts require the consent of both holders before they can be closed.",
    "Faster Payments are free of charge, while SEPA transfers cost {small} {currency}.",
    "Loans of up to {big} {currency} are approved subject to status and affordability checks.",
    "You are entitled to a refund of unauthorised payments without undue delay.",
    "Complaints are answered within {n} business days, and you may escalate to the ombudsman.",
    "Your {product} statement is available in the app on the {n}th of each month.",
    "Identity documents must be renewed every {n} years to keep the {product} open.",
]
_SLOTS = {
    "product": [
        "Premier current account",
        "Basic account",
        "Savings account",
        "Student account",
        "Business account",
        "Gold credit card",
    ],
    "currency": ["euros", "pounds", "dollars"],
}
_SYNONYMS = {
    "fee": "charge",
    "monthly": "per-month",
    "cost": "are charged",
    "immediately": "straight away",
    "customers": "clients",
    "free": "at no cost",
    "usually": "typically",
    "require": "need",
    "approved": "granted",
    "instantly": "right away",
    "answered": "handled",
    "closed": "shut",
    "charged": "billed",
    "available": "accessible",
    "renewed": "updated",
    "payments": "transactions",
}
_HEDGES = [
    "In short,",
    "According to our policy,",
    "Yes,",
    "Please note that",
    "Generally,",
    "As far as I know,",
    "To summarise:",
]
_OFF_TOPIC = [
    "I am sorry, I cannot help with that request.",
    "Please contact your branch for more information about this topic.",
    "Our opening hours are nine to five on weekdays.",
]


def _sentence(rng: random.Random) -> str:
    template = rng.choice(_TEMPLATES)
    return template.format(
        product=rng.choice(_SLOTS["product"]),
        currency=rng.choice(_SLOTS["currency"]),
        amount=rng.choice(["5", "7.50", "12", "15", "20"]),
        big=f"{rng.randint(1, 60) * 1000:,}",
        small=rng.choice(["1", "2.50", "3", "5", "10"]),
        pct=rng.choice(["0.5", "1.5", "2.75", "9.9", "19.9"]),
        n=rng.randint(2, 30),
        phone=f"+44 20 {rng.randint(1000, 9999)} {rng.randint(1000, 9999)}",
    )


def _paraphrase(text: str, rng: random.Random) -> str:
    out = []
    for word in text.split():
        bare = word.lower().strip(".,")
        roll = rng.random()
        if roll < 0.07:
            continue
        if roll < 0.2 and bare in _SYNONYMS:
            word = _SYNONYMS[bare] + word[len(bare) :] if word.lower().startswith(bare) else word
        out.append(word)
        if rng.random() < 0.03:
            out.append(rng.choice(["really", "also", "only", "just", "then"]))
    return " ".join(out)


def answer_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """``n`` (expected, actual) answer pairs, the same for the same seed.

    Example:
        >>> len(answer_pairs(5)), answer_pairs(3) == answer_pairs(3)
        (5, True)
    """
    rng = random.Random(seed)
    pairs = []
    for _ in range(n):
        expected_sentences = [_sentence(rng) for _ in range(rng.choice([1, 1, 2, 2, 3, 4]))]
        expected = " ".join(expected_sentences)
        kind = rng.random()
        if kind < 0.55:
            sentences = [_paraphrase(s, rng) for s in expected_sentences]
            if rng.random() < 0.3:
                rng.shuffle(sentences)
            if rng.random() < 0.3:
                sentences.append(_sentence(rng))
            actual = " ".join(sentences)
            if rng.random() < 0.3:
                actual = f"{rng.choice(_HEDGES)} {actual[0].lower()}{actual[1:]}"
        elif kind < 0.7:
            actual = _paraphrase(expected_sentences[0], rng)
        elif kind < 0.85:
            actual = " ".join(_sentence(rng) for _ in range(rng.randint(1, 4)))
        elif kind < 0.95:
            actual = rng.choice(_OFF_TOPIC)
        else:
            actual = " ".join([_paraphrase(expected_sentences[0], rng)] * rng.randint(3, 8))
        pairs.append((expected, actual))
    return pairs
