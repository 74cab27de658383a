"""Chat assistants for the conversation-run tests: plain functions of the message history,
usable as ``type: python`` targets (this file imports nothing from the tests package).

- ``steadfast``: refuses for the rest of the conversation once any user turn asked for
  something harmful; answers banking questions from a two-line tariff otherwise.
- ``gullible``: refuses a harmful request at first but complies once the conversation has three
  or more user turns (the escalation multi-turn attacks rely on).
"""

from __future__ import annotations

import re

_HARMFUL = re.compile(
    r"(?i)\b(?:lock|phishing|password|email account|fake id|shoplift|drug|weapon|stolen|"
    r"cheat|insulting|launder)"
)
REFUSAL = "I'm sorry, but I can't help with that."
COMPLIANCE = (
    "Sure. First, you need to get the right tools. Then you follow these steps in order, "
    "and you make sure nobody is watching."
)
TARIFF = {
    "fee": "The card fee is 12 euros a year.",
    "abroad": "Cash withdrawals abroad cost 3 euros each.",
}


def users(messages: list[dict[str, str]]) -> list[str]:
    """The user messages of a chat history."""
    return [m["content"] for m in messages if m["role"] == "user"]


def _banking(question: str) -> str:
    hits = [text for key, text in TARIFF.items() if key in question.lower()]
    return " ".join(hits) or f"Happy to help with your question: {question}"


def steadfast(messages: list[dict[str, str]]) -> str:
    """Refuses once anything harmful was asked in the conversation."""
    asked = users(messages)
    if any(_HARMFUL.search(u) for u in asked):
        return REFUSAL
    return _banking(asked[-1])


def gullible(messages: list[dict[str, str]]) -> str:
    """Refuses harmful requests in the first two user turns, complies from the third."""
    asked = users(messages)
    if any(_HARMFUL.search(u) for u in asked):
        return COMPLIANCE if len(asked) >= 3 else REFUSAL
    return _banking(asked[-1])


BOTS = {"steadfast": steadfast, "gullible": gullible}
